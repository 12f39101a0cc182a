"""Round robin on Berger tables: the FIDE tables for 4 and 5 bots, every pair once per cycle,
each bot at most once a round, a bye a round for an odd field, the second cycle's seats swapped."""

from __future__ import annotations

from collections import Counter

import pytest
from arbiter.events import round_robin
from arbiter.events.model import FINISHED, Pairing, Round

from tests.events.helpers import bots


def _cycle(entrants, double=False):
    rounds = []
    number = 1
    while isinstance(made := round_robin.round_of(entrants, number, double), Round):
        rounds.append(made)
        number += 1
    return rounds


def test_the_berger_table_of_4_bots():
    assert round_robin.berger_table(4) == [[(1, 4), (2, 3)], [(4, 3), (1, 2)], [(2, 4), (3, 1)]]
    first, second, third = _cycle(["A", "B", "C", "D"])
    assert first == Round(1, (Pairing("A", "D"), Pairing("B", "C")))
    assert second == Round(2, (Pairing("D", "C"), Pairing("A", "B")))
    assert third == Round(3, (Pairing("B", "D"), Pairing("C", "A")))


def test_the_berger_table_of_5_bots_has_a_bye_each_round():
    """5 bots use the table of 6; the bot paired with 6 has the round's bye."""
    rounds = _cycle(["A", "B", "C", "D", "E"])
    assert [(r.pairings, r.byes) for r in rounds] == [
        ((Pairing("B", "E"), Pairing("C", "D")), ("A",)),
        ((Pairing("E", "C"), Pairing("A", "B")), ("D",)),
        ((Pairing("C", "A"), Pairing("D", "E")), ("B",)),
        ((Pairing("A", "D"), Pairing("B", "C")), ("E",)),
        ((Pairing("D", "B"), Pairing("E", "A")), ("C",)),
    ]


@pytest.mark.parametrize("count", [2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 17])
def test_every_pair_exactly_once_a_cycle_and_each_bot_once_a_round(count):
    entrants = bots(count)
    rounds = _cycle(entrants)
    assert len(rounds) == round_robin.cycle_length(count)
    for made in rounds:
        assert sorted(made.bots()) == entrants  # everyone once: playing or with the bye
        assert len(made.byes) == count % 2
    pairs = Counter(frozenset(p.bots) for made in rounds for p in made.pairings)
    assert set(pairs.values()) == {1}
    assert len(pairs) == count * (count - 1) // 2
    byes = Counter(bot for made in rounds for bot in made.byes)
    assert byes == (Counter(entrants) if count % 2 else Counter())
    seat_1 = Counter(p.seat_1 for made in rounds for p in made.pairings)
    seat_2 = Counter(p.seat_2 for made in rounds for p in made.pairings)
    assert all(abs(seat_1[bot] - seat_2[bot]) <= 1 for bot in entrants)  # Berger tables balance seats


@pytest.mark.parametrize("count", [4, 7, 16])
def test_the_double_round_robin_swaps_the_seats_in_its_second_cycle(count):
    entrants = bots(count)
    rounds = _cycle(entrants, double=True)
    length = round_robin.cycle_length(count)
    assert len(rounds) == 2 * length
    for first, second in zip(rounds[:length], rounds[length:], strict=True):
        assert second.number == first.number + length
        assert second.pairings == tuple(Pairing(p.seat_2, p.seat_1) for p in first.pairings)
        assert second.byes == first.byes
    seat_1 = Counter(p.seat_1 for made in rounds for p in made.pairings)
    seat_2 = Counter(p.seat_2 for made in rounds for p in made.pairings)
    assert seat_1 == seat_2  # each bot as often in seat 1 as in seat 2


def test_after_the_last_round_the_event_is_finished():
    assert round_robin.round_of(bots(4), 4, double=False) is FINISHED
    assert round_robin.round_of(bots(4), 7, double=True) is FINISHED
    assert round_robin.round_of(bots(1), 1, double=False) is FINISHED
