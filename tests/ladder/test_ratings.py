"""The live openskill ratings: direction of updates, draws, replay equals live, the provisional threshold."""

from __future__ import annotations

import math
import random

import pytest
from arbiter.ladder.model import BotVersion, RatedResult, Rating, Termination
from arbiter.ladder.ratings import (
    INITIAL_SIGMA,
    NEW_VERSION_SIGMA,
    PROVISIONAL_GAMES,
    RatingTally,
    Winner,
    apply_result,
    carried_tally,
    initial_rating,
    initial_tally,
    is_provisional,
    rate,
    recompute,
    tally_game,
)

BOTS = [BotVersion(f"bot{k}", f"v{k % 3}") for k in range(8)]


def result(
    sequence: int,
    seat_1: BotVersion,
    seat_2: BotVersion,
    winner: int | None,
    termination: Termination = Termination.GAME_END,
    rated: bool = True,
) -> RatedResult:
    return RatedResult(sequence, f"m{sequence}", "torrent", seat_1, seat_2, winner, termination, rated, 0.0)


def random_results(seed: int, count: int) -> list[RatedResult]:
    rng = random.Random(seed)
    terminations = list(Termination)
    out = []
    for sequence in range(count):
        a, b = rng.sample(BOTS, 2)
        winner = rng.choice([1, 2, 1, 2, None])
        out.append(result(sequence, a, b, winner, rng.choice(terminations), rng.random() < 0.9))
    return out


def test_initial_rating_is_openskills_default():
    assert initial_rating() == Rating(25.0, 25.0 / 3.0)
    assert is_provisional(initial_tally().games)


def test_a_win_raises_the_winner_and_lowers_the_loser():
    a, b = initial_rating(), Rating(27.0, 5.0)
    for winner in (1, 2):
        new_a, new_b = rate(a, b, winner)
        if winner == 1:
            assert new_a.mu > a.mu and new_b.mu < b.mu
        else:
            assert new_a.mu < a.mu and new_b.mu > b.mu
        assert new_a.sigma < a.sigma and new_b.sigma < b.sigma


def test_a_draw_between_equals_changes_no_mu():
    for r in (initial_rating(), Rating(31.5, 2.2)):
        new_a, new_b = rate(r, r, None)
        assert new_a.mu == r.mu and new_b.mu == r.mu
        assert new_a.sigma < r.sigma


def test_a_draw_pulls_unequal_players_together():
    strong, weak = Rating(30.0, 3.0), Rating(20.0, 3.0)
    new_strong, new_weak = rate(strong, weak, None)
    assert new_strong.mu < strong.mu and new_weak.mu > weak.mu


def test_the_seat_does_not_matter():
    a, b = Rating(26.0, 4.0), Rating(23.0, 6.0)
    pairs: tuple[tuple[Winner, Winner], ...] = ((1, 2), (2, 1), (None, None))
    for winner, swapped in pairs:
        new_a, new_b = rate(a, b, winner)
        assert rate(b, a, swapped) == (new_b, new_a)


def test_rate_is_deterministic():
    a, b = Rating(26.0, 4.0), Rating(23.0, 6.0)
    assert rate(a, b, 1) == rate(a, b, 1)


def test_a_bad_winner_is_refused():
    with pytest.raises(ValueError):
        rate(initial_rating(), initial_rating(), 3)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        recompute([result(0, BOTS[0], BOTS[1], 0)])


def live(results: list[RatedResult]) -> dict[BotVersion, RatingTally]:
    """What the ladder does as results arrive: one apply_result each, in sequence order."""
    tallies: dict[BotVersion, RatingTally] = {}
    for r in results:
        tallies.update(apply_result(tallies, r))
    return tallies


def live_with_rate(results: list[RatedResult]) -> dict[BotVersion, Rating]:
    """The same with bare ``rate`` calls."""
    ratings: dict[BotVersion, Rating] = {}
    for r in results:
        if not r.rated or r.termination is Termination.ABORTED:
            continue
        winner: Winner = 1 if r.winner_seat == 1 else 2 if r.winner_seat == 2 else None
        a = ratings.get(r.seat_1, initial_rating())
        b = ratings.get(r.seat_2, initial_rating())
        ratings[r.seat_1], ratings[r.seat_2] = rate(a, b, winner)
    return ratings


def test_recompute_equals_live_bit_for_bit_over_500_results():
    results = random_results(seed=11, count=500)
    replayed = recompute(reversed(results))  # the replay sorts by sequence itself
    assert replayed == live(results)
    bare = live_with_rate(results)
    assert {bv: t.rating for bv, t in replayed.items()} == bare
    for bv, tally in replayed.items():
        # bit-identical, not just equal to within rounding
        assert tally.rating.mu.hex() == bare[bv].mu.hex() and tally.rating.sigma.hex() == bare[bv].sigma.hex()
        assert tally.games == tally.wins + tally.losses + tally.draws
    counted = [r for r in results if r.rated and r.termination is not Termination.ABORTED]
    assert sum(t.games for t in replayed.values()) == 2 * len(counted)
    assert len(replayed) == 8


def test_recompute_does_not_depend_on_the_input_order():
    results = random_results(seed=5, count=300)
    shuffled = list(results)
    random.Random(1).shuffle(shuffled)
    assert recompute(shuffled) == recompute(results)
    assert list(recompute(shuffled)) == sorted(recompute(results))


