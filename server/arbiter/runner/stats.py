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


#: The two-sided level of the printed intervals, and the tail it leaves on each side.
LEVEL = 0.95
TAIL = (1.0 - LEVEL) / 2


def _signed(x: float) -> str:
    """An Elo figure as printed: ``+12``, ``-7``, ``0`` (never ``-0``)."""
    rounded = round(x)
    return "0" if rounded == 0 else f"{rounded:+d}"


def format_elo(tally: Tally) -> str:
    """The Elo difference A - B with its 95% interval, in words that are never ``inf`` or ``-0``.

    Every game won (or lost) has no finite estimate: the line gives the bound that a score of 1 (or
    0) in that many games still allows at 95%: the score ``p`` with ``p ** n = 0.025``."""
    n = tally.games
    if n == 0:
        return "no games yet"
    if tally.wins == n:
        return f"above {_signed(elo_from_score(TAIL ** (1.0 / n)))} (every game won; 95% bound)"
    if tally.losses == n:
        return f"below {_signed(-elo_from_score(TAIL ** (1.0 / n)))} (every game lost; 95% bound)"
    diff, low, high = tally.elo()
    if math.isinf(high) and not math.isinf(low):
        return f"{_signed(diff)} (95% interval from {_signed(low)} up)"
    if math.isinf(low) and not math.isinf(high):
        return f"{_signed(diff)} (95% interval up to {_signed(high)})"
    if math.isinf(low) and math.isinf(high):
        return f"{_signed(diff)} (95% interval unbounded)"
    margin = max(high - diff, diff - low)
    return f"{_signed(diff)} ± {margin:.0f}"
