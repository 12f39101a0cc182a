"""One match between two seats: turns, clocks, policies, the record. Event driven, no task.

The match asks a ``MatchHost`` to deliver messages to bots by name (whether or not the bot is
connected right now) and tells it when the match is over. Everything sent to a seat about the
position is built from ``rules.observe(state, seat)``.
"""

from __future__ import annotations

import asyncio
import hashlib
import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Protocol

from ..engines import ActionError, IllegalAction, MalformedAction, get_rules
from ..engines.surge import SKIP
from ..protocol import convert
from ..service import errors
from ..v1 import bot_service_pb2 as pb
from ..v1 import common_pb2 as cpb
from .policy import ILLEGAL_REJECT, TIMEOUT_DEFAULT_ACTION, MatchPolicy
from .timecontrol import Clocks, TimeControl


class MatchHost(Protocol):
    def send(
        self, bot_name: str, message: pb.PlayResponse, on_sent: Callable[[], None] | None = None
    ) -> None:
        """Deliver to the bot's live connection, if any; ``on_sent`` runs when the transport takes it."""
        ...

    def match_finished(self, match: Match) -> None: ...

    def match_progress(self, match: Match) -> None:
        """An action was applied (spectators may look at ``match.state``)."""


@dataclass
class PendingTurn:
    turn_id: int
    seat: int
    issued: float
    limit: float | None
    legal: list[Any]
    timer: asyncio.TimerHandle | None = None


@dataclass
class MatchEnd:
    """How the match ended, at the match level (the game's own outcome, or a timeout/forfeit)."""

    reason: str
    winner_seat: int | None
    scores: dict[int, int]
    detail: str = ""
    faulty_seat: int | None = None


@dataclass
class MatchSetup:
    game: str
    options: dict[str, Any]
    bots: Mapping[int, str]
    control: TimeControl = field(default_factory=TimeControl)
    policy: MatchPolicy = field(default_factory=MatchPolicy)
    seed: bytes | None = None
    #: The Seek.seek_id each seat's match answers (echoed in MatchStarted).
    seek_ids: Mapping[int, str] = field(default_factory=dict)


