"""The SPRT module: expected scores, bounds, the pentanomial LLR against hand-computed values."""

from __future__ import annotations

import math
import random

import pytest
from arbiter.runner.sprt import MIN_PAIRS, Bounds, PairBook, Pentanomial, Sprt, Verdict, score_from_elo

S1_50 = 0.5714631174083814  # 1 / (1 + 10 ** (-50 / 400)), by hand: 1 / 1.7498942


def penta(*counts: int) -> Pentanomial:
    return Pentanomial(list(counts))


def test_expected_score_is_logistic():
    assert score_from_elo(0) == 0.5
    assert score_from_elo(400) == pytest.approx(10 / 11)
    assert score_from_elo(-400) == pytest.approx(1 / 11)
    assert score_from_elo(50) == pytest.approx(S1_50, rel=1e-9)


def test_bounds():
    b = Bounds.of(0.05, 0.05)
    assert b.lower == pytest.approx(-2.944439, abs=1e-6)
    assert b.upper == pytest.approx(2.944439, abs=1e-6)
    b = Bounds.of(0.1, 0.2)
    assert b.lower == pytest.approx(math.log(0.2 / 0.9)) == pytest.approx(-1.504077, abs=1e-6)
    assert b.upper == pytest.approx(math.log(8.0)) == pytest.approx(2.079442, abs=1e-6)
    assert b.verdict(2.08) is Verdict.H1
    assert b.verdict(-1.51) is Verdict.H0
    assert b.verdict(0.0) is Verdict.CONTINUE


@pytest.mark.parametrize(("alpha", "beta"), [(0, 0.05), (0.05, 1), (0.6, 0.5)])
def test_bounds_refuse_impossible_rates(alpha, beta):
    with pytest.raises(ValueError):
        Bounds.of(alpha, beta)


def test_llr_of_a_balanced_pentanomial():
    # [1 1 1 1 1]: mean 0.5; deviations -0.5 -0.25 0 0.25 0.5,
    # variance (0.25 + 0.0625 + 0 + 0.0625 + 0.25) / 5 = 0.125
    p = penta(1, 1, 1, 1, 1)
    assert p.mean_and_variance() == pytest.approx((0.5, 0.125))
    # LLR = 5 * (s1 - 0.5) * (1 - 0.5 - s1) / (2 * 0.125) = -5 * 0.0714631^2 / 0.25 = -0.102139
    assert p.llr(0, 50) == pytest.approx(-0.102139, abs=1e-6)


def test_llr_of_a_winning_pentanomial():
    # [1 1 2 3 3], 10 pairs: mean (0.25 + 2 * 0.5 + 3 * 0.75 + 3) / 10 = 0.65
    # variance (0.4225 + 0.16 + 2 * 0.0225 + 3 * 0.01 + 3 * 0.1225) / 10 = 0.1025
    p = penta(1, 1, 2, 3, 3)
    mean, variance = p.mean_and_variance()
    assert mean == pytest.approx(0.65) and variance == pytest.approx(0.1025)
    # LLR = 10 * 0.0714631 * (1.3 - 0.5 - 0.5714631) / 0.205 = 0.796681
    assert p.llr(0, 50) == pytest.approx(0.796681, abs=1e-6)
    assert p.llr(0, 50) > 0 > penta(3, 3, 2, 1, 1).llr(0, 50)


def test_llr_is_zero_at_the_midpoint_and_grows_with_the_pairs():
    assert penta(0, 0, 0, 0, 0).llr(0, 50) == 0.0
    assert penta(2, 0, 0, 0, 2).llr(-20, 20) == pytest.approx(0.0, abs=1e-12)
    small, large = penta(1, 1, 2, 3, 3), penta(10, 10, 20, 30, 30)
    assert large.llr(0, 50) == pytest.approx(10 * small.llr(0, 50))


def test_empty_counts_are_regularised():
    # One pair won twice: weights 0.001 for the four empty counts, so the variance is not zero.
    p = penta(0, 0, 0, 0, 1)
    mean, variance = p.mean_and_variance()
    assert mean == pytest.approx((1 + 0.001 * (0.25 + 0.5 + 0.75)) / 1.004)
    assert 0 < variance < 0.01
    assert p.llr(0, 50) > Bounds.of(0.05, 0.05).upper


def test_pairs_are_counted_by_half_points():
    p = Pentanomial()
    for points in (0, 0.5, 1, 1, 1.5, 2, 2, 2):
        p.add(points)
    assert p.counts == [1, 1, 2, 1, 3] and p.pairs == 8
    for bad in (0.3, 2.5, -0.5):
        with pytest.raises(ValueError):
            p.add(bad)


def test_the_running_test_decides_after_its_minimum_of_pairs():
    test = Sprt(0, 50)
    assert test.min_pairs == MIN_PAIRS == 10
    assert test.verdict() is Verdict.CONTINUE
    verdicts = [test.add_pair(p) for p in (2, 2, 2, 2, 2, 2, 2, 2, 2, 2)]
    assert test.llr() > test.bounds.upper
    assert verdicts[:-1] == [Verdict.CONTINUE] * 9 and verdicts[-1] is Verdict.H1
    losing = Sprt(0, 50, min_pairs=5)
    assert [losing.add_pair(p) for p in (0, 0, 0.5, 0, 0)][-1] is Verdict.H0
    quick = Sprt(0, 50, min_pairs=1)
    assert quick.add_pair(2) is Verdict.H1  # the regularised variance of one pair is tiny
    even = Sprt(-20, 20, alpha=0.05, beta=0.05)
    for p in (2, 0, 1, 1, 0.5, 1.5, 1, 2, 0, 1):  # mean 0.5, variance 0.1
        even.add_pair(p)
    assert even.llr() == pytest.approx(0.0, abs=1e-9) and even.verdict() is Verdict.CONTINUE
    with pytest.raises(ValueError):
        Sprt(50, 0)
    with pytest.raises(ValueError):
        Sprt(0, 50, min_pairs=0)


def test_pair_book_joins_games_2k_and_2k_plus_1():
    book = PairBook()
    assert book.add(0, 1.0) is None
    assert book.add(3, 0.0) is None
    assert book.add(1, 0.5) == 1.5
    assert book.add(2, 1.0) == 1.0
    assert book.halves == {}


def simulate(true_elo: float, runs: int, seed: int) -> dict[Verdict, float]:
    """The share of each verdict of Sprt(0, 50) over simulated pairs of drawless games."""
    rng = random.Random(seed)
    p_win = score_from_elo(true_elo)
    verdicts = dict.fromkeys(Verdict, 0)
    for _ in range(runs):
        test, verdict = Sprt(0, 50), Verdict.CONTINUE
        for _pair in range(400):
            verdict = test.add_pair((rng.random() < p_win) + (rng.random() < p_win))
            if verdict is not Verdict.CONTINUE:
                break
        verdicts[verdict] += 1
    return {k: v / runs for k, v in verdicts.items()}


def test_the_error_rates_are_about_alpha_and_beta():
    # Equal bots: H1 is the false positive (alpha 0.05); 50 Elo better: H0 the false negative.
    assert simulate(0, 300, seed=1)[Verdict.H1] < 0.1
    assert simulate(50, 300, seed=2)[Verdict.H0] < 0.1
