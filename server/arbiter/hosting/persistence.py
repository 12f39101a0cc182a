"""Writes matches to the store as they go: a listener whose writes run on one worker thread.

Order is kept: every write goes through one thread, in the order the events came. A match's
moves are written in batches; its result, rating updates and new ratings in one transaction (the
store's ``finish_match``), and only once that transaction is committed do the bots hear that the
match ended (the transport holds their ``MatchEnded`` until then). When the store is unavailable,
the writes wait in memory, in order, and are retried until it is back: matches go on meanwhile,
nothing is lost and nothing is written twice (every write is idempotent by match id).
"""

from __future__ import annotations

import asyncio
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import structlog

from ..events.model import Game
from ..ladder.host import LadderResult
from ..ladder.model import BotVersion, Termination
from ..ladder.ratings import RatingTally
from ..match.events import ActionApplied, MatchEnded, MatchEvent, MatchStarted
from ..store import MatchResult, MatchStart, MoveRow, RatingUpdate, SqlStore, StoreError

log = structlog.get_logger("arbiter")

#: The interpreter's thread switch interval while a store writer runs (seconds).
SWITCH_INTERVAL = 0.001
#: Moves are written when this many wait for one match, and at least every FLUSH_SECONDS.
MOVE_BATCH = 32
FLUSH_SECONDS = 0.5
#: Delays between attempts while the store is unavailable (the last one repeats).
RETRY_DELAYS = (0.05, 0.2, 0.5, 1.0, 2.0)

_TERMINATIONS = {
    "aborted": Termination.ABORTED,
    "timeout": Termination.TIMEOUT,
    "illegal_action": Termination.ILLEGAL_ACTION,
    "malformed_action": Termination.ILLEGAL_ACTION,
}