class Match:
    """The arbiter's authority over one game between two bots."""

    def __init__(
        self,
        match_id: str,
        setup: MatchSetup,
        host: MatchHost,
        now: Callable[[], float] = time.monotonic,
        initial_state: Any | None = None,
    ) -> None:
        self.id = match_id
        self.setup = setup
        self.game = setup.game
        self.rules = get_rules(setup.game)
        self.seed = setup.seed if setup.seed is not None else _random_seed()
        self.state = (
            initial_state if initial_state is not None else self.rules.new_game(setup.options, self.seed)
        )
        self.options = dict(setup.options)
        self.bots = dict(setup.bots)
        self.host = host
        self.now = now
        self.clocks = Clocks(setup.control)
        self.policy = setup.policy
        self.rng = random.Random(hashlib.sha256(self.seed + b"default-actions").digest())
        self.turn_counter = 0
        self.pending: PendingTurn | None = None
        self.last_accepted: dict[int, tuple[int, Any]] = {}
        self.actions: list[dict[str, Any]] = []
        self.end: MatchEnd | None = None
        self.started_wall = time.time()
        self.ended_wall: float | None = None
        self.spec_pb = convert.spec_to_pb(self.game, self.options)
        self.control_pb = convert.time_control_to_pb(setup.control)

    # --- public ------------------------------------------------------------------------------
    @property
    def commitment(self) -> str:
        return hashlib.sha256(self.seed).hexdigest() if self.game == "surge" else ""

    def seat_of(self, bot_name: str) -> list[int]:
        return [seat for seat, name in self.bots.items() if name == bot_name]

    def start(self) -> None:
        for seat in (1, 2):
            self._send(seat, self._started_message(seat, resumed=False))
        self._advance()

    def resume(self, seat: int) -> None:
        """Re-send what a reconnecting seat needs: the match and its pending turn, if any."""
        if self.end is not None:
            return
        self._send(seat, self._started_message(seat, resumed=True))
        pending = self.pending
        if pending is not None and pending.seat == seat:
            self._send_turn(pending)

    def submit(self, seat: int, turn_id: int, action: Any | ActionError) -> None:
        """A seat's answer. ``action`` is a domain action, or the MalformedAction met while reading it."""
        accepted = self.last_accepted.get(seat)
        if accepted is not None and accepted == (turn_id, action):
            self._send(
                seat,
                pb.PlayResponse(move_acknowledged=pb.MoveAcknowledged(match_id=self.id, turn_id=turn_id)),
            )
            return
        pending = self.pending
        if self.end is not None:
            self._reject(seat, turn_id, errors.STALE_TURN, f"match {self.id} is over")
            return
        if pending is None or turn_id != pending.turn_id:
            self._reject(seat, turn_id, errors.STALE_TURN, f"turn {turn_id} is not a pending turn")
            return
        if pending.seat != seat:
            self._reject(seat, turn_id, errors.NOT_YOUR_TURN, f"turn {turn_id} belongs to the other seat")
            return
        elapsed = self.now() - pending.issued
        if pending.limit is not None and elapsed > pending.limit:
            self._time_out(pending, elapsed)
            return
        if isinstance(action, ActionError):
            self._refuse(pending, action, errors.MALFORMED_ACTION)
            return
        try:
            new_state = self.rules.apply(self.state, action)
        except MalformedAction as exc:
            self._refuse(pending, exc, errors.MALFORMED_ACTION)
            return
        except IllegalAction as exc:
            self._refuse(pending, exc, errors.ILLEGAL_ACTION)
            return
        self._accept(pending, action, new_state, elapsed, auto=None)

    def abort(self, detail: str) -> None:
        """End the match with no winner (the arbiter is stopping)."""
        if self.end is None:
            self._finish(MatchEnd("aborted", None, self._scores(), detail))

    # --- turns -------------------------------------------------------------------------------
    def _advance(self) -> None:
        rules = self.rules
        while True:
            outcome = rules.outcome(self.state)
            if outcome is not None:
                self._finish(MatchEnd(outcome.reason, outcome.winner_seat, dict(outcome.scores)))
                return
            seat = rules.to_move(self.state)
            legal = rules.legal_actions(self.state)
            if len(legal) == 1 and legal[0] is SKIP:
                # A Surge player who cannot place skips; the arbiter plays it without asking.
                self.state = rules.apply(self.state, legal[0])
                self._record(seat, None, legal[0], None, auto="skip")
                continue
            self.turn_counter += 1
            limit = self.clocks.decision_limit(seat)
            pending = PendingTurn(self.turn_counter, seat, 0.0, limit, legal)
            self.pending = pending
            message = self._turn_message(pending)
            # The seat is charged from here (the message is built, only delivery remains), or from
            # the moment its connection hands the Turn to the transport, if that comes later.
            pending.issued = self.now()
            if limit is not None:
                pending.timer = asyncio.get_running_loop().call_later(limit, self._on_timer, pending)
            self.host.send(self.bots[seat], message, partial(self._turn_sent, pending))
            return

    def _send_turn(self, pending: PendingTurn) -> None:
        self._send(pending.seat, self._turn_message(pending))

    def _turn_message(self, pending: PendingTurn) -> pb.PlayResponse:
        seat = pending.seat
        observation = self.rules.observe(self.state, seat)
        limit = None
        if pending.limit is not None:
            spent = self.now() - pending.issued if pending.issued else 0.0
            limit = max(0.0, pending.limit - spent)
        turn = pb.Turn(
            match_id=self.id,
            turn_id=pending.turn_id,
            observation=convert.observation_to_pb(observation),
            legal=convert.legal_to_pb(self.game, pending.legal),
            clocks=self._clocks_pb(),
            decision_limit=convert.duration_pb(limit),
            seat=convert.seat_pb(seat),
            colour=convert.colour_pb(observation.colour),
        )
        return pb.PlayResponse(turn=turn)

    def _accept(
        self, pending: PendingTurn, action: Any, new_state: Any, elapsed: float, auto: str | None
    ) -> None:
        if pending.timer is not None:
            pending.timer.cancel()
        self.pending = None
        self.clocks.charge(pending.seat, elapsed)
        self.state = new_state
        if auto is None:
            self.last_accepted[pending.seat] = (pending.turn_id, action)
        self._record(pending.seat, pending.turn_id, action, elapsed, auto=auto)
        self._advance()

    def _refuse(self, pending: PendingTurn, exc: Exception, reason: str) -> None:
        seat = pending.seat
        if self.policy.on_illegal == ILLEGAL_REJECT:
            self._reject(seat, pending.turn_id, reason, str(exc), may_retry=True)
            return
        self._reject(seat, pending.turn_id, reason, str(exc), may_retry=False)
        kind = "malformed" if reason == errors.MALFORMED_ACTION else "illegal"
        self._finish(
            MatchEnd(
                "malformed_action" if kind == "malformed" else "illegal_action",
                3 - seat,
                self._scores(),
                f"seat {seat} sent an {kind} action: {exc}",
                faulty_seat=seat,
            )
        )

    def _turn_sent(self, pending: PendingTurn) -> None:
        """The Turn left the arbiter: the seat's clock runs from now (not from the queueing)."""
        if self.pending is pending:
            pending.issued = max(pending.issued, self.now())

    def _on_timer(self, pending: PendingTurn) -> None:
        if self.pending is not pending or self.end is not None or pending.limit is None:
            return
        elapsed = self.now() - pending.issued
        if elapsed < pending.limit:  # the clock started when the Turn was sent: not yet
            pending.timer = asyncio.get_running_loop().call_later(
                pending.limit - elapsed, self._on_timer, pending
            )
            return
        self._time_out(pending, elapsed)

    def _time_out(self, pending: PendingTurn, elapsed: float) -> None:
        seat = pending.seat
        limit = pending.limit if pending.limit is not None else 0.0
        detail = f"seat {seat} took {elapsed:.3f} s, more than its {limit:.3f} s"
        self._reject(seat, pending.turn_id, errors.CLOCK_EXPIRED, detail)
        if self.policy.on_timeout == TIMEOUT_DEFAULT_ACTION:
            legal = pending.legal
            action = next((a for a in legal if self.rules.format_action(a) == "pass"), None)
            if action is None:
                action = self.rng.choice(legal)
            self._accept(pending, action, self.rules.apply(self.state, action), elapsed, auto="default")
            return
        self.clocks.charge_timeout(seat, elapsed)
        self._finish(MatchEnd("timeout", 3 - seat, self._scores(), detail, faulty_seat=seat))

    def _reject(self, seat: int, turn_id: int, reason: str, message: str, may_retry: bool = False) -> None:
        rejected = pb.MoveRejected(
            match_id=self.id, turn_id=turn_id, status=errors.status_for(reason, message), may_retry=may_retry
        )
        self._send(seat, pb.PlayResponse(move_rejected=rejected))

    # --- end ---------------------------------------------------------------------------------
    def _scores(self) -> dict[int, int]:
        return dict(self.rules.scores_by_seat(self.state))

    def seat_colours(self) -> dict[int, str]:
        return {seat: self.rules.observe(self.state, seat).colour for seat in (1, 2)}

    def _finish(self, end: MatchEnd) -> None:
        if self.end is not None:
            return
        pending = self.pending
        if pending is not None:
            if pending.timer is not None:
                pending.timer.cancel()
            self.pending = None
        self.end = end
        self.ended_wall = time.time()
        observations = {seat: self.rules.observe(self.state, seat) for seat in (1, 2)}
        colours = {seat: observation.colour for seat, observation in observations.items()}
        result = convert.result_to_pb(
            end.reason, colours, end.scores, end.detail, end.winner_seat, end.faulty_seat
        )
        texts = [entry["action"] for entry in self.actions]
        for seat in (1, 2):
            ended = pb.MatchEnded(
                match_id=self.id,
                result=result,
                final_observation=convert.observation_to_pb(observations[seat]),
                seed=self.seed.hex() if self.game == "surge" else "",
                seat=convert.seat_pb(seat),
                actions=texts,
            )
            self._send(seat, pb.PlayResponse(match_ended=ended))
        self.host.match_finished(self)

    # --- messages and record -------------------------------------------------------------------
    def _send(self, seat: int, message: pb.PlayResponse) -> None:
        self.host.send(self.bots[seat], message)

    def _clocks_pb(self) -> list[cpb.Clock]:
        """Both clocks now; the clock of a seat with a pending turn shows the time already spent."""
        pending = self.pending
        clocks = []
        for seat, left in self.clocks.remaining.items():
            if left is not None and pending is not None and pending.seat == seat and pending.issued:
                left = max(0.0, left - (self.now() - pending.issued))
            clocks.append(cpb.Clock(seat=convert.seat_pb(seat), remaining=convert.duration_pb(left)))
        return clocks

    def _started_message(self, seat: int, resumed: bool) -> pb.PlayResponse:
        observation = self.rules.observe(self.state, seat)
        return pb.PlayResponse(
            match_started=pb.MatchStarted(
                match_id=self.id,
                spec=self.spec_pb,
                seat=convert.seat_pb(seat),
                colour=convert.colour_pb(observation.colour),
                observation=convert.observation_to_pb(observation),
                opponent_name=self.bots[3 - seat],
                time_control=self.control_pb,
                seed_commitment=self.commitment,
                resumed=resumed,
                timeout_policy=_TIMEOUT_PB[self.policy.on_timeout],
                illegal_action_policy=_ILLEGAL_PB[self.policy.on_illegal],
                clocks=self._clocks_pb(),
                seek_id="" if resumed else self.setup.seek_ids.get(seat, ""),
            )
        )

    def _record(
        self, seat: int, turn_id: int | None, action: Any, charged: float | None, auto: str | None
    ) -> None:
        self.actions.append(
            {
                "turn": turn_id,
                "seat": seat,
                "action": self.rules.format_action(action),
                "charged": None if charged is None else round(charged, 6),
                "clocks": {
                    str(s): (None if v is None else round(v, 6)) for s, v in self.clocks.remaining.items()
                },
                "auto": auto,
            }
        )
        self.host.match_progress(self)

    def record(self) -> dict[str, Any]:
        """The JSON record of a finished match (see docs/records.md)."""
        end = self.end
        assert end is not None, "the match is not over"
        colours = self.seat_colours()
        return {
            "format": "arbiter-match-record/1",
            "match_id": self.id,
            "game": self.game,
            "options": self.options,
            "seats": {str(seat): name for seat, name in self.bots.items()},
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


_TIMEOUT_PB = {"loss": pb.TIMEOUT_POLICY_LOSS, "default_action": pb.TIMEOUT_POLICY_DEFAULT_ACTION}
_ILLEGAL_PB = {"forfeit": pb.ILLEGAL_ACTION_POLICY_FORFEIT, "reject": pb.ILLEGAL_ACTION_POLICY_REJECT}


def _random_seed() -> bytes:
    import secrets

    return secrets.token_bytes(32)
