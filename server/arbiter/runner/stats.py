"""Match statistics for the local runner: tallies and the Elo difference with its error margin."""

from __future__ import annotations

import math
from dataclasses import dataclass, field


def elo_from_score(p: float) -> float:
    """The Elo difference that makes ``p`` the expected score (``inf`` at 0 or 1)."""
    if p <= 0.0:
        return -math.inf
    if p >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / p - 1.0)


@dataclass
class Tally:
    """Results from the point of view of bot A."""

    wins: int = 0
    losses: int = 0
    draws: int = 0
    score_a: list[int] = field(default_factory=list)
    score_b: list[int] = field(default_factory=list)
    time_losses: dict[str, int] = field(default_factory=lambda: {"A": 0, "B": 0})
    illegal: dict[str, int] = field(default_factory=lambda: {"A": 0, "B": 0})
    reasons: dict[str, int] = field(default_factory=dict)

    @property
    def games(self) -> int:
        return self.wins + self.losses + self.draws

    @property
    def score_fraction(self) -> float:
        return (self.wins + 0.5 * self.draws) / self.games if self.games else 0.5

    def elo(self) -> tuple[float, float, float]:
        """(Elo difference A - B, lower and upper bound of its 95% interval)."""
        n = self.games
        if n == 0:
            return 0.0, -math.inf, math.inf
        p = self.score_fraction
        variance = (self.wins * (1 - p) ** 2 + self.draws * (0.5 - p) ** 2 + self.losses * p**2) / n
        margin = 1.959964 * math.sqrt(variance / n)
        return elo_from_score(p), elo_from_score(p - margin), elo_from_score(p + margin)

    def add(self, winner: str | None, scores: tuple[int, int], reason: str, faulty: str | None) -> None:
        """Record one game; ``winner``/``faulty`` are ``"A"``, ``"B"`` or None."""
        if winner == "A":
            self.wins += 1
        elif winner == "B":
            self.losses += 1
        else:
            self.draws += 1
        self.score_a.append(scores[0])
        self.score_b.append(scores[1])
        self.reasons[reason] = self.reasons.get(reason, 0) + 1
        if faulty is not None and reason == "timeout":
            self.time_losses[faulty] += 1
        if faulty is not None and reason in ("illegal_action", "malformed_action"):
            self.illegal[faulty] += 1


def format_elo(tally: Tally) -> str:
    diff, low, high = tally.elo()

    def show(x: float) -> str:
        return "inf" if x == math.inf else "-inf" if x == -math.inf else f"{x:+.0f}"

    if math.isinf(diff):
        return f"{show(diff)} (95% interval {show(low)} .. {show(high)})"
    margin = max(high - diff, diff - low)
    return (
        f"{show(diff)} ± {margin:.0f}"
        if not math.isinf(margin)
        else f"{show(diff)} (95% interval {show(low)} .. {show(high)})"
    )