class StoreWriter:
    """The store's listener. ``hold`` is the transport's gate for MatchEnded messages."""

    def __init__(self, store: SqlStore, sleep: Callable[[float], None] = time.sleep) -> None:
        # The worker thread runs Python (SQLAlchemy) between its database calls; with the default
        # 5 ms switch interval it could hold the event loop up that long in the middle of a
        # match. 1 ms keeps the loop's latency (and so the bots' charged time) close to no store.
        sys.setswitchinterval(min(sys.getswitchinterval(), SWITCH_INTERVAL))
        self.store = store
        self.sleep = sleep
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="store")
        self.moves: dict[str, list[MoveRow]] = {}
        self.plies: dict[str, int] = {}
        self.ladder_results: dict[str, LadderResult] = {}
        #: Event games' results to write with their matches' ends (``event_result``).
        self.event_results: dict[str, Game] = {}
        self.waiting_release: dict[str, list[Callable[[], None]]] = {}
        self.committed: set[str] = set()
        self.loop: asyncio.AbstractEventLoop | None = None
        self.flusher: asyncio.TimerHandle | None = None
        self.unavailable = threading.Event()
        self.pending: set[Future[None]] = set()
        #: Told (write's name, seconds) after each committed write, on the worker thread (metrics).
        self.timed: Callable[[str, float], None] | None = None

    # --- the listener -------------------------------------------------------------------------
    def __call__(self, event: MatchEvent) -> None:
        if self.loop is None:
            self.loop = asyncio.get_running_loop()
        if isinstance(event, MatchStarted):
            self.plies[event.facts.match_id] = 0
            self._submit(self.store.match_started, match_start(event))
        elif isinstance(event, ActionApplied):
            self._move(event)
        elif isinstance(event, MatchEnded):
            match_id = event.facts.match_id
            self._flush(match_id)
            self.plies.pop(match_id, None)
            ladder = self.ladder_results.pop(match_id, None)
            game = self.event_results.pop(match_id, None)
            future = self._submit(self._finish, event, ladder, game)
            future.add_done_callback(lambda _: self._committed_soon(match_id))

    def _move(self, event: ActionApplied) -> None:
        match_id = event.facts.match_id
        ply = self.plies.get(match_id, 0)
        self.plies[match_id] = ply + 1
        clocks = {str(seat): left for seat, left in event.clocks.items()}
        auto = None if event.auto is None else event.auto.value
        row = MoveRow(ply, event.seat, event.text, event.turn_id, event.charged, clocks, auto)
        batch = self.moves.setdefault(match_id, [])
        batch.append(row)
        if len(batch) >= MOVE_BATCH:
            self._flush(match_id)
        elif self.flusher is None and self.loop is not None:
            self.flusher = self.loop.call_later(FLUSH_SECONDS, self._flush_all)

    def adopt(self, match_id: str, plies: int) -> None:
        """A match rebuilt after a restart: its next move is ply ``plies``."""
        self.plies[match_id] = plies

    def abandon(self, match_id: str, start: MatchStart) -> None:
        """A logged match that cannot be rebuilt: record it as aborted (never rated)."""
        result = MatchResult(
            winner_seat=None,
            scores={},
            reason="aborted",
            termination=Termination.ABORTED,
            ended_at=time.time(),
            detail="the arbiter restarted and the match's move log does not replay",
        )
        self._submit(self.store.finish_match, match_id, result, None, None)

    def ladder_result(self, result: LadderResult) -> None:
        """The ladder's reckoning of a match, written with its result (the ladder host is
        subscribed before this writer, so it comes before the MatchEnded)."""
        self.ladder_results[result.match_id] = result

    def event_result(self, match_id: str, game: Game) -> None:
        """The event game's result of a match, written with the match's end in one transaction
        (the event host is subscribed before this writer, so it comes before the MatchEnded)."""
        self.event_results[match_id] = game

    def call(self, write: Callable[..., Any], *args: Any) -> Future[None]:
        """Run another write of the store in order after those submitted before (retried while
        the store is away): the event host stores a round only after its results."""
        return self._submit(write, *args)

    def resume_bot(self, ladder: str, bot: str) -> None:
        """Lift the bot's pause on ``ladder`` after the writes submitted before (a result still
        waiting to be written may pause it)."""
        self._submit(self.store.resume_bot, ladder, bot)

    def _finish(self, event: MatchEnded, ladder: LadderResult | None, game: Game | None = None) -> None:
        end = event.end
        termination = (
            ladder.termination if ladder is not None else _TERMINATIONS.get(end.reason, Termination.GAME_END)
        )
        result = MatchResult(
            winner_seat=end.winner_seat,
            scores=dict(end.scores),
            reason=end.reason,
            termination=termination,
            ended_at=float(event.record.get("ended_at") or time.time()),
            faulty_seat=end.faulty_seat,
            detail=end.detail,
            record=event.record,
        )
        updates: list[RatingUpdate] = []
        tallies: dict[BotVersion, RatingTally] = {}
        if ladder is not None and ladder.rated:
            for seat, change in enumerate(ladder.changes, 1):
                updates.append(RatingUpdate(seat, change.bot, change.before, change.after))
            tallies.update(ladder.tallies)
        first_time = self.store.finish_match(
            event.facts.match_id, result, updates or None, tallies or None, event_game=game
        )
        if ladder is not None and first_time:
            # Each count retried on its own: were this whole write retried after the result had
            # committed, finish_match would answer "ended already" and the counts would be lost.
            for bot, failed in ladder.failed.items():
                self._with_retries(
                    self.store.record_outcome_for_bot, ladder.ladder, bot, failed, ladder.failure_limit
                )

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
                began = time.perf_counter()
                write(*args)
                if self.timed is not None:
                    self.timed(getattr(write, "__name__", "?").lstrip("_"), time.perf_counter() - began)
            except StoreError as exc:
                if not exc.transient:
                    # Not the database being away: retrying cannot help; keep the writer going.
                    log.error(
                        "store_write_failed", error=str(exc)[:300], write=getattr(write, "__name__", "?")
                    )
                    return
                if not self.unavailable.is_set():
                    first_line = (str(exc).splitlines() or [type(exc).__name__])[0][:200]
                    log.error("store_unavailable", error=first_line, write=getattr(write, "__name__", "?"))
                    self.unavailable.set()
                self.sleep(RETRY_DELAYS[min(attempt, len(RETRY_DELAYS) - 1)])
                attempt += 1
                continue
            if self.unavailable.is_set():
                self.unavailable.clear()
                log.info("store_available_again", attempts=attempt + 1)
            return

    async def settle(self, at_most: float) -> None:
        """Wait (at most ``at_most`` seconds) until what was submitted is written and the
        MatchEnded messages it held are released to the seats."""
        waiting = [asyncio.wrap_future(future) for future in list(self.pending)]
        if waiting:
            await asyncio.wait(waiting, timeout=at_most)
        await asyncio.sleep(0)  # the releases are scheduled on the loop from the worker thread

    async def close(self) -> None:
        """Write what waits (moves of running matches too), then stop the worker thread."""
        self._flush_all()
        if self.flusher is not None:
            self.flusher.cancel()
            self.flusher = None
        await asyncio.to_thread(self.executor.shutdown, True)


def match_start(event: MatchStarted) -> MatchStart:
    """What the store keeps of a match when it starts (enough to rebuild it from its moves)."""
    facts = event.facts
    return MatchStart(
        match_id=facts.match_id,
        game=facts.game.name,
        options=dict(facts.options),
        seat_1=BotVersion(facts.bots[1], facts.versions.get(1, "")),
        seat_2=BotVersion(facts.bots[2], facts.versions.get(2, "")),
        seed=event.seed.hex(),
        seed_commitment=facts.seed_commitment,
        control=facts.control,
        policy=facts.policy,
        started_at=event.started_at,
        ladder=facts.ladder,
        rated=facts.rated,
        event=facts.event,
    )
