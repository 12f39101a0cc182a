"""`arbiter tournament`: several bots, round-robin or gauntlet, a crosstable and ratings at the end.

Each pairing is one `arbiter match` (a LocalRunner with its own local arbiter, seats alternating),
played one after the other; records go to a folder per pairing. The ratings are the whole-history
Bradley-Terry fit of the ladder (arbiter.ladder.whole_history.fit): order-independent, Elo-like
with mean 0, a 95% interval each.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..ladder.model import BotVersion, RatedResult, Termination
from ..ladder.whole_history import WholeHistoryRow, fit
from .local_match import GameResult, LocalRunner, RunnerConfig, label
from .stats import Tally

FORMATS = ("round-robin", "gauntlet")


def pairings(count: int, form: str) -> list[tuple[int, int]]:
    """The pairings of ``count`` bots: every pair (round-robin) or the first against each other."""
    if form == "round-robin":
        return [(i, j) for i in range(count) for j in range(i + 1, count)]
    if form == "gauntlet":
        return [(0, j) for j in range(1, count)]
    raise ValueError(f"unknown format {form!r}; one of {', '.join(FORMATS)}")


def unique_labels(specs: list[str]) -> list[str]:
    """Each bot's label; a label that comes again gets ``#2``, ``#3``..."""
    seen: dict[str, int] = {}
    labels = []
    for spec in specs:
        name = label(spec)
        seen[name] = seen.get(name, 0) + 1
        labels.append(name if seen[name] == 1 else f"{name}#{seen[name]}")
    return labels


_TERMINATIONS = {
    "timeout": Termination.TIMEOUT,
    "illegal_action": Termination.ILLEGAL_ACTION,
    "malformed_action": Termination.ILLEGAL_ACTION,
    "aborted": Termination.ABORTED,
}


@dataclass
class Crosstable:
    """``points[i][j]``: bot i's points against bot j (win 1, draw 1/2); ``games[i][j]`` their games."""

    names: list[str]
    points: list[list[float]] = field(default_factory=list)
    games: list[list[int]] = field(default_factory=list)
    results: list[RatedResult] = field(default_factory=list)

    def __post_init__(self) -> None:
        n = len(self.names)
        self.points = self.points or [[0.0] * n for _ in range(n)]
        self.games = self.games or [[0] * n for _ in range(n)]

    def add(self, a: int, b: int, game: GameResult) -> None:
        """One game between bot ``a`` (the runner's A) and bot ``b`` (its B)."""
        self.points[a][b] += game.points_of_a
        self.points[b][a] += 1.0 - game.points_of_a
        self.games[a][b] += 1
        self.games[b][a] += 1
        seat_1, seat_2 = (a, b) if game.seat_of_a == 1 else (b, a)
        winner_seat = None
        if game.winner is not None:
            winner_bot = a if game.winner == "A" else b
            winner_seat = 1 if winner_bot == seat_1 else 2
        self.results.append(
            RatedResult(
                sequence=len(self.results),
                match_id=game.match_id,
                ladder="tournament",
                seat_1=BotVersion(self.names[seat_1], ""),
                seat_2=BotVersion(self.names[seat_2], ""),
                winner_seat=winner_seat,
                termination=_TERMINATIONS.get(game.reason, Termination.GAME_END),
                rated=True,
                ended_at=float(len(self.results)),
            )
        )

    def total(self, i: int) -> float:
        return sum(self.points[i])

    def played(self, i: int) -> int:
        return sum(self.games[i])

    def ratings(self) -> list[WholeHistoryRow]:
        return fit(self.results)

    def as_json(self) -> dict[str, Any]:
        ratings = {row.bot_version.bot: row for row in self.ratings()}
        return {
            "bots": [
                {
                    "name": name,
                    "points": self.total(i),
                    "games": self.played(i),
                    "rating": ratings[name].rating if name in ratings else None,
                    "low": ratings[name].low if name in ratings else None,
                    "high": ratings[name].high if name in ratings else None,
                }
                for i, name in enumerate(self.names)
            ],
            "crosstable": {
                name: {
                    other: {"points": self.points[i][j], "games": self.games[i][j]}
                    for j, other in enumerate(self.names)
                    if self.games[i][j]
                }
                for i, name in enumerate(self.names)
            },
            "ratings": "whole-history Bradley-Terry fit (Elo-like, mean 0, 95% interval)",
        }


OnGame = Callable[[int, int, GameResult, Tally], None]


@dataclass
class Tournament:
    """Plays the pairings one by one through LocalRunner; ``base`` is the config without bots."""

    bots: list[str]
    form: str
    base: RunnerConfig
    on_game: OnGame | None = None
    on_pairing: Callable[[int, int], None] | None = None

    def __post_init__(self) -> None:
        self.names = unique_labels(self.bots)
        self.table = Crosstable(self.names)
        self.schedule = pairings(len(self.bots), self.form)

    def config_for(self, number: int, a: int, b: int) -> RunnerConfig:
        folder = self.base.records_dir / f"{number + 1:02d}-{_safe(self.names[a])}-vs-{_safe(self.names[b])}"
        seed = None if self.base.seed is None else self.base.seed * 1000 + number
        return dataclasses.replace(
            self.base, bot_a=self.bots[a], bot_b=self.bots[b], records_dir=folder, seed=seed
        )

    async def run(self) -> Crosstable:
        for number, (a, b) in enumerate(self.schedule):
            if self.on_pairing is not None:
                self.on_pairing(a, b)

            def note(game: GameResult, tally: Tally, a: int = a, b: int = b) -> None:
                self.table.add(a, b, game)
                if self.on_game is not None:
                    self.on_game(a, b, game, tally)

            await LocalRunner(self.config_for(number, a, b), on_game=note).run()
        return self.table

    @property
    def total_games(self) -> int:
        return len(self.schedule) * self.base.games


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in name)[:40]
