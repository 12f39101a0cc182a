"""One match between two seats: turns, clocks, policies, the record. Event driven, no task.

The match knows nothing of protobuf, gRPC or connections: it emits domain events
(``match.events``) and is told about answers with ``submit``. Everything it reveals about the
position comes from ``game.observe(state, seat)``. Timers come from a ``Scheduler`` (asyncio's
loop in the arbiter, a fake one in tests); time from an injectable monotonic ``now``.
"""

from __future__ import annotations

import hashlib
import random
import secrets
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from arbiter_games import ActionError, GameDef, IllegalAction, MalformedAction, get_game
from arbiter_games.policy import ILLEGAL_REJECT, TIMEOUT_DEFAULT_ACTION, MatchPolicy
from arbiter_games.timecontrol import Clocks, TimeControl

from ..events.model import GameRef
from .events import (
    ActionApplied,
    AutoAction,
    Emit,
    MatchEnd,
    MatchEnded,
    MatchFacts,
    MatchStarted,
    MoveAcknowledged,
    MoveRefused,
    Refusal,
    SeatResumed,
    TurnIssued,
)

RECORD_FORMAT = "arbiter-match-record/1"
#: After a restart, turn ids go on from the last logged one plus this: the move log may miss the
#: last few actions (it is written in batches), so a bot may have seen turn ids the log never
#: knew; the jump keeps every new turn id above them (no match has this many decisions).
TURN_IDS_AFTER_RESTORE = 10_000


#: Seconds before an answer is taken (or a turn judged) in which the host's lag can have held
#: that answer up: lag measured earlier in the turn delayed nothing the seat sent (an answer that
#: waited in a stall is taken as soon as the stall ends), so it is not credited.
LAG_WINDOW = 0.050


class LagSource(Protocol):
    """Seconds the host has been late so far, a reading that never goes down (hosting's loop-lag
    monitor). ``fresh``: measure what can be measured now, not only at the monitor's last tick
    (dearer: asked for before a verdict of timeout). ``within``: only the lag measured in the
    last ``within`` seconds, a stall still going on included."""

    def __call__(self, fresh: bool = False, within: float | None = None) -> float: ...


def no_lag(fresh: bool = False, within: float | None = None) -> float:
    """The lag reading of a match whose host measures no lag: never any."""
    return 0.0


class Timer(Protocol):
    def cancel(self) -> None: ...


class Scheduler(Protocol):
    """Runs a callback after a delay (asyncio's ``loop.call_later`` has this shape)."""

    def call_later(self, delay: float, callback: Callable[[], None]) -> Timer: ...


@dataclass
class PendingTurn:
    turn_id: int
    seat: int
    issued: float
    limit: float | None
    legal: list[object]
    #: The host's lag reading when the clock started (see ``Match.lag``).
    lag_at_start: float = 0.0
    #: The timer found the turn over its limit once and looks again after ``verdict_grace``.
    graced: bool = False


@dataclass(frozen=True)
class PlayedAction:
    """One action of a match's move log (what the store keeps, ``records.md``'s ``actions``)."""

    seat: int
    action: str
    turn_id: int | None = None
    charged: float | None = None
    clocks: Mapping[str, float | None] = field(default_factory=dict)
    auto: str | None = None

    def as_record(self) -> dict[str, Any]:
        return {
            "turn": self.turn_id,
            "seat": self.seat,
            "action": self.action,
            "charged": self.charged,
            "clocks": dict(self.clocks),
            "auto": self.auto,
        }


@dataclass
class MatchSetup:
    game: str
    options: Mapping[str, object]
    bots: Mapping[int, str]
    control: TimeControl = field(default_factory=TimeControl)
    policy: MatchPolicy = field(default_factory=MatchPolicy)
    seed: bytes | None = None
    #: The Seek.seek_id each seat's match answers (echoed to the seat when the match starts).
    seek_ids: Mapping[int, str] = field(default_factory=dict)
    #: The ladder the match is played on (None: a match from seeks).
    ladder: str | None = None
    #: The version each seat's bot plays as.
    versions: Mapping[int, str] = field(default_factory=dict)
    #: Whether the result changes ratings (a rated ladder's match between two versions).
    rated: bool = False
    #: A leg of a duplicate pair: another match shares its seed. Its commitment hashes the match
    #: id after the seed, and hosting holds its end back until every leg of the seed has ended.
    paired: bool = False
    #: The event game this match plays (None: not an event's).
    event: GameRef | None = None
    #: The ladder whose slot a bot of this match takes without the match being one of the
    #: ladder's (a person's match against a joined bot, ``sessions.human``): the bot never plays
    #: more matches at once than it joined the ladder for. Never rated, never counted there.
    slot_ladder: str | None = None


