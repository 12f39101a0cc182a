"""The values the store takes and gives (plain frozen dataclasses, no SQLAlchemy)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from arbiter_games.policy import MatchPolicy
from arbiter_games.timecontrol import TimeControl

from arbiter.events.model import GameRef
from arbiter.ladder.model import BotVersion, Rating, Termination
from arbiter.ladder.ratings import RatingTally as RatingTally


class StoreError(Exception):
    """The store cannot do what was asked (a duplicate, an unknown name, a broken database).

    ``transient``: the database could not be reached or lost the connection; the same call may
    succeed later (the store writer retries those, and only those).
    """

    def __init__(self, message: str, transient: bool = False) -> None:
        super().__init__(message)
        self.transient = transient


class FencedWrite(StoreError):
    """In a cluster: a write about a match by a node that no longer owns it (its epoch moved on,
    or the node's registration was taken over). Never retried: the write is refused for good."""


class OutdatedSchema(StoreError):
    """The database's schema is not the one this arbiter needs (``arbiter db upgrade`` fixes it)."""


class MissingDatabase(OutdatedSchema):
    """A SQLite file that does not exist, opened by a command that does not create databases."""


@dataclass(frozen=True)
class BotRow:
    """A registered bot (its token hash stays in the store)."""

    name: str
    owner: str
    enabled: bool
    created_at: float


@dataclass(frozen=True)
class BotCredential:
    """What a running arbiter checks of a connected bot: its token's hash and whether it is enabled
    (a rotate changes the one, ``bots disable`` the other)."""

    name: str
    token_hash: str
    enabled: bool


@dataclass(frozen=True)
class MatchStart:
    """What is known of a match when it starts: enough to resume it after a restart."""

    match_id: str
    game: str
    options: Mapping[str, int]
    seat_1: BotVersion
    seat_2: BotVersion
    #: The match's seed as hex (secret until the end; kept to resume the match).
    seed: str
    seed_commitment: str
    control: TimeControl
    policy: MatchPolicy
    started_at: float
    ladder: str | None = None
    rated: bool = False
    #: The event game the match plays (kept in ``event_games``; None: not an event's).
    event: GameRef | None = None


@dataclass(frozen=True)
class MoveRow:
    """One played action, as in the match record's ``actions`` (``ply`` counts from 0)."""

    ply: int
    seat: int
    action: str
    turn_id: int | None = None
    charged: float | None = None
    clocks: Mapping[str, float | None] = field(default_factory=dict)
    auto: str | None = None


@dataclass(frozen=True)
class MatchResult:
    """How a match ended. ``termination`` ABORTED makes the match ``aborted`` (never rated)."""

    winner_seat: int | None
    scores: Mapping[int, int]
    reason: str
    termination: Termination
    ended_at: float
    faulty_seat: int | None = None
    detail: str = ""
    #: The match's JSON record (docs/records.md), if there is one.
    record: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class RatingUpdate:
    """What a rated match did to one seat's rating (``finish_match`` takes one per seat)."""

    seat: int
    version: BotVersion
    before: Rating
    after: Rating


@dataclass(frozen=True)
class RatingRow:
    """A stored rating of a bot version on a ladder."""

    ladder: str
    version: BotVersion
    tally: RatingTally
    updated_at: float


@dataclass(frozen=True)
class RunningMatch:
    """A match that had not ended when the store last heard of it, with the moves played so far."""

    start: MatchStart
    moves: Sequence[MoveRow]


@dataclass(frozen=True)
class MatchRow:
    """A match as the listings show it (its record and moves are fetched separately)."""

    match_id: str
    ladder: str | None
    game: str
    seat_1: BotVersion
    seat_2: BotVersion
    status: str
    rated: bool
    started_at: float
    winner_seat: int | None = None
    scores: Mapping[int, int] | None = None
    reason: str | None = None
    termination: Termination | None = None
    faulty_seat: int | None = None
    detail: str | None = None
    ended_at: float | None = None
    sequence: int | None = None
    #: Its two bots have one owner (a ladder's ``same_owner`` rule decides whether it is rated).
    same_owner: bool = False
    #: The game's options (a board size).
    options: Mapping[str, int] | None = None


# --- what the web pages read (SqlStore's web section) ---------------------------------------------
@dataclass(frozen=True)
class RatingPoint:
    """A bot version's rating after one rated match."""

    ladder: str
    version: str
    match_id: str
    sequence: int
    ended_at: float
    mu: float
    sigma: float


@dataclass
class LadderFacts:
    """What the standings show: the ratings (best first), versions, last games, failures, pauses."""

    ratings: list[RatingRow] = field(default_factory=list)

    #: Each bot's last ended match on the ladder, and the version it played then.
    latest_game: dict[str, tuple[float, str]] = field(default_factory=dict)
    last_game: dict[BotVersion, float] = field(default_factory=dict)
    failures: dict[BotVersion, dict[str, int]] = field(default_factory=dict)
    paused: dict[str, str] = field(default_factory=dict)
