"""Writes matches to the store as they go: a listener whose writes run on one worker thread.

Order is kept: every write goes through one thread, in the order the events came. A match's
moves are written in batches; its result, rating updates and the rest of the ladder's bookkeeping
in one transaction (the store's ``finish_match``), and only once that transaction is committed do
the bots hear that the match ended (the transport holds their ``MatchEnded`` until then). When the
store is unavailable, the writes wait in memory, in order, and are retried until it is back:
matches go on meanwhile, nothing is lost and nothing is written twice (every write is idempotent by
match id).
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Protocol

import structlog

from ..ladder.host import LadderResult
from ..match.events import ActionApplied, MatchEnded, MatchEvent, MatchStarted

log = structlog.get_logger("arbiter")

#: Moves are written when this many wait for one match, and at least every FLUSH_SECONDS.
MOVE_BATCH = 32
FLUSH_SECONDS = 0.5
#: Delays between attempts while the store is unavailable (the last one repeats).
RETRY_DELAYS = (0.05, 0.2, 0.5, 1.0, 2.0)


@dataclass(frozen=True)
class MoveRow:
    match_id: str
    ply: int
    seat: int
    turn_id: int | None
    action: str
    charged: float | None
    clocks: Mapping[str, float | None]
    auto: str | None


class MatchStore(Protocol):
    """The writes this listener makes (``store.sql.SqlStore`` implements them)."""

    def match_started(self, facts: Mapping[str, Any]) -> None: ...

    def append_moves(self, match_id: str, rows: Sequence[MoveRow]) -> None: ...

    def finish_match(self, record: Mapping[str, Any], ladder: LadderResult | None) -> bool: ...


class StoreWriter:
    """The store's listener. ``hold`` is the transport's gate for MatchEnded messages."""

    def __init__(self, store: MatchStore, sleep: Callable[[float], None] = time.sleep) -> None:
        self.store = store
        self.sleep = sleep
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="store")
        self.moves: dict[str, list[MoveRow]] = {}
        self.plies: dict[str, int] = {}
        self.ladder_results: dict[str, LadderResult] = {}
        self.waiting_release: dict[str, list[Callable[[], None]]] = {}
        self.committed: set[str] = set()
        self.loop: asyncio.AbstractEventLoop | None = None
        self.flusher: asyncio.TimerHandle | None = None
        self.unavailable = threading.Event()
        self.pending: set[Future[None]] = set()

    # --- the listener -------------------------------------------------------------------------
    def __call__(self, event: MatchEvent) -> None:
        if self.loop is None:
            self.loop = asyncio.get_running_loop()
        if isinstance(event, MatchStarted):
            facts = event.facts
            self.plies[facts.match_id] = 0
            self._submit(self.store.match_started, started_row(event))
        elif isinstance(event, ActionApplied):
            match_id = event.facts.match_id
            ply = self.plies.get(match_id, 0) + 1
            self.plies[match_id] = ply
            clocks = {str(seat): left for seat, left in event.clocks.items()}
            row = MoveRow(
                match_id,
                ply,
                event.seat,
                event.turn_id,
                event.text,
                event.charged,
                clocks,
                None if event.auto is None else event.auto.value,
            )
            batch = self.moves.setdefault(match_id, [])
            batch.append(row)
            if len(batch) >= MOVE_BATCH:
                self._flush(match_id)
            elif self.flusher is None:
                self.flusher = self.loop.call_later(FLUSH_SECONDS, self._flush_all)
        elif isinstance(event, MatchEnded):
            match_id = event.facts.match_id
            self._flush(match_id)
            self.plies.pop(match_id, None)
            ladder = self.ladder_results.pop(match_id, None)
            future = self._submit(self.store.finish_match, event.record, ladder)
            future.add_done_callback(lambda _: self._committed_soon(match_id))

    def ladder_result(self, result: LadderResult) -> None:
        """The ladder's reckoning of a match, written with its result (the ladder host calls this
        before the store writer sees the MatchEnded: it is subscribed first)."""
        self.ladder_results[result.match_id] = result

    # --- the MatchEnded gate ------------------------------------------------------------------
    def hold(self, event: MatchEnded, release: Callable[[], None]) -> bool:
        """Keep ``release`` (send MatchEnded to the seats) until the result is committed."""
        match_id = event.facts.match_id
        if match_id in self.committed:
            self.committed.discard(match_id)
            return False
        self.waiting_release.setdefault(match_id, []).append(release)
        return True

    def _committed_soon(self, match_id: str) -> None:
        loop = self.loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self._committed, match_id)

    def _committed(self, match_id: str) -> None:
        releases = self.waiting_release.pop(match_id, None)
        if releases is None:
            self.committed.add(match_id)
            return
        for release in releases:
            release()

    # --- writing ------------------------------------------------------------------------------
    def _flush(self, match_id: str) -> None:
        rows = self.moves.pop(match_id, None)
        if rows:
            self._submit(self.store.append_moves, match_id, rows)

    def _flush_all(self) -> None:
        self.flusher = None
        for match_id in list(self.moves):
            self._flush(match_id)

    def _submit(self, write: Callable[..., Any], *args: Any) -> Future[None]:
        future = self.executor.submit(self._with_retries, write, *args)
        self.pending.add(future)
        future.add_done_callback(self.pending.discard)
        return future

    def _with_retries(self, write: Callable[..., Any], *args: Any) -> None:
        attempt = 0
        while True:
            try:
                write(*args)
            except Exception as exc:  # noqa: BLE001 - the store is away: wait and try again
                if not self.unavailable.is_set():
                    log.error("store_unavailable", error=str(exc).splitlines()[0][:200], write=write.__name__)
                    self.unavailable.set()
                self.sleep(RETRY_DELAYS[min(attempt, len(RETRY_DELAYS) - 1)])
                attempt += 1
                continue
            if self.unavailable.is_set():
                self.unavailable.clear()
                log.info("store_available_again", write=write.__name__, attempts=attempt + 1)
            return

    async def close(self) -> None:
        """Write what waits (moves of running matches too), then stop the worker thread."""
        self._flush_all()
        if self.flusher is not None:
            self.flusher.cancel()
            self.flusher = None
        await asyncio.to_thread(self.executor.shutdown, True)


def started_row(event: MatchStarted) -> dict[str, Any]:
    """What the store keeps of a match when it starts (enough to rebuild it from its moves)."""
    facts = event.facts
    return {
        "match_id": facts.match_id,
        "ladder": facts.ladder,
        "game": facts.game.name,
        "options": dict(facts.options),
        "bots": {str(seat): name for seat, name in facts.bots.items()},
        "versions": {str(seat): version for seat, version in facts.versions.items()},
        "seed": event.seed.hex(),
        "seed_commitment": facts.seed_commitment,
        "time_control": facts.control.as_dict(),
        "policy": facts.policy.as_dict(),
        "started_at": event.started_at,
    }