def test_aborted_and_unrated_results_are_ignored():
    a, b = BOTS[0], BOTS[1]
    counted = [result(1, a, b, 1), result(4, b, a, None)]
    ignored = [
        result(2, a, b, 2, Termination.ABORTED),
        result(3, a, b, 2, rated=False),
        result(5, a, a, 1),  # a bot version against itself says nothing about either
    ]
    assert recompute(counted + ignored) == recompute(counted)
    assert apply_result({}, ignored[0]) == {}
    tallies = recompute(counted)
    assert (tallies[a].games, tallies[a].wins, tallies[a].losses, tallies[a].draws) == (2, 1, 0, 1)
    assert (tallies[b].games, tallies[b].wins, tallies[b].losses, tallies[b].draws) == (2, 0, 1, 1)
    assert recompute(ignored) == {}


def test_bot_faults_are_rated_like_any_loss():
    a, b = BOTS[0], BOTS[1]
    timeout = recompute([result(1, a, b, 2, Termination.TIMEOUT)])
    assert timeout == recompute([result(1, a, b, 2)])


def _five_bot_ladder(seed: int, games: int, lopsided: bool) -> dict[int, RatingTally]:
    """Five new bots on a new ladder, random pairings: the tallies after ``games`` games.
    ``lopsided``: the stronger bot always wins (greedy against random bots do, in Torrent);
    otherwise strengths 0.75 apart (Bradley-Terry units) and 10% draws."""
    rng = random.Random(seed)
    tallies = {k: RatingTally(initial_rating()) for k in range(5)}
    for _ in range(games):
        i, j = rng.sample(range(5), 2)
        if lopsided:
            winner: Winner = 1 if i < j else 2
        else:
            u = rng.random()
            winner = None if u < 0.1 else 1 if u < 0.1 + 0.9 / (1.0 + math.exp(0.75 * (i - j))) else 2
        tallies[i], tallies[j] = tally_game(tallies[i], tallies[j], winner)
    return tallies


@pytest.mark.parametrize("lopsided", [True, False], ids=["lopsided", "close"])
def test_on_a_five_bot_ladder_ratings_are_established_after_the_documented_games(lopsided):
    """The docs say: provisional (`?`) until 20 rated games. A sigma threshold of 4 did not hold
    that on a small ladder (sigma 4.58 after 224 games with 5 bots in one try): check the rule
    does, on five new bots."""
    for seed in range(5):
        for total in (20, 60, 200):
            for tally in _five_bot_ladder(seed, total, lopsided).values():
                assert tally.provisional == (tally.games < PROVISIONAL_GAMES), (seed, total, tally)
    # The sigma of such a ladder says little: after 90-odd games each, still above the old 4.0.
    if lopsided:
        assert max(t.rating.sigma for t in _five_bot_ladder(1, 224, True).values()) > 4.0


def test_is_provisional_is_fewer_than_the_games():
    assert PROVISIONAL_GAMES == 20
    assert is_provisional(PROVISIONAL_GAMES - 1) and not is_provisional(PROVISIONAL_GAMES)
    assert RatingTally(Rating(10.0, 1.0)).provisional is True
    assert RatingTally(Rating(10.0, 8.0), games=PROVISIONAL_GAMES).provisional is False


# --- a bot's new version -------------------------------------------------------------------------
def test_a_new_version_starts_from_the_bots_previous_version_less_sure():
    old, new, rival = BotVersion("ann", "1"), BotVersion("ann", "2"), BotVersion("ben", "b")
    history = [result(n, old, rival, 1) for n in range(1, 6)]
    before = recompute(history)
    tallies = recompute([*history, result(6, rival, new, 2)])
    start = carried_tally(before[old])
    assert start.rating.mu == before[old].rating.mu
    assert start.rating.sigma == min(INITIAL_SIGMA, math.hypot(before[old].rating.sigma, NEW_VERSION_SIGMA))
    assert start.games == 0
    _, expected = tally_game(before[rival], start, 2)
    assert tallies[new] == expected and tallies[new].games == 1
    assert tallies[old] == before[old]  # the old version keeps its own line
    # Far above the initial rating, as the old version stood: not reset to 25.
    assert tallies[new].rating.mu > rate(initial_rating(), before[rival].rating, 2)[1].mu + 1


def test_a_carried_sigma_never_exceeds_the_initial_one():
    assert carried_tally(initial_tally()).rating.sigma == INITIAL_SIGMA
    sure = RatingTally(Rating(30.0, 1.0), games=200)
    assert carried_tally(sure).rating.sigma == pytest.approx(math.hypot(1.0, NEW_VERSION_SIGMA))


def test_an_old_version_played_again_goes_on_from_its_own_rating():
    one, two, rival = BotVersion("ann", "1"), BotVersion("ann", "2"), BotVersion("ben", "b")
    history = [result(1, one, rival, 1), result(2, rival, two, 1), result(3, rival, two, 1)]
    before = recompute(history)
    after = recompute([*history, result(4, one, rival, 2)])
    expected, _ = tally_game(before[one], before[rival], 2)
    assert after[one] == expected


def test_live_steps_with_the_latest_versions_equal_the_replay():
    rng = random.Random(7)
    versions = [BotVersion(f"bot{k % 4}", f"v{k}") for k in range(12)]
    results = []
    for n in range(1, 300):
        a, b = rng.sample(versions, 2)
        results.append(result(n, a, b, rng.choice([1, 2, None])))
    tallies: dict[BotVersion, RatingTally] = {}
    latest: dict[str, BotVersion] = {}
    for r in results:
        tallies.update(apply_result(tallies, r, latest))
    assert dict(sorted(tallies.items())) == recompute(reversed(results))
