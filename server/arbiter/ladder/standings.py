"""Standings of a ladder: one row per bot (its current version; older ones on request)."""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from typing import Any

from ..store import SqlStore
from .ratings import is_provisional
from .whole_history import fit


@dataclass(frozen=True)
class StandingRow:
    rank: int
    bot: str
    version: str
    mu: float
    sigma: float
    ordinal: float
    provisional: bool
    games: int
    wins: int
    losses: int
    draws: int
    failures: dict[str, int] = field(default_factory=dict)
    last_game: float | None = None
    current: bool = True
    paused: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @staticmethod
    def header() -> str:
        """The column names above ``line``."""
        return f"{'#':>3}  {'bot':<20} {'version':<12} {'rating':>7}  (mu ± sigma)  games  won-lost-drawn"

    def line(self) -> str:
        mark = "?" if self.provisional else " "
        fails = ", ".join(f"{kind} {count}" for kind, count in sorted(self.failures.items())) or "-"
        last = "-" if self.last_game is None else time.strftime("%Y-%m-%d %H:%M", time.gmtime(self.last_game))
        old = "" if self.current else " (older version)"
        paused = f"  PAUSED: {self.paused}" if self.paused else ""
        return (
            f"{self.rank:>3}. {self.bot:<20} {self.version:<12} {self.ordinal:7.2f}{mark} "
            f"(mu {self.mu:.2f} ± {self.sigma:.2f})  {self.games:>4} games  "
            f"{self.wins}-{self.losses}-{self.draws}  failures: {fails}  last: {last}{old}{paused}"
        )


def standings(store: SqlStore, ladder: str, all_versions: bool = False) -> list[StandingRow]:
    """Ranked by the conservative rating ``mu - 3 sigma``; ``?`` marks provisional ratings.

    A bot's current version is the one of its last game; older versions only with ``all_versions``.
    One read of the store (``ladder_facts``), which the web pages use too.
    """
    facts = store.ladder_facts(ladder)
    current = {bot: version for bot, (_, version) in facts.latest_game.items()}
    rows: list[StandingRow] = []
    for row in facts.ratings:
        version = row.version
        # A version that has not finished a game yet counts as current only for a new bot.
        is_current = current.get(version.bot, version.version) == version.version
        if not all_versions and not is_current:
            continue
        tally = row.tally
        rows.append(
            StandingRow(
                rank=len(rows) + 1,
                bot=version.bot,
                version=version.version,
                mu=tally.rating.mu,
                sigma=tally.rating.sigma,
                ordinal=tally.rating.ordinal,
                provisional=is_provisional(tally.games),
                games=tally.games,
                wins=tally.wins,
                losses=tally.losses,
                draws=tally.draws,
                failures=dict(facts.failures.get(version, {})),
                last_game=facts.last_game.get(version),
                current=is_current,
                paused=facts.paused.get(version.bot),
            )
        )
    return rows


@dataclass(frozen=True)
class WholeHistoryLine:
    rank: int
    bot: str
    version: str
    rating: float
    low: float
    high: float
    games: int

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @staticmethod
    def header() -> str:
        """The column names above ``line``."""
        return f"{'#':>3}  {'bot':<20} {'version':<12} {'Elo':>7} [95% interval]      games"

    def line(self) -> str:
        return (
            f"{self.rank:>3}. {self.bot:<20} {self.version:<12} {self.rating:7.1f} "
            f"[{self.low:7.1f}, {self.high:7.1f}]  {self.games:>4} games"
        )


def whole_history_standings(store: SqlStore, ladder: str) -> list[WholeHistoryLine]:
    """All rated results fitted at once (Bradley-Terry, Elo scale, 95% intervals)."""
    return [
        WholeHistoryLine(
            rank, row.bot_version.bot, row.bot_version.version, row.rating, row.low, row.high, row.games
        )
        for rank, row in enumerate(fit(store.finished_results(ladder)), 1)
    ]
