"""The arbiter's state: connected bots, open seeks, running matches, finished records.

Protocol-independent except for the outgoing ``PlayResponse`` messages the matches build.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import structlog

from .. import __version__
from ..engines import ActionError, OptionsError, get_rules
from ..match.match import Match, MatchSetup
from ..match.policy import MatchPolicy
from ..match.timecontrol import TimeControl
from ..protocol import convert
from ..v1 import bot_service_pb2 as pb
from . import errors
from .auth import BotDirectory

log = structlog.get_logger("arbiter")


@dataclass
class ArbiterConfig:
    """What ``arbiter serve`` is configured with."""

    bots: BotDirectory
    default_control: TimeControl = field(default_factory=lambda: TimeControl(base=60.0, increment=1.0))
    policy: MatchPolicy = field(default_factory=MatchPolicy)
    records_dir: Path | None = None
    #: Stop pairing after this many matches (the local runner uses it); None: no limit.
    max_matches: int | None = None


class Closing:
    """Put in a session's outbox to end its stream with a status."""

    def __init__(self, reason: str, message: str) -> None:
        self.reason = reason
        self.message = message


#: Messages waiting for a bot that does not read them before its session is closed.
OUTBOX_LIMIT = 1000
#: Open seeks one bot may have at once.
SEEK_LIMIT = 16


class Delivery:
    """A message and what to do once it is handed to the transport (a Turn starts its clock)."""

    __slots__ = ("message", "on_sent")

    def __init__(self, message: pb.PlayResponse, on_sent: Callable[[], None]) -> None:
        self.message = message
        self.on_sent = on_sent


class BotSession:
    """One open Play stream of a bot."""

    def __init__(self, bot_name: str) -> None:
        self.bot_name = bot_name
        self.id = uuid.uuid4().hex[:12]
        # Unbounded as a queue; ``send`` enforces the limit (the writer's own end marker always fits).
        self.outbox: asyncio.Queue[pb.PlayResponse | Delivery | Closing | None] = asyncio.Queue()
        self.closed = False

    def send(self, message: pb.PlayResponse, on_sent: Callable[[], None] | None = None) -> None:
        if self.closed:
            return
        if self.outbox.qsize() >= OUTBOX_LIMIT:
            # The bot sends faster than it reads its replies: drop them and close the session.
            while not self.outbox.empty():
                self.outbox.get_nowait()
            self.close(errors.RESOURCE_EXHAUSTED, f"more than {OUTBOX_LIMIT} replies were waiting unread")
            return
        self.outbox.put_nowait(message if on_sent is None else Delivery(message, on_sent))

    def close(self, reason: str, message: str) -> None:
        if not self.closed:
            self.closed = True
            self.outbox.put_nowait(Closing(reason, message))


@dataclass(frozen=True)
class SeekKey:
    """Seeks pair when these agree."""

    game: str
    options: tuple[tuple[str, Any], ...]
    control: TimeControl


