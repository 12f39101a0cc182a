"""What a match tells the world: domain events, no protobuf; each names its match (``facts``).

Listeners (the transport, the record writer; later the store, ratings, metrics and spectators) each
take what they need.

States carried by events are engine states, which are never changed in place by the match (the
engines' ``apply`` returns a new state), so a listener may keep them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, cast

from arbiter_games import GameDef, Observation
from arbiter_games.policy import MatchPolicy
from arbiter_games.timecontrol import TimeControl

from ..events.model import GameRef

#: Each seat's remaining game time (None: no game clock).
ClockReading = Mapping[int, float | None]


class Refusal(StrEnum):
    """Why a seat's answer was not played (the wire's ErrorInfo reasons of the same names)."""

    MALFORMED_ACTION = "MALFORMED_ACTION"
    ILLEGAL_ACTION = "ILLEGAL_ACTION"
    NOT_YOUR_TURN = "NOT_YOUR_TURN"
    STALE_TURN = "STALE_TURN"
    CLOCK_EXPIRED = "CLOCK_EXPIRED"


class AutoAction(StrEnum):
    """An action the arbiter played for a seat."""

    FORCED = "skip"  # the game's forced action (Surge's skip), played without asking
    DEFAULT = "default"  # the timeout policy's default action


@dataclass(frozen=True)
class MatchFacts:
    """What does not change during a match."""

    match_id: str
    game: GameDef
    options: Mapping[str, int]
    bots: Mapping[int, str]
    control: TimeControl
    policy: MatchPolicy
    seed_commitment: str
    seek_ids: Mapping[int, str] = field(default_factory=dict)
    ladder: str | None = None
    versions: Mapping[int, str] = field(default_factory=dict)
    rated: bool = False
    #: The event game this match plays (None: not an event's).
    event: GameRef | None = None

    @property
    def game_name(self) -> str:
        return self.game.name


@dataclass(frozen=True)
class MatchEnd:
    """How the match ended, at the match level (the game's own outcome, or a timeout/forfeit)."""

    reason: str
    winner_seat: int | None
    scores: Mapping[int, int]
    detail: str = ""
    faulty_seat: int | None = None


@dataclass(frozen=True, slots=True)
class MatchStarted:
    """The match began; each seat sees its own observation.

    ``seed`` is for the arbiter's own listeners (the store keeps it to rebuild the match after a
    crash); nothing sends it to a seat before the match ends.
    """

    facts: MatchFacts
    observations: Mapping[int, Observation]
    clocks: ClockReading
    seed: bytes
    started_at: float


@dataclass(frozen=True, slots=True)
class SeatResumed:
    """A seat came back (a new connection of its bot): it is told the match again."""

    facts: MatchFacts
    seat: int
    observation: Observation
    clocks: ClockReading


@dataclass(frozen=True, slots=True)
class TurnIssued:
    """A seat is asked for an action. ``resent``: the same turn again, after a reconnect.

    ``delivered`` is called by whoever hands the turn to the seat's connection: the seat's clock
    runs from then (or from when the turn was issued, if that is later).
    """

    facts: MatchFacts
    turn_id: int
    seat: int
    observation: Observation
    legal: Sequence[object]
    clocks: ClockReading
    decision_limit: float | None
    resent: bool
    delivered: Callable[[], None] | None


@dataclass(frozen=True, slots=True)
class ActionApplied:
    """An action was played. ``turn_id`` is None for an action the arbiter played unasked."""

    facts: MatchFacts
    seat: int
    turn_id: int | None
    action: object
    text: str
    charged: float | None
    clocks: ClockReading
    auto: AutoAction | None
    state: object


@dataclass(frozen=True, slots=True)
class MoveRefused:
    """An answer was not played; ``may_retry``: the same turn stays open for the seat."""

    facts: MatchFacts
    seat: int
    turn_id: int
    reason: Refusal
    message: str
    may_retry: bool = False


@dataclass(frozen=True, slots=True)
class MoveAcknowledged:
    """An exact repeat of the seat's last accepted answer (a retry after a lost reply)."""

    facts: MatchFacts
    seat: int
    turn_id: int


@dataclass(frozen=True, slots=True)
class MatchEnded:
    """The match is over: the result, each seat's final observation, the seed and the record."""

    facts: MatchFacts
    end: MatchEnd
    colours: Mapping[int, str]
    observations: Mapping[int, Observation]
    revealed_seed: str
    actions: Sequence[str]
    record: Mapping[str, Any]


MatchEvent = (
    MatchStarted | SeatResumed | TurnIssued | ActionApplied | MoveRefused | MoveAcknowledged | MatchEnded
)
#: Where a match sends its events.
Emit = Callable[[MatchEvent], None]


_BOTH_SEATS = (1, 2)
_NO_SEAT: tuple[int, ...] = ()
_FOR_ALL = {MatchStarted: _BOTH_SEATS, MatchEnded: _BOTH_SEATS, ActionApplied: _NO_SEAT}


def addressed_seats(event: MatchEvent) -> tuple[int, ...]:
    """The seats an event is for (the transport sends it to their bots)."""
    seats = _FOR_ALL.get(type(event))
    if seats is not None:
        return seats
    # A cast, not an isinstance check: this runs for every event (twice per move).
    return (cast("SeatResumed | TurnIssued | MoveRefused | MoveAcknowledged", event).seat,)
