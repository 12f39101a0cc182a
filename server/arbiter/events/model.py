"""An event's values: its configuration, its rounds and pairings, and the games' results.

Pure data (no I/O, no clock): the formats, the standings, the store and the commands share them.
Points: a win is 1, a draw ½ (both sides), a loss or a forfeit 0; a bye is worth a won pairing.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from arbiter_games.policy import MatchPolicy
from arbiter_games.timecontrol import TimeControl


class Format(StrEnum):
    """How an event pairs its entrants (docs/events.md has each one's rules)."""

    ROUND_ROBIN = "round-robin"
    DOUBLE_ROUND_ROBIN = "double-round-robin"
    SWISS = "swiss"
    KNOCKOUT = "knockout"
    ARENA = "arena"


class EventStatus(StrEnum):
    """``scheduled`` (entries open) -> ``running`` -> ``finished``; ``cancelled`` from either."""

    SCHEDULED = "scheduled"
    RUNNING = "running"
    FINISHED = "finished"
    CANCELLED = "cancelled"


class ResultKind(StrEnum):
    """How a game of an event ended, as its standings count it."""

    PLAYED = "played"  # a match was played: ``winner`` is its winner (None: a draw)
    NO_SHOW = "no_show"  # the loser was not there when the grace ran out: ``winner`` is the other
    DOUBLE_NO_SHOW = "double_no_show"  # neither came: both score 0 (``winner`` is None)


@dataclass(frozen=True)
class EventConfig:
    """An event, as the host created it (``arbiter events add``)."""

    name: str
    game: str
    options: Mapping[str, int]
    control: TimeControl
    format: Format
    policy: MatchPolicy = field(default_factory=MatchPolicy)
    #: Swiss: the number of rounds (None: ceil(log2(entrants)) when it starts). Round robin and
    #: knockout derive theirs from the entrants; an arena has none (see ``duration``).
    rounds: int | None = None
    #: Games that make one pairing (seats alternate from game to game).
    games_per_pairing: int = 1
    #: Each game played twice, same seed, seats swapped (games with chance: Surge).
    duplicate_pairs: bool = False
    #: Epoch seconds; None: when the host starts it.
    starts_at: float | None = None
    #: Epoch seconds after which no bot may enter; None: entries close when it starts.
    entry_closes_at: float | None = None
    max_entrants: int | None = None
    #: Only the host enters bots (``arbiter events entrants NAME --add BOT``).
    invite_only: bool = False
    rated: bool = True
    #: An arena's window, seconds from its start.
    duration: float | None = None

    def __post_init__(self) -> None:
        problem = config_problem(self)
        if problem is not None:
            raise ValueError(problem)

    @property
    def games_per_unit(self) -> int:
        """Games in one scheduled game of a pairing: 2 with duplicate pairs, else 1."""
        return 2 if self.duplicate_pairs else 1

    @property
    def scheduled_games(self) -> int:
        """The games a pairing has before any tie-break game (a bye is worth this many points)."""
        return self.games_per_pairing * self.games_per_unit


def config_problem(config: EventConfig) -> str | None:
    """What is wrong with ``config`` (None: nothing)."""
    if config.games_per_pairing < 1:
        return "an event needs at least 1 game per pairing"
    if config.rounds is not None and config.format is not Format.SWISS:
        return f"a {config.format} event sets its own rounds (--rounds is for swiss)"
    if config.rounds is not None and config.rounds < 1:
        return "a swiss event needs at least 1 round"
    if config.format is Format.ARENA:
        if config.duration is None or config.duration <= 0:
            return "an arena needs a window (--duration SECONDS, more than 0)"
        if config.games_per_pairing != 1:
            return "an arena pairs one game at a time (no --games-per-pairing)"
    elif config.duration is not None:
        return "only an arena has a window (--duration)"
    if config.max_entrants is not None and config.max_entrants < 2:
        return "an event needs room for at least 2 entrants"
    if (
        config.starts_at is not None
        and config.entry_closes_at is not None
        and config.entry_closes_at > config.starts_at
    ):
        return "entries must close before the event starts"
    if not config.control.timed:
        return "an event needs a game clock (--base) or a cap (--per-decision)"
    return None


@dataclass(frozen=True)
class Pairing:
    """Two entrants paired in a round: ``seat_1`` takes seat 1 in the pairing's first game."""

    seat_1: str
    seat_2: str

    @property
    def bots(self) -> tuple[str, str]:
        return (self.seat_1, self.seat_2)

    def has(self, bot: str) -> bool:
        return bot in (self.seat_1, self.seat_2)

    def other(self, bot: str) -> str:
        return self.seat_2 if bot == self.seat_1 else self.seat_1


@dataclass(frozen=True)
class Round:
    """A round: its pairings (table 1, 2, ... in this order) and the entrants with a bye."""

    number: int
    pairings: tuple[Pairing, ...]
    byes: tuple[str, ...] = ()

    def bots(self) -> Iterator[str]:
        for pairing in self.pairings:
            yield from pairing.bots
        yield from self.byes


@dataclass(frozen=True)
class Finished:
    """What a format answers when its event has no further round."""


FINISHED = Finished()


@dataclass(frozen=True)
class GameRef:
    """Which game of an event a match plays: game ``game`` (1, 2, ...) of board ``board`` of
    round ``round`` (the hosting tags the match with it; the store keeps it with the match)."""

    event: str
    round: int
    board: int
    game: int


@dataclass(frozen=True)
class Game:
    """One game of a pairing: who sat where, and its result."""

    seat_1: str
    seat_2: str
    #: 1 or 2, or None: a draw (or a double no-show).
    winner: int | None
    kind: ResultKind = ResultKind.PLAYED

    def __post_init__(self) -> None:
        if self.winner not in (None, 1, 2):
            raise ValueError(f"a game's winner is seat 1 or 2 (or None), got {self.winner!r}")
        if self.kind is ResultKind.NO_SHOW and self.winner is None:
            raise ValueError("a no-show game has a winner: the bot that was there")
        if self.kind is ResultKind.DOUBLE_NO_SHOW and self.winner is not None:
            raise ValueError("a double no-show has no winner")

    def points(self, bot: str) -> float:
        """What ``bot`` (one of the two seats) scored: 1, ½ or 0."""
        seat = 1 if bot == self.seat_1 else 2
        if self.winner is None:
            return 0.5 if self.kind is ResultKind.PLAYED else 0.0
        return 1.0 if self.winner == seat else 0.0

    def outcome(self, bot: str) -> str:
        """``win``, ``draw`` or ``loss`` for ``bot`` (a double no-show is a loss for both)."""
        scored = self.points(bot)
        return "win" if scored == 1.0 else "draw" if scored == 0.5 else "loss"


@dataclass(frozen=True)
class History:
    """An event's rounds so far and the games played in them, keyed by (round, table): enough
    to compute the next round and the standings again, from what the store keeps."""

    rounds: tuple[Round, ...] = ()
    games: Mapping[tuple[int, int], tuple[Game, ...]] = field(default_factory=dict)

    def games_of(self, number: int, table: int) -> tuple[Game, ...]:
        """The games of table ``table`` (1, 2, ...) of round ``number``."""
        return self.games.get((number, table), ())

    def pairings(self) -> Iterator[tuple[Round, int, Pairing]]:
        """Every pairing so far with its round and table."""
        for played in self.rounds:
            for table, pairing in enumerate(played.pairings, start=1):
                yield played, table, pairing


def schedule(pairing: Pairing, games_per_pairing: int, duplicate_pairs: bool) -> list[tuple[str, str]]:
    """The seats of a pairing's scheduled games: ``(seat 1, seat 2)`` for each, in order.

    Game k (0, 1, ...) has ``pairing.seat_1`` in seat 1 when k is even, seats swapped when odd;
    with duplicate pairs each game is followed by its duplicate (same seed, seats swapped)."""
    games: list[tuple[str, str]] = []
    for k in range(games_per_pairing):
        first = pairing.bots if k % 2 == 0 else (pairing.seat_2, pairing.seat_1)
        games.append(first)
        if duplicate_pairs:
            games.append((first[1], first[0]))
    return games


def points_between(games: Sequence[Game], bot: str) -> float:
    """What ``bot`` scored in ``games`` (all of them its own)."""
    return sum(game.points(bot) for game in games)
