"""A sequential probability ratio test on game pairs: "is NEW better than OLD?" (pure, no I/O).

Games are played in pairs with the seats swapped (and, for Surge, one seed for both games of a
pair). A pair scores 0, 0.5, 1, 1.5 or 2 points for NEW; the five counts are the pentanomial.

The test is the generalized SPRT (GSPRT) that fastchess and fishtest use for the pentanomial
model with logistic Elo: with ``N`` pairs, ``s`` the mean of the pair scores (each out of 1, i.e.
the pair's points / 2), ``var`` their variance, and ``s0``, ``s1`` the expected scores of the two
hypotheses (``1 / (1 + 10 ** (-elo / 400))``),

    LLR = N * (s1 - s0) * (2 * s - s0 - s1) / (2 * var)

H1 (NEW is ``elo1`` better) is accepted once ``LLR >= log((1 - beta) / alpha)``, H0 (NEW is only
``elo0`` better) once ``LLR <= log(beta / (1 - alpha))``. Empty counts are regularised to 0.001
pairs (as fishtest does) so that the variance is never zero.

The formula is a normal approximation and needs a few pairs: after one pair won twice the
regularised variance is tiny and the LLR is about +17, so a coin-flip result would decide the test.
``Sprt`` therefore takes no decision before ``min_pairs`` pairs (default ``MIN_PAIRS``); looking
later than every pair only makes a wrong decision less likely.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import StrEnum

#: What an empty pentanomial count is taken as, so that the variance stays positive.
REGULARISE = 1e-3
#: The pair scores (out of 1) of the five counts: LL, LD, WL+DD, WD, WW.
PAIR_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)
#: Pairs before the running test may decide (20 games).
MIN_PAIRS = 10


def score_from_elo(elo: float) -> float:
    """The expected score of a side that is ``elo`` logistic Elo better."""
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


class Verdict(StrEnum):
    H1 = "H1"  # NEW is better (by elo1)
    H0 = "H0"  # NEW is not better (by more than elo0)
    CONTINUE = "continue"


@dataclass(frozen=True)
class Bounds:
    lower: float
    upper: float

    @classmethod
    def of(cls, alpha: float, beta: float) -> Bounds:
        if not (0.0 < alpha < 1.0 and 0.0 < beta < 1.0 and alpha + beta < 1.0):
            raise ValueError(f"alpha and beta must be in (0, 1) with a sum below 1, not {alpha}, {beta}")
        return cls(math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha))

    def verdict(self, llr: float) -> Verdict:
        if llr >= self.upper:
            return Verdict.H1
        if llr <= self.lower:
            return Verdict.H0
        return Verdict.CONTINUE


@dataclass
class Pentanomial:
    """Pair counts by NEW's points in the pair, in half points: ``counts[k]`` pairs scored k / 2."""

    counts: list[int] = field(default_factory=lambda: [0] * 5)

    def add(self, points: float) -> None:
        """Count one pair where NEW scored ``points`` (0, 0.5, 1, 1.5 or 2)."""
        halves = round(points * 2)
        if not 0 <= halves <= 4 or halves != points * 2:
            raise ValueError(f"a pair scores 0, 0.5, 1, 1.5 or 2 points, not {points!r}")
        self.counts[halves] += 1

    @property
    def pairs(self) -> int:
        return sum(self.counts)

    def mean_and_variance(self) -> tuple[float, float]:
        """Mean and variance of the pair score (out of 1), over the regularised counts."""
        weights = [c if c > 0 else REGULARISE for c in self.counts]
        n = math.fsum(weights)
        mean = math.fsum(w * x for w, x in zip(weights, PAIR_SCORES, strict=True)) / n
        variance = math.fsum(w * (x - mean) ** 2 for w, x in zip(weights, PAIR_SCORES, strict=True)) / n
        return mean, variance

    def llr(self, elo0: float, elo1: float) -> float:
        """The log-likelihood ratio of H1 (``elo1``) against H0 (``elo0``); 0 before any pair."""
        if self.pairs == 0:
            return 0.0
        s0, s1 = score_from_elo(elo0), score_from_elo(elo1)
        mean, variance = self.mean_and_variance()
        return self.pairs * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * variance)


@dataclass
class Sprt:
    """The running test: feed it pairs, read the LLR and the verdict."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05
    min_pairs: int = MIN_PAIRS
    penta: Pentanomial = field(default_factory=Pentanomial)

    def __post_init__(self) -> None:
        if not self.elo0 < self.elo1:
            raise ValueError(f"ELO0 must be below ELO1, not {self.elo0:g} and {self.elo1:g}")
        if self.min_pairs < 1:
            raise ValueError(f"min_pairs must be at least 1, not {self.min_pairs}")
        self.bounds = Bounds.of(self.alpha, self.beta)

    def add_pair(self, points: float) -> Verdict:
        self.penta.add(points)
        return self.verdict()

    def llr(self) -> float:
        return self.penta.llr(self.elo0, self.elo1)

    def verdict(self) -> Verdict:
        if self.penta.pairs < self.min_pairs:
            return Verdict.CONTINUE
        return self.bounds.verdict(self.llr())


class PairBook:
    """Collects games by their start index; games 2k and 2k + 1 form pair k (seats swapped)."""

    def __init__(self) -> None:
        self.halves: dict[int, float] = {}

    def add(self, index: int, points: float) -> float | None:
        """Note game ``index``'s points for NEW; the pair's total once both of its games are in."""
        other = index ^ 1
        if other in self.halves:
            return self.halves.pop(other) + points
        self.halves[index] = points
        return None
