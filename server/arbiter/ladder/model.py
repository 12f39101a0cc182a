"""The ladder's domain values, shared by the store, the ratings, the scheduler and the commands."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from arbiter_games.policy import MatchPolicy
from arbiter_games.timecontrol import TimeControl


class Termination(StrEnum):
    """How a match ended, as the ladder counts it."""

    GAME_END = "game_end"  # the rules ended it
    TIMEOUT = "timeout"  # a seat's clock ran out while it was connected
    ILLEGAL_ACTION = "illegal_action"  # a seat sent an illegal or malformed action (forfeit policy)
    DISCONNECTED = "disconnected"  # a seat's clock ran out while it was away
    ABORTED = "aborted"  # the arbiter ended it (shutdown, crash, storage lost): never rated

    @property
    def bot_fault(self) -> bool:
        """A failure of a bot (counts as its loss), as opposed to the game's end or the arbiter's."""
        return self in (Termination.TIMEOUT, Termination.ILLEGAL_ACTION, Termination.DISCONNECTED)


#: What a ladder does with a match between two bots of one owner.
SAME_OWNER_RULES = ("unrated", "flagged")


@dataclass(frozen=True)
class LadderConfig:
    """A ladder: one game with fixed options, clocks and policies."""

    name: str
    game: str
    options: Mapping[str, int]
    control: TimeControl
    policy: MatchPolicy = field(default_factory=MatchPolicy)
    rated: bool = True
    #: Surge: play each pairing twice, same seed, seats swapped, so the draw's luck cancels out.
    duplicate_pairs: bool = False
    enabled: bool = True
    #: A match between two bots of one owner: ``unrated`` (the default) or ``flagged`` (rated, and
    #: marked as such on the match).
    same_owner: str = "unrated"
    #: What the ladder is for (shown on its page); a disabled ladder is *archived*: it keeps its
    #: standings and matches and takes no new match.
    description: str = ""


def one_owner(bot_1: str, bot_2: str, owner_1: str, owner_2: str) -> bool:
    """Whether two bots have one owner: the same bot, or the same non-empty owner (case ignored)."""
    if bot_1 == bot_2:
        return True
    return bool(owner_1.strip()) and owner_1.strip().casefold() == owner_2.strip().casefold()


@dataclass(frozen=True, order=True)
class BotVersion:
    """Ratings are kept per bot version (a bot names its version when it connects)."""

    bot: str
    version: str


@dataclass(frozen=True)
class Rating:
    """An openskill rating: mean ``mu`` and uncertainty ``sigma``."""

    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        """The conservative estimate the standings rank by: ``mu - 3 sigma``."""
        return self.mu - 3.0 * self.sigma


@dataclass(frozen=True)
class RatedResult:
    """One finished ladder match as the ratings read it. ``sequence`` orders results for a replay."""

    sequence: int
    match_id: str
    ladder: str
    seat_1: BotVersion
    seat_2: BotVersion
    #: 1 or 2, or None for a draw.
    winner_seat: int | None
    termination: Termination
    rated: bool
    ended_at: float
