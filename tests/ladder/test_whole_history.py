"""The whole-history Bradley-Terry fit: hand-computed cases, order independence, priors, intervals."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

import pytest
from arbiter.ladder.model import BotVersion, RatedResult, Termination
from arbiter.ladder.whole_history import ELO_PER_NATURAL, Z_95, WholeHistoryRow, fit

A, B, C, D = (BotVersion(name, "1") for name in "abcd")


def result(
    sequence: int,
    seat_1: BotVersion,
    seat_2: BotVersion,
    winner: int | None,
    termination: Termination = Termination.GAME_END,
    rated: bool = True,
) -> RatedResult:
    return RatedResult(sequence, f"m{sequence}", "fravan", seat_1, seat_2, winner, termination, rated, 0.0)


def games(pairs: Sequence[tuple[BotVersion, BotVersion, int | None]]) -> list[RatedResult]:
    return [result(k, a, b, w) for k, (a, b, w) in enumerate(pairs)]


def by_bot(rows: list[WholeHistoryRow]) -> dict[BotVersion, WholeHistoryRow]:
    return {row.bot_version: row for row in rows}


def test_nothing_to_fit():
    assert fit([]) == []
    assert fit([result(0, A, B, 1, Termination.ABORTED)]) == []


def test_three_wins_to_one_by_hand_without_prior():
    # MLE: P(a beats b) = 3/4, so theta_a - theta_b = ln 3, i.e. 400 log10 3 Elo; centred: +-200 log10 3.
    # Information about theta_a - theta_b: n p (1-p) = 4 * 3/4 * 1/4 = 3/4, so Var(diff) = 4/3 and
    # Var(theta_a - mean) = Var(diff / 2) = 1/3.
    rows = fit(games([(A, B, 1), (B, A, 2), (A, B, 1), (A, B, 2)]), prior_draws=0)
    assert [row.bot_version for row in rows] == [A, B]
    a, b = rows
    assert a.rating - b.rating == pytest.approx(400 * math.log10(3), abs=1e-9)
    assert a.rating + b.rating == pytest.approx(0.0, abs=1e-9)
    half = Z_95 * math.sqrt(1 / 3) * ELO_PER_NATURAL
    assert a.high - a.rating == pytest.approx(half, rel=1e-9)
    assert a.rating - a.low == pytest.approx(half, rel=1e-9)
    assert (a.games, b.games) == (4, 4)


def test_draws_count_as_half_a_win():
    # A win and a draw: 1.5 points to 0.5, the same MLE as 3 wins to 1.
    rows = by_bot(fit(games([(A, B, 1), (B, A, None)]), prior_draws=0))
    assert rows[A].rating - rows[B].rating == pytest.approx(400 * math.log10(3), abs=1e-9)
    even = by_bot(fit(games([(A, B, 1), (A, B, 2), (A, B, None), (B, A, None)]), prior_draws=0))
    assert even[A].rating == pytest.approx(0.0, abs=1e-9) and even[B].rating == pytest.approx(0.0, abs=1e-9)


def test_the_prior_by_hand():
    # One virtual draw each against strength 0 and a 3:1 record: by symmetry theta_b = -theta_a = -t,
    # and the score equation of a is 3 - 4 s(2t) + (1/2 - s(t)) = 0 (s the logistic function).
    rows = by_bot(fit(games([(A, B, 1), (B, A, 2), (A, B, 1), (A, B, 2)])))
    t = rows[A].rating / ELO_PER_NATURAL
    assert rows[B].rating == pytest.approx(-rows[A].rating, abs=1e-9)

    def s(x: float) -> float:
        return 1 / (1 + math.exp(-x))

    assert 3 - 4 * s(2 * t) + (0.5 - s(t)) == pytest.approx(0.0, abs=1e-12)
    # the prior pulls towards the reference, so the gap is a little below the MLE's
    assert 0 < rows[A].rating - rows[B].rating < 400 * math.log10(3)


def test_an_all_wins_bot_is_finite_with_the_prior_and_refused_without():
    results = games([(A, B, 1)] * 10 + [(B, C, 1), (C, B, 1), (A, C, 1), (C, A, 2)])
    rows = fit(results)
    assert rows[0].bot_version == A
    assert all(math.isfinite(v) for row in rows for v in (row.rating, row.low, row.high))
    assert rows[0].rating < 2000  # ten wins against one strength: large, not runaway
    with pytest.raises(ValueError):
        fit(results, prior_draws=0)


#: The fit's own refusal of a result graph that is not strongly connected (not any ValueError:
#: a fit that went on would fail later with another one, or return runaway numbers).
NOT_CONNECTED = "no finite maximum-likelihood fit: some bot versions never score against the rest"


@pytest.mark.parametrize(
    "pairs",
    [
        # a only wins (a is the first bot version, where a search of the graph starts).
        [(A, B, 1), (B, A, 2), (B, C, 1), (C, B, 1)],
        # d only loses, a and b and c score against each other.
        [(A, B, 1), (B, C, 1), (C, A, 1), (D, C, 2)],
        # d only wins against b; a, b, c form a cycle: every bot is reached from a one way only.
        [(A, B, 1), (B, C, 1), (C, A, 1), (D, B, 1)],
        # c only loses, to b; a and b beat each other.
        [(A, B, 1), (B, A, 1), (B, C, 1)],
        # two groups that never met.
        [(A, B, 1), (B, A, 1), (C, D, 1), (D, C, 1)],
    ],
    ids=["first-only-wins", "one-only-loses", "one-only-wins", "last-only-loses", "two-groups"],
)
def test_a_result_graph_not_strongly_connected_is_refused_without_a_prior(pairs):
    # Issue 20, property 8.
    with pytest.raises(ValueError) as refused:
        fit(games(pairs), prior_draws=0)
    assert str(refused.value) == NOT_CONNECTED
    rows = fit(games(pairs))  # with the prior: finite
    assert all(math.isfinite(v) for row in rows for v in (row.rating, row.low, row.high))


def test_a_strongly_connected_graph_is_fitted_without_a_prior():
    # Draws score both ways: a cycle of wins and a chain of draws are strongly connected.
    for pairs in ([(A, B, 1), (B, C, 1), (C, A, 1)], [(A, B, None), (B, C, None), (C, D, 1), (D, C, 1)]):
        rows = fit(games(pairs), prior_draws=0)
        assert len(rows) == len({bot for pair in pairs for bot in pair[:2]})
        assert all(math.isfinite(row.rating) for row in rows)


def test_disconnected_groups_are_finite_with_the_prior():
    rows = by_bot(fit(games([(A, B, 1), (B, A, 1), (C, D, 1), (D, C, 2)])))
    assert all(math.isfinite(row.rating) for row in rows.values())
    assert rows[A].rating == pytest.approx(rows[B].rating, abs=1e-9)
    assert rows[C].rating > rows[A].rating > rows[D].rating


def random_results(
    seed: int, count: int, strengths: dict[BotVersion, float], draws: float = 0.15
) -> list[RatedResult]:
    rng = random.Random(seed)
    bots = sorted(strengths)
    out = []
    for k in range(count):
        a, b = rng.sample(bots, 2)
        u = rng.random()
        p = 1 / (1 + math.exp(strengths[b] - strengths[a]))
        winner = None if u < draws else 1 if u < draws + (1 - draws) * p else 2
        out.append(result(k, a, b, winner))
    return out


STRENGTHS = {BotVersion(f"bot{k}", "v1"): 0.25 * k for k in range(7)} | {BotVersion("champion", "v9"): 3.0}


def test_the_fit_does_not_depend_on_the_order_of_the_results():
    results = random_results(3, 600, STRENGTHS)
    results += [result(900, A, B, 1, Termination.ABORTED), result(901, A, B, 1, rated=False)]
    reference = fit(results)
    for seed in range(3):
        shuffled = list(results)
        random.Random(seed).shuffle(shuffled)
        rows = fit(shuffled)
        assert [row.bot_version for row in rows] == [row.bot_version for row in reference]
        for got, want in zip(rows, reference, strict=True):
            assert got.games == want.games
            for x, y in ((got.rating, want.rating), (got.low, want.low), (got.high, want.high)):
                assert abs(x - y) <= 1e-9
    assert A not in by_bot(reference)  # the aborted and unrated games count for nothing


def test_a_clearly_stronger_bot_ranks_first_with_an_interval_clear_of_the_weakest():
    rows = fit(random_results(8, 800, STRENGTHS))
    assert rows[0].bot_version == BotVersion("champion", "v9")
    weakest = by_bot(rows)[BotVersion("bot0", "v1")]
    assert rows[0].low > weakest.high
    assert rows[-1].bot_version in {BotVersion("bot0", "v1"), BotVersion("bot1", "v1")}
    assert math.fsum(row.rating for row in rows) == pytest.approx(0.0, abs=1e-6)
    for row in rows:
        assert row.low < row.rating < row.high
    assert sum(row.games for row in rows) == 2 * 800


def test_the_fit_recovers_the_strengths():
    # Without draws the games follow the fitted model exactly (random draws, not tied to strength,
    # would shrink every gap: the expected score would be 0.15/2 + 0.85 p rather than p).
    rows = by_bot(fit(random_results(21, 4000, STRENGTHS, draws=0.0)))
    mean = math.fsum(STRENGTHS.values()) / len(STRENGTHS)
    inside = 0
    for bot, strength in STRENGTHS.items():
        true_rating = (strength - mean) * ELO_PER_NATURAL
        inside += rows[bot].low <= true_rating <= rows[bot].high
    assert inside >= 7  # a 95% interval each: at most one of eight misses, for this seed


def test_a_negative_prior_is_refused():
    with pytest.raises(ValueError):
        fit([], prior_draws=-1.0)