class Arbiter:
    """Pairs seeking bots, runs their matches and routes messages to whichever session is live."""

    def __init__(
        self,
        config: ArbiterConfig,
        on_match_end: Callable[[Match], None] | None = None,
        on_progress: Callable[[Match], None] | None = None,
    ) -> None:
        self.config = config
        self.on_progress = on_progress
        self.sessions: dict[str, BotSession] = {}
        self.matches: dict[str, Match] = {}
        self.recent: deque[Match] = deque(maxlen=1000)
        self.by_bot: dict[str, set[str]] = {}
        self.waiting: dict[SeekKey, deque[tuple[str, str]]] = {}
        #: MatchEnded messages for bots that were not connected when their match ended.
        self.undelivered: dict[str, deque[pb.PlayResponse]] = {}
        self.last_first_seat: dict[frozenset[str], str] = {}
        self.matches_started = 0
        self.on_match_end = on_match_end
        self.stopping = False
        self.all_done = asyncio.Event()
        self.all_done.set()

    # --- sessions -----------------------------------------------------------------------------
    def authenticate(self, token: str | None) -> str | None:
        return self.config.bots.authenticate(token)

    def attach(self, bot_name: str) -> BotSession:
        """A new session for ``bot_name``; an older one is closed (REPLACED)."""
        old = self.sessions.get(bot_name)
        if old is not None:
            old.close(errors.REPLACED, "another connection with this bot's token replaced this one")
            self._drop_seeks(bot_name)
            log.info("session_replaced", bot=bot_name, session=old.id)
        session = BotSession(bot_name)
        self.sessions[bot_name] = session
        running = sorted(self.by_bot.get(bot_name, ()))
        results = list(self.undelivered.pop(bot_name, ()))
        welcome = pb.Welcome(
            bot_name=bot_name,
            resumed_match_ids=running,
            server_version=__version__,
            default_time_control=convert.time_control_to_pb(self.config.default_control),
            ended_match_ids=[message.match_ended.match_id for message in results],
        )
        session.send(pb.PlayResponse(welcome=welcome))
        for message in results:
            session.send(message)
        for match_id in running:
            match = self.matches[match_id]
            for seat in match.seat_of(bot_name):
                match.resume(seat)
        log.info("session_opened", bot=bot_name, session=session.id, resumed=len(running))
        return session

    def detach(self, session: BotSession) -> None:
        session.closed = True
        if self.sessions.get(session.bot_name) is session:
            del self.sessions[session.bot_name]
            self._drop_seeks(session.bot_name)
            log.info("session_closed", bot=session.bot_name, session=session.id)

    def send(
        self, bot_name: str, message: pb.PlayResponse, on_sent: Callable[[], None] | None = None
    ) -> None:
        session = self.sessions.get(bot_name)
        if session is not None:
            session.send(message, on_sent)
        elif message.HasField("match_ended"):
            self.undelivered.setdefault(bot_name, deque(maxlen=100)).append(message)

    # --- seeks --------------------------------------------------------------------------------
    def seek(
        self,
        session: BotSession,
        game: str,
        options: dict[str, Any],
        control: TimeControl | None,
        seek_id: str = "",
    ) -> None:
        """Queue a seek; pair it at once when another bot waits with the same key."""
        if self.stopping:
            raise errors.Rejection(errors.SHUTTING_DOWN, "the arbiter is shutting down")
        try:
            get_rules(game).new_game(options)  # validates the options
        except OptionsError as exc:
            raise errors.Rejection(errors.BAD_REQUEST, str(exc)) from exc
        if control is not None and not control.timed:
            raise errors.Rejection(
                errors.BAD_REQUEST,
                "a time control needs a base time or a per-decision cap (untimed matches could stall)",
            )
        open_seeks = sum(
            1 for queue in self.waiting.values() for entry in queue if entry[0] == session.bot_name
        )
        if open_seeks >= SEEK_LIMIT:
            raise errors.Rejection(errors.RESOURCE_EXHAUSTED, f"at most {SEEK_LIMIT} open seeks per bot")
        key = SeekKey(game, tuple(sorted(options.items())), control or self.config.default_control)
        queue = self.waiting.setdefault(key, deque())
        me = (session.bot_name, seek_id)
        opponent = next((entry for entry in queue if entry[0] != me[0]), None)
        limit = self.config.max_matches
        if opponent is None or (limit is not None and self.matches_started >= limit):
            queue.append(me)
            return
        queue.remove(opponent)
        if not queue:
            del self.waiting[key]
        self._pair(key, opponent, me)

    def _pair(self, key: SeekKey, waiting: tuple[str, str], arriving: tuple[str, str]) -> None:
        pair = frozenset((waiting[0], arriving[0]))
        previous = self.last_first_seat.get(pair)
        # Seats alternate between the same two bots; their first match gives the waiting bot seat 1.
        first = waiting if previous is None else (arriving if previous == waiting[0] else waiting)
        second = arriving if first is waiting else waiting
        self.last_first_seat[pair] = first[0]
        setup = MatchSetup(
            key.game,
            dict(key.options),
            {1: first[0], 2: second[0]},
            key.control,
            self.config.policy,
            seek_ids={1: first[1], 2: second[1]},
        )
        self.start_match(setup)

    def _drop_seeks(self, bot_name: str) -> None:
        for key, queue in list(self.waiting.items()):
            for entry in [e for e in queue if e[0] == bot_name]:
                queue.remove(entry)
            if not queue:
                del self.waiting[key]

    # --- matches ------------------------------------------------------------------------------
    def start_match(self, setup: MatchSetup, initial_state: Any | None = None) -> Match:
        match_id = uuid.uuid4().hex[:16]
        match = Match(match_id, setup, self, initial_state=initial_state)
        self.matches[match_id] = match
        self.matches_started += 1
        self.all_done.clear()
        for name in set(setup.bots.values()):
            self.by_bot.setdefault(name, set()).add(match_id)
        log.info(
            "match_started",
            match_id=match_id,
            game=setup.game,
            options=setup.options,
            seat_1=setup.bots[1],
            seat_2=setup.bots[2],
            time_control=setup.control.describe(),
        )
        match.start()
        return match

    def match_finished(self, match: Match) -> None:
        self.matches.pop(match.id, None)
        self.recent.append(match)
        for name in set(match.bots.values()):
            ids = self.by_bot.get(name)
            if ids is not None:
                ids.discard(match.id)
        end = match.end
        assert end is not None
        log.info(
            "match_ended",
            match_id=match.id,
            reason=end.reason,
            winner_seat=end.winner_seat,
            scores=end.scores,
            seat_1=match.bots[1],
            seat_2=match.bots[2],
        )
        if self.config.records_dir is not None:
            try:
                self.write_record(match)
            except OSError as exc:
                log.error("record_not_written", match_id=match.id, error=str(exc))
        if self.on_match_end is not None:
            self.on_match_end(match)
        if not self.matches:
            self.all_done.set()

    def match_progress(self, match: Match) -> None:
        if self.on_progress is not None:
            self.on_progress(match)

    def write_record(self, match: Match) -> Path:
        directory = self.config.records_dir
        assert directory is not None
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / f"{match.game}-{match.id}.json"
        tmp = path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(match.record(), indent=1) + "\n", encoding="utf-8")
        tmp.replace(path)
        return path

    def find_match(self, bot_name: str, match_id: str) -> Match | None:
        match = self.matches.get(match_id)
        if match is None:
            match = next((m for m in reversed(self.recent) if m.id == match_id), None)
        if match is None or bot_name not in match.bots.values():
            return None
        return match

    def move(self, session: BotSession, match_id: str, turn_id: int, action: Any | ActionError) -> None:
        """Route an answer to its match; unknown matches are rejected."""
        match = self.find_match(session.bot_name, match_id)
        if match is None:
            rejected = pb.MoveRejected(
                match_id=match_id,
                turn_id=turn_id,
                status=errors.status_for(
                    errors.UNKNOWN_MATCH, f"no match {match_id!r} for bot {session.bot_name}"
                ),
            )
            session.send(pb.PlayResponse(move_rejected=rejected))
            return
        seats = match.seat_of(session.bot_name)
        seat = seats[0]
        if len(seats) == 2:
            # A bot playing itself: a retry belongs to the seat that played it, else the seat to move.
            retry = next((s for s in seats if match.last_accepted.get(s) == (turn_id, action)), None)
            if retry is not None:
                seat = retry
            elif match.pending is not None:
                seat = match.pending.seat
        match.submit(seat, turn_id, action)

    async def shutdown(self, grace: float) -> None:
        """Stop pairing, give running matches ``grace`` seconds, abort the rest, close sessions."""
        self.stopping = True
        self.waiting.clear()
        try:
            await asyncio.wait_for(self.all_done.wait(), timeout=grace)
        except TimeoutError:
            pass
        for match in list(self.matches.values()):
            match.abort("the arbiter stopped")
        for session in list(self.sessions.values()):
            session.close(errors.SHUTTING_DOWN, "the arbiter is shutting down")
