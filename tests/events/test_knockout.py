"""Knockout: the seeded bracket with byes to the top seeds (4, 6, 7 and 16 entrants), a pairing
decided by its games, the tie-break games and their cap, then the higher seed."""

from __future__ import annotations

import pytest
from arbiter.events import knockout
from arbiter.events.model import FINISHED, Game, History, Pairing, ResultKind, Round

from tests.events.helpers import bots, higher_wins, played


def _run(seeds, decide, games_per_pairing=1):
    history = History()
    while isinstance(made := knockout.next_round(seeds, history, games_per_pairing), Round):
        history = played(history, made, decide, games_per_pairing)
    return history


def test_bracket_order_keeps_the_top_seeds_apart():
    assert knockout.bracket_seeds(4) == [1, 4, 2, 3]
    assert knockout.bracket_seeds(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    assert [knockout.rounds_of(n) for n in (2, 4, 6, 7, 16, 17)] == [1, 2, 3, 3, 4, 5]


def test_a_knockout_of_6_gives_the_top_two_seeds_a_bye():
    seeds = ["A", "B", "C", "D", "E", "F"]
    history = _run(seeds, higher_wins(seeds))
    first, second, final = history.rounds
    # 8 places: 1-8, 4-5, 2-7, 3-6; seeds 7 and 8 are missing, so A and B pass round 1.
    assert first == Round(1, (Pairing("D", "E"), Pairing("C", "F")), ("A", "B"))
    assert second == Round(2, (Pairing("A", "D"), Pairing("B", "C")))
    assert final == Round(3, (Pairing("A", "B"),))


@pytest.mark.parametrize("count", [4, 7, 16])
def test_each_round_halves_the_field_and_the_top_seed_wins_when_the_higher_seed_always_does(count):
    seeds = bots(count)
    history = _run(seeds, higher_wins(seeds))
    assert len(history.rounds) == knockout.rounds_of(count)
    first = history.rounds[0]
    size = knockout.bracket_size(count)
    assert first.byes == tuple(seeds[: size - count])  # byes to the top seeds
    for made in history.rounds:
        assert len(set(made.bots())) == len(list(made.bots()))  # nobody twice in a round
        for pairing in made.pairings:
            assert seeds.index(pairing.seat_1) < seeds.index(pairing.seat_2)  # higher seed in seat 1
    assert knockout.survivors(seeds, history, 1, False) == [seeds[0]]
    final = history.rounds[-1]
    assert final.pairings == (Pairing(seeds[0], seeds[1]),)


def test_the_lower_seed_goes_through_when_it_wins():
    seeds = bots(4)
    history = _run(seeds, lambda first, second: 1 if "b04" in (first,) else 2 if second == "b04" else 1)
    assert knockout.survivors(seeds, history, 1, False) == ["b04"]


def test_a_pairing_plays_its_games_then_tie_break_games_then_the_higher_seed():
    pairing = Pairing("high", "low")

    def games(*winners):
        seats = knockout.next_games(pairing, [], 2, False) + [("high", "low"), ("low", "high")] * 3
        return [Game(a, b, w) for (a, b), w in zip(seats, winners, strict=False)]

    # Two games scheduled: seats alternate.
    assert knockout.next_games(pairing, [], 2, False) == [("high", "low"), ("low", "high")]
    assert knockout.advancer(pairing, games(2), 2, False) is None  # one game still to play
    assert knockout.advancer(pairing, games(2, 1), 2, False) == "low"  # low won both
    # 1-1: one tie-break game at a time, seats still alternating.
    level = games(1, 1)
    assert knockout.next_games(pairing, level, 2, False) == [("high", "low")]
    assert knockout.advancer(pairing, [*level, Game("high", "low", 2)], 2, False) == "low"
    # Draws in all three tie-break games: the higher seed goes through.
    drawn = [*level, *(Game(a, b, None) for a, b in [("high", "low"), ("low", "high"), ("high", "low")])]
    assert knockout.next_games(pairing, drawn, 2, False) == []
    assert knockout.advancer(pairing, drawn, 2, False) == "high"
    assert knockout.TIE_BREAK_GAMES == 3


def test_with_duplicate_pairs_a_tie_break_is_a_game_and_its_duplicate():
    pairing = Pairing("high", "low")
    scheduled = knockout.next_games(pairing, [], 1, True)
    assert scheduled == [("high", "low"), ("low", "high")]
    split = [Game("high", "low", 1), Game("low", "high", 1)]  # each won its seat-1 game
    assert knockout.next_games(pairing, split, 1, True) == [("low", "high"), ("high", "low")]
    # Half of a tie-break pair played: its duplicate is still due, whatever the score.
    assert knockout.next_games(pairing, [*split, Game("low", "high", 1)], 1, True) == [("high", "low")]


def test_a_no_show_loses_the_game():
    pairing = Pairing("high", "low")
    forfeited = [Game("high", "low", 2, ResultKind.NO_SHOW)]
    assert knockout.advancer(pairing, forfeited, 1, False) == "low"


def test_seeds_by_rating_or_entry_order():
    entrants = ["a", "b", "c", "d"]
    assert knockout.seed_order(entrants) == entrants
    assert knockout.seed_order(entrants, {"c": 30.0, "b": 10.0, "d": 30.0}) == ["c", "d", "b", "a"]


def test_an_undecided_round_is_refused_and_a_finished_bracket_is_finished():
    seeds = bots(4)
    made = knockout.next_round(seeds, History())
    assert isinstance(made, Round)
    with pytest.raises(ValueError, match="not decided"):
        knockout.next_round(seeds, History((made,), {}))
    assert knockout.next_round(["solo"], History()) is FINISHED