class Match:
    """The arbiter's authority over one game between two bots."""

    def __init__(
        self,
        match_id: str,
        setup: MatchSetup,
        emit: Emit,
        scheduler: Scheduler,
        now: Callable[[], float] = time.monotonic,
        initial_state: object | None = None,
        lag: LagSource = no_lag,
        verdict_grace: float = 0.0,
    ) -> None:
        self.id = match_id
        self.setup = setup
        self.game: GameDef = get_game(setup.game)
        self.options = self.game.normalise_options(setup.options)
        self.seed = setup.seed if setup.seed is not None else secrets.token_bytes(32)
        self.state = (
            initial_state if initial_state is not None else self.game.new_game(self.options, self.seed)
        )
        self.bots = dict(setup.bots)
        self.emit = emit
        self.scheduler = scheduler
        self.now = now
        #: The host's lag so far (``LagSource``; ``no_lag`` without a monitor). The lag during a
        #: turn is not charged to its seat.
        self.lag = lag
        #: Seconds the timer waits, once, before it declares a turn expired: a wait of the host's
        #: threads is measured only once it is over (see ``hosting.looplag``).
        self.verdict_grace = verdict_grace
        self.clocks = Clocks(setup.control)
        self.policy = setup.policy
        self.rng = random.Random(hashlib.sha256(self.seed + b"default-actions").digest())
        self.turn_counter = 0
        self.pending: PendingTurn | None = None
        #: The match's one decision timer (None: not armed) and when it runs, on ``now``'s clock.
        #: It is not set anew for every turn: a turn that ends before the timer's time leaves it
        #: armed, and when it runs it judges whichever turn is pending then (``_on_timer``).
        self.timer: Timer | None = None
        self.timer_due = 0.0
        self.last_accepted: dict[int, tuple[int, object]] = {}
        self.actions: list[dict[str, Any]] = []
        self.end: MatchEnd | None = None
        #: A match rebuilt after a restart waits, without a turn, until both bots are back.
        self.suspended = False
        self.started_wall = time.time()
        self.ended_wall: float | None = None
        self.facts = MatchFacts(
            match_id=match_id,
            game=self.game,
            options=self.options,
            bots=self.bots,
            control=setup.control,
            policy=setup.policy,
            seed_commitment=self.game.seed_commitment(self.seed, match_id if setup.paired else ""),
            seek_ids=dict(setup.seek_ids),
            ladder=setup.ladder,
            versions=dict(setup.versions),
            rated=setup.rated,
            event=setup.event,
        )

    # --- public ------------------------------------------------------------------------------
    @property
    def commitment(self) -> str:
        return self.facts.seed_commitment

    def seat_of(self, bot_name: str) -> list[int]:
        return [seat for seat, name in self.bots.items() if name == bot_name]

    def start(self) -> None:
        observations = {seat: self.game.observe(self.state, seat) for seat in (1, 2)}
        self.emit(MatchStarted(self.facts, observations, self.clock_reading(), self.seed, self.started_wall))
        if not self.suspended:  # a match set to wait for its bots issues no turn until ``wake``
            self._advance()

    @classmethod
    def restore(
        cls,
        match_id: str,
        setup: MatchSetup,
        played: Sequence[PlayedAction],
        emit: Emit,
        scheduler: Scheduler,
        now: Callable[[], float] = time.monotonic,
        started_wall: float | None = None,
        lag: LagSource = no_lag,
    ) -> Match:
        """The match as its move log left it (after a crash), suspended: no turn is issued until
        ``wake``. The clocks are those after the last logged action; the outage is charged to no one.
        Raises ActionError when the log does not replay (then the match cannot be resumed)."""
        if setup.seed is None:
            raise ValueError("a restored match needs its seed")
        match = cls(match_id, setup, emit, scheduler, now, lag=lag)
        for entry in played:
            action = match.game.parse_action(entry.action)
            match.state = match.game.apply(match.state, action)
            match.actions.append(entry.as_record())
            if entry.turn_id is not None:
                match.turn_counter = max(match.turn_counter, entry.turn_id)
        match.turn_counter += TURN_IDS_AFTER_RESTORE
        if played:
            for seat_text, left in played[-1].clocks.items():
                match.clocks.remaining[int(seat_text)] = left
        if started_wall is not None:
            match.started_wall = started_wall
        match.suspended = True
        return match

    def wake(self) -> None:
        """Both bots of a restored match are back: play on from the logged position."""
        if self.suspended and self.end is None:
            self.suspended = False
            self._advance()

    def resume(self, seat: int) -> None:
        """Tell a reconnecting seat the match again, and its pending turn, if any."""
        if self.end is not None:
            return
        self.emit(SeatResumed(self.facts, seat, self.game.observe(self.state, seat), self.clock_reading()))
        pending = self.pending
        if pending is not None and pending.seat == seat:
            self._issue(pending, resent=True)

    def submit(self, seat: int, turn_id: int, action: object | ActionError) -> None:
        """A seat's answer. ``action`` is a domain action, or the MalformedAction met while reading it."""
        accepted = self.last_accepted.get(seat)
        if accepted is not None and accepted == (turn_id, action):
            self.emit(MoveAcknowledged(self.facts, seat, turn_id))
            return
        pending = self.pending
        if self.end is not None:
            self._reject(seat, turn_id, Refusal.STALE_TURN, f"match {self.id} is over")
            return
        if pending is None or turn_id != pending.turn_id:
            self._reject(seat, turn_id, Refusal.STALE_TURN, f"turn {turn_id} is not a pending turn")
            return
        if pending.seat != seat:
            self._reject(seat, turn_id, Refusal.NOT_YOUR_TURN, f"turn {turn_id} belongs to the other seat")
            return
        elapsed = self._judged(pending)
        if pending.limit is not None and elapsed > pending.limit:
            self._time_out(pending, elapsed)
            return
        if isinstance(action, ActionError):
            self._refuse(pending, action, Refusal.MALFORMED_ACTION)
            return
        try:
            new_state = self.game.apply(self.state, action)
        except MalformedAction as exc:
            self._refuse(pending, exc, Refusal.MALFORMED_ACTION)
            return
        except IllegalAction as exc:
            self._refuse(pending, exc, Refusal.ILLEGAL_ACTION)
            return
        self._accept(pending, action, new_state, elapsed, auto=None)

    def abort(self, detail: str) -> None:
        """End the match with no winner (the arbiter is stopping)."""
        if self.end is None:
            self._finish(MatchEnd("aborted", None, self._scores(), detail))

    def clock_reading(self) -> dict[int, float | None]:
        """Both clocks now; the clock of a seat with a pending turn shows the time already spent."""
        pending = self.pending
        out = dict(self.clocks.remaining)
        if pending is not None and pending.issued:
            left = out[pending.seat]
            if left is not None:
                out[pending.seat] = max(0.0, left - self.charged(pending))
        return out

    def charged(self, pending: PendingTurn, fresh: bool = False) -> float:
        """The time a turn has taken so far, as its seat is charged: from its clock's start until
        now, less the host's lag that can have held up an answer taken now (never less than
        zero)."""
        return max(0.0, self.now() - pending.issued - self.credit(pending, fresh))

    def credit(self, pending: PendingTurn, fresh: bool = False) -> float:
        """The host's lag not charged to the turn: what it measured since the turn's clock
        started, and within the last ``LAG_WINDOW`` seconds."""
        since_start = self.lag(fresh) - pending.lag_at_start
        if since_start <= 0:
            return 0.0
        return min(since_start, self.lag(within=LAG_WINDOW))

    def _judged(self, pending: PendingTurn) -> float:
        """``charged``, read again with a fresh lag reading if it is over the turn's limit."""
        elapsed = self.charged(pending)
        if pending.limit is not None and elapsed > pending.limit:
            elapsed = self.charged(pending, fresh=True)
        return elapsed

    # --- turns -------------------------------------------------------------------------------
    def _advance(self) -> None:
        game = self.game
        while True:
            outcome = game.outcome(self.state)
            if outcome is not None:
                self._finish(MatchEnd(outcome.reason, outcome.winner_seat, dict(outcome.scores)))
                return
            seat = game.to_move(self.state)
            assert seat is not None, "a game that is not over has a seat to move"
            legal = list(game.legal_actions(self.state))
            forced = game.forced_action(self.state, legal)
            if forced is not None:
                # E.g. a Surge player who cannot place skips: the arbiter plays it without asking.
                self.state = game.apply(self.state, forced)
                self._record(seat, None, forced, None, auto=AutoAction.FORCED)
                continue
            self.turn_counter += 1
            limit = self.clocks.decision_limit(seat)
            pending = PendingTurn(self.turn_counter, seat, 0.0, limit, legal)
            self.pending = pending
            self._issue(pending, resent=False)
            return

    def _issue(self, pending: PendingTurn, resent: bool) -> None:
        """Emit the turn. A new turn's clock starts once the event is built (only delivery remains),
        or when the seat's connection takes it, if that comes later."""
        limit = pending.limit
        if limit is not None and resent:
            limit = max(0.0, limit - self.charged(pending))
        event = TurnIssued(
            facts=self.facts,
            turn_id=pending.turn_id,
            seat=pending.seat,
            observation=self.game.observe(self.state, pending.seat),
            legal=pending.legal,
            clocks=self.clock_reading(),
            decision_limit=limit,
            resent=resent,
            delivered=None if resent else (lambda: self._turn_delivered(pending)),
        )
        if not resent:
            pending.issued = now = self.now()
            pending.lag_at_start = self.lag()
            if pending.limit is not None:
                # The turn cannot expire before ``now + limit`` (its clock may start later, on
                # delivery): a timer armed to run by then is kept, else it is set for this turn.
                due = now + pending.limit
                timer = self.timer
                if timer is None or self.timer_due > due:
                    if timer is not None:
                        timer.cancel()
                    self._arm(pending.limit, due)
        self.emit(event)

    def _arm(self, delay: float, due: float) -> None:
        self.timer = self.scheduler.call_later(delay, self._on_timer)
        self.timer_due = due

    def _accept(
        self, pending: PendingTurn, action: object, new_state: object, elapsed: float, auto: AutoAction | None
    ) -> None:
        self.pending = None  # the match's timer stays armed: it judges the next turn (``_issue``)
        self.clocks.charge(pending.seat, elapsed)
        self.state = new_state
        if auto is None:
            self.last_accepted[pending.seat] = (pending.turn_id, action)
        self._record(pending.seat, pending.turn_id, action, elapsed, auto=auto)
        self._advance()

    def _refuse(self, pending: PendingTurn, exc: Exception, reason: Refusal) -> None:
        seat = pending.seat
        if self.policy.on_illegal == ILLEGAL_REJECT:
            self._reject(seat, pending.turn_id, reason, str(exc), may_retry=True)
            return
        self._reject(seat, pending.turn_id, reason, str(exc), may_retry=False)
        kind = "a malformed" if reason is Refusal.MALFORMED_ACTION else "an illegal"
        self._finish(
            MatchEnd(
                "malformed_action" if reason is Refusal.MALFORMED_ACTION else "illegal_action",
                3 - seat,
                self._scores(),
                f"seat {seat} sent {kind} action: {exc}",
                faulty_seat=seat,
            )
        )

    def _turn_delivered(self, pending: PendingTurn) -> None:
        """The Turn left the arbiter: the seat's clock runs from now (not from the queueing)."""
        if self.pending is pending:
            now = self.now()
            if now > pending.issued:
                pending.issued = now
                pending.lag_at_start = self.lag()

    def _on_timer(self) -> None:
        """The match's timer ran: judge the pending turn (maybe a later one than it was set for)."""
        self.timer = None
        pending = self.pending
        if pending is None or self.end is not None or pending.limit is None:
            return  # the next turn with a limit arms it again
        elapsed = self._judged(pending)
        # Not yet: a later turn than the timer was set for, the clock started when the Turn was
        # delivered, or the host was late (its lag is not charged). At exactly the limit the seat
        # is still in time (as an answer is judged in ``submit``): look again once time has moved on.
        if elapsed <= pending.limit:
            delay = pending.limit - elapsed
            self._arm(delay, self.now() + delay)
            return
        if self.verdict_grace > 0 and not pending.graced:
            pending.graced = True
            self._arm(self.verdict_grace, self.now() + self.verdict_grace)
            return
        self._time_out(pending, elapsed)

    def _time_out(self, pending: PendingTurn, elapsed: float) -> None:
        seat = pending.seat
        limit = pending.limit if pending.limit is not None else 0.0
        detail = f"seat {seat} took {elapsed:.3f} s, more than its {limit:.3f} s"
        credit = self.credit(pending)
        if credit > 0:
            detail += f" (not counting {credit:.3f} s the arbiter was late)"
        self._reject(seat, pending.turn_id, Refusal.CLOCK_EXPIRED, detail)
        if self.policy.on_timeout == TIMEOUT_DEFAULT_ACTION:
            legal = pending.legal
            action = next((a for a in legal if self.game.format_action(a) == "pass"), None)
            if action is None:
                action = self.rng.choice(legal)
            new_state = self.game.apply(self.state, action)
            self._accept(pending, action, new_state, elapsed, auto=AutoAction.DEFAULT)
            return
        self.clocks.charge_timeout(seat, elapsed)
        self._finish(MatchEnd("timeout", 3 - seat, self._scores(), detail, faulty_seat=seat))

    def _reject(
        self, seat: int, turn_id: int, reason: Refusal, message: str, may_retry: bool = False
    ) -> None:
        self.emit(MoveRefused(self.facts, seat, turn_id, reason, message, may_retry))

    # --- end ---------------------------------------------------------------------------------
    def _scores(self) -> dict[int, int]:
        return dict(self.game.scores_by_seat(self.state))

    def seat_colours(self) -> dict[int, str]:
        return {seat: self.game.observe(self.state, seat).colour for seat in (1, 2)}

    def _finish(self, end: MatchEnd) -> None:
        if self.end is not None:
            return
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        self.pending = None
        self.end = end
        self.ended_wall = time.time()
        observations = {seat: self.game.observe(self.state, seat) for seat in (1, 2)}
        colours = {seat: observation.colour for seat, observation in observations.items()}
        self.emit(
            MatchEnded(
                facts=self.facts,
                end=end,
                colours=colours,
                observations=observations,
                revealed_seed=self.game.revealed_seed(self.seed),
                actions=[entry["action"] for entry in self.actions],
                record=self.record(),
            )
        )

    # --- record ------------------------------------------------------------------------------
    def _record(
        self, seat: int, turn_id: int | None, action: object, charged: float | None, auto: AutoAction | None
    ) -> None:
        text = self.game.format_action(action)
        remaining = self.clocks.remaining
        clocks = dict(remaining)
        # Written out for the two seats (``Clocks`` keeps exactly seats 1 and 2): this runs for
        # every action (no comprehension, no ``str`` per seat).
        left_1, left_2 = remaining[1], remaining[2]
        self.actions.append(
            {
                "turn": turn_id,
                "seat": seat,
                "action": text,
                "charged": None if charged is None else round(charged, 6),
                "clocks": {
                    "1": None if left_1 is None else round(left_1, 6),
                    "2": None if left_2 is None else round(left_2, 6),
                },
                "auto": None if auto is None else auto.value,
            }
        )
        self.emit(ActionApplied(self.facts, seat, turn_id, action, text, charged, clocks, auto, self.state))

    def record(self) -> dict[str, Any]:
        """The JSON record of a finished match (see docs/records.md)."""
        end = self.end
        assert end is not None, "the match is not over"
        colours = self.seat_colours()
        return {
            "format": RECORD_FORMAT,
            "match_id": self.id,
            "game": self.game.name,
            "options": dict(self.options),
            "seats": {str(seat): name for seat, name in self.bots.items()},
            "versions": {str(seat): version for seat, version in self.facts.versions.items()},
            "ladder": self.facts.ladder,
            "seed": self.seed.hex(),
            "seed_commitment": self.commitment or None,
            "time_control": self.setup.control.as_dict(),
            "policy": self.policy.as_dict(),
            "started_at": self.started_wall,
            "ended_at": self.ended_wall,
            "actions": self.actions,
            "result": {
                "reason": end.reason,
                "winner_seat": end.winner_seat,
                "winner_colour": colours.get(end.winner_seat) if end.winner_seat else None,
                "scores": {str(seat): score for seat, score in end.scores.items()},
                "colours": {str(seat): colour for seat, colour in colours.items()},
                "faulty_seat": end.faulty_seat,
                "detail": end.detail,
            },
        }
