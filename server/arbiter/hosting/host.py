"""Runs this node's matches: the only place that starts one, routes answers to it and ends it."""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from collections import deque
from collections.abc import Callable, Sequence

import structlog
from arbiter_games import ActionError

from ..match.events import MatchEnded, MatchEvent
from ..match.match import LagSource, Match, MatchSetup, PlayedAction, Scheduler, Timer, no_lag
from .bus import EventBus

log = structlog.get_logger("arbiter")

#: Finished matches kept in memory so that late answers and retries still find them.
RECENT_LIMIT = 1000
#: The most matches one bot holds at once on a node, over its ladders, seeks and challenges
#: (``arbiter serve --max-matches-per-bot``).
MAX_MATCHES_PER_BOT = 32
#: After a restart, how long a rebuilt match waits for both of its bots before it is aborted.
RESUME_GRACE = 60.0


def new_match_id() -> str:
    return uuid.uuid4().hex[:16]


class UnknownMatch(LookupError):
    """No match of that id has this bot in it."""


class LoopScheduler:
    """Timers on the running asyncio loop."""

    def call_later(self, delay: float, callback: Callable[[], None]) -> Timer:
        return asyncio.get_running_loop().call_later(delay, callback)


class MatchHosting:
    def __init__(
        self,
        bus: EventBus,
        scheduler: Scheduler | None = None,
        now: Callable[[], float] = time.monotonic,
    ) -> None:
        self.bus = bus
        self.scheduler = scheduler or LoopScheduler()
        self.now = now
        #: The loop's lag so far (``looplag.LoopLagMonitor.lag``, set by the server that runs the
        #: loop); a match does not charge a seat the lag during its turn.
        self.lag: LagSource = no_lag
        #: How long a match's timer waits, once, before it declares a turn expired (set with ``lag``).
        self.verdict_grace = 0.0
        self.matches: dict[str, Match] = {}
        self.recent: deque[Match] = deque(maxlen=RECENT_LIMIT)
        #: The same matches by id: a move naming an unknown match (a flood of them is cheap to
        #: send) costs one lookup, not a walk through the recent matches.
        self.recent_ids: dict[str, Match] = {}
        self.by_bot: dict[str, set[str]] = {}
        #: The legs of duplicate pairs by their shared seed, and the ends held back until every
        #: leg of a seed has ended (``_emit``).
        self.legs: dict[bytes, set[str]] = {}
        self.held: dict[bytes, list[MatchEnded]] = {}
        #: Whether a bot's slot stays taken by an ended match until its bots have been told the
        #: result (``told``; the node's seat router calls it). Off: the slot frees at the end.
        self.hold_slots_until_told = False
        #: Whether a bot has a live session (the node's session registry sets it).
        self.connected: Callable[[str], bool] = lambda _: False
        #: The most matches one bot holds at once (``taken_slots``); the ladders and the lobby
        #: start none beyond it.
        self.max_per_bot = MAX_MATCHES_PER_BOT
        #: Ended matches whose MatchEnded has not reached their bots yet: bot -> match id -> ladder.
        self.untold: dict[str, dict[str, str | None]] = {}
        #: Called with each MatchEnded once its bots have been told (their slots are free then).
        self.on_told: list[Callable[[MatchEnded], None]] = []
        self.started = 0
        self.all_done = asyncio.Event()
        self.all_done.set()

    def start(
        self,
        setup: MatchSetup,
        initial_state: object | None = None,
        match_id: str | None = None,
        wait: float | None = None,
    ) -> Match:
        """Start a match (``match_id``: one chosen already, else a fresh one). With ``wait``: it
        is announced but issues no turn (no clock runs) until both bots are connected (``wake``),
        and is aborted, never rated, if they are not both there within ``wait`` seconds."""
        match_id = match_id or new_match_id()
        match = Match(
            match_id,
            setup,
            self._emit,
            self.scheduler,
            self.now,
            initial_state=initial_state,
            lag=self._lag,
            verdict_grace=self.verdict_grace,
        )
        self._host(match)
        log.info(
            "match_started",
            match_id=match_id,
            game=match.game.name,
            options=dict(match.options),
            seat_1=setup.bots[1],
            seat_2=setup.bots[2],
            time_control=setup.control.describe(),
        )
        if wait is not None:
            match.suspended = True
            detail = f"the paired bots were not both connected within {wait:g} s"
            self.scheduler.call_later(wait, lambda: self._give_up(match, detail))
        match.start()
        return match

    def _host(self, match: Match) -> None:
        self.matches[match.id] = match
        self.started += 1
        self.all_done.clear()
        for name in set(match.bots.values()):
            self.by_bot.setdefault(name, set()).add(match.id)
        if match.setup.paired:
            self.legs.setdefault(match.seed, set()).add(match.id)

    def _lag(self, fresh: bool = False, within: float | None = None) -> float:
        return self.lag(fresh, within)

    def _emit(self, event: MatchEvent) -> None:
        if type(event) is MatchEnded:  # (no subclasses: the exact type is the cheaper test)
            for ended in self._releasable(event):
                self._ended(ended)
                self.bus.publish(ended)
            return
        self.bus.publish(event)

    def _releasable(self, event: MatchEnded) -> list[MatchEnded]:
        """The ends to announce now. A leg of a duplicate pair ends in silence while another leg
        of its seed plays on: its MatchEnded (the seed, the final observations, the record) would
        tell the other leg's hidden stones. It stays a running match of its bots (their slot is
        not free) until the last leg ends; then every leg's end is announced, in order."""
        match = self.matches.get(event.facts.match_id)
        if match is None or not match.setup.paired:
            return [event]
        legs = self.legs.get(match.seed, set())
        held = self.held.setdefault(match.seed, [])
        held.append(event)
        if any(self.matches[leg].end is None for leg in legs if leg in self.matches):
            log.info("match_end_held", match_id=match.id, legs=len(legs))
            return []
        self.legs.pop(match.seed, None)
        return self.held.pop(match.seed)

    def _ended(self, event: MatchEnded) -> None:
        match = self.matches.pop(event.facts.match_id, None)
        if match is not None:
            if len(self.recent) == self.recent.maxlen:
                self.recent_ids.pop(self.recent.popleft().id, None)
            self.recent.append(match)
            self.recent_ids[match.id] = match
        for name in set(event.facts.bots.values()):
            ids = self.by_bot.get(name)
            if ids is not None:
                ids.discard(event.facts.match_id)
            if self.hold_slots_until_told:
                ladder = event.facts.ladder
                if ladder is None and match is not None:
                    ladder = match.setup.slot_ladder
                self.untold.setdefault(name, {})[event.facts.match_id] = ladder
        end = event.end
        log.info(
            "match_ended",
            match_id=event.facts.match_id,
            reason=end.reason,
            winner_seat=end.winner_seat,
            scores=dict(end.scores),
            seat_1=event.facts.bots[1],
            seat_2=event.facts.bots[2],
        )
        if not self.matches:
            self.all_done.set()

    def restore(
        self,
        match_id: str,
        setup: MatchSetup,
        played: Sequence[PlayedAction],
        started_wall: float | None,
        grace: float = RESUME_GRACE,
    ) -> Match | None:
        """Host a match rebuilt from its move log; it plays on once both bots are connected (see
        ``wake``), or after ``grace`` seconds if one of them is (the other's clock runs from
        then), or else is aborted (never rated). None if the log does not replay (the match is
        then aborted at once)."""
        try:
            match = Match.restore(
                match_id, setup, played, self._emit, self.scheduler, self.now, started_wall, lag=self._lag
            )
            match.verdict_grace = self.verdict_grace
        except (ActionError, ValueError) as exc:
            log.error("match_not_restored", match_id=match_id, error=str(exc)[:200])
            return None
        self._host(match)
        self.scheduler.call_later(grace, lambda: self._after_grace(match, grace))
        log.info(
            "match_restored",
            match_id=match_id,
            actions=len(played),
            seat_1=setup.bots[1],
            seat_2=setup.bots[2],
        )
        return match

    def _after_grace(self, match: Match, grace: float) -> None:
        """The resume grace of a restored match is over: with one bot back, the match plays on
        and the absent one's clock runs, as for any absence (it loses on time if it stays away);
        with neither back, it is aborted, unrated."""
        if not match.suspended or match.end is not None:
            return
        back = [name for name in match.bots.values() if self.connected(name)]
        if back:
            log.info("match_resumed_without_a_bot", match_id=match.id, back=sorted(set(back)))
            match.wake()
        else:
            match.abort(f"the arbiter restarted and neither bot was back within {grace:g} s")

    def _give_up(self, match: Match, detail: str) -> None:
        if match.suspended and match.end is None:
            match.abort(detail)

    def wake(self, connected: Callable[[str], bool]) -> None:
        """Play on every restored match whose two bots are connected now."""
        for match in list(self.matches.values()):
            if match.suspended and all(connected(name) for name in match.bots.values()):
                log.info("match_resumed_after_restart", match_id=match.id)
                match.wake()

    def told(self, event: MatchEnded) -> None:
        """The bots of ``event`` have been handed its MatchEnded (their live session's outbox, or
        their mailbox): the match no longer takes their slots."""
        match_id = event.facts.match_id
        for name in set(event.facts.bots.values()):
            untold = self.untold.get(name)
            if untold is not None:
                untold.pop(match_id, None)
                if not untold:
                    del self.untold[name]
        for listener in self.on_told:
            listener(event)

    def slot_ladder_of(self, match_id: str) -> str | None:
        """The ladder whose slot a match takes without being one of its matches (``MatchSetup``)."""
        match = self.matches.get(match_id) or self.recent_ids.get(match_id)
        return None if match is None else match.setup.slot_ladder

    def free_for(self, bot_name: str) -> int:
        """How many more matches the bot may hold under the cap per bot."""
        return max(0, self.max_per_bot - self.taken_slots(bot_name))

    def count_running(self, bot_name: str, ladder: str) -> int:
        """The slots the bot's matches take on ``ladder``: those running, and those ended whose
        result the bot has not been told yet (a bot never hears of more matches at once)."""
        running = sum(
            1
            for match_id in self.by_bot.get(bot_name, ())
            if (match := self.matches.get(match_id)) is not None
            and ladder in (match.facts.ladder, match.setup.slot_ladder)
        )
        untold = self.untold.get(bot_name)
        if untold:
            running += sum(1 for name in untold.values() if name == ladder)
        return running

    def taken_slots(self, bot_name: str) -> int:
        """Every match the bot holds a slot in, on any ladder or none: running, or ended with its
        result not yet told to the bot (``--max-matches-per-bot`` caps this)."""
        return len(self.by_bot.get(bot_name, ())) + len(self.untold.get(bot_name, ()))

    def running_ids(self, bot_name: str) -> list[str]:
        return sorted(self.by_bot.get(bot_name, ()))

    def find(self, bot_name: str, match_id: str) -> Match | None:
        match = self.matches.get(match_id)
        if match is None:
            match = self.recent_ids.get(match_id)
        if match is None or bot_name not in match.bots.values():
            return None
        return match

    def resume(self, bot_name: str) -> None:
        """Tell a bot that came back about each of its running matches (and re-send its turns)."""
        for match_id in self.running_ids(bot_name):
            match = self.matches[match_id]
            for seat in match.seat_of(bot_name):
                match.resume(seat)

    def submit(self, bot_name: str, match_id: str, turn_id: int, action: object | ActionError) -> None:
        """Route an answer to its match; raises UnknownMatch when the bot has no such match."""
        match = self.find(bot_name, match_id)
        if match is None:
            raise UnknownMatch(f"no match {match_id!r} for bot {bot_name}")
        self.answer(match, bot_name, turn_id, action)

    def answer(self, match: Match, bot_name: str, turn_id: int, action: object | ActionError) -> None:
        """An answer of ``bot_name`` to ``match`` (found by ``find``), given to the right seat."""
        bots = match.bots
        first, second = bots[1] == bot_name, bots[2] == bot_name
        if first is not second:  # the bot has one seat (the usual case: no list of seats)
            match.submit(1 if first else 2, turn_id, action)
            return
        seats = match.seat_of(bot_name)
        seat = seats[0]
        if len(seats) == 2:
            # A bot playing itself: a retry belongs to the seat that played it, else the seat to move.
            retry = next((s for s in seats if match.last_accepted.get(s) == (turn_id, action)), None)
            if retry is not None:
                seat = retry
            elif match.pending is not None:
                seat = match.pending.seat
        match.submit(seat, turn_id, action)

    async def drain(self, grace: float, detail: str) -> None:
        """Give running matches ``grace`` seconds, then abort the rest."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.all_done.wait(), timeout=grace)
        for match in list(self.matches.values()):
            match.abort(detail)
