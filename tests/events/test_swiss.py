"""Swiss pairing: its properties over many random result sequences on 4, 7 and 16 entrants, and
hand-made rounds (the first round's halves, the bye's place, the seats)."""

from __future__ import annotations

import random

import networkx as nx
import pytest
from arbiter.events import swiss
from arbiter.events.model import FINISHED, Format, Game, History, Pairing, Round
from arbiter.events.tally import Tally, tally
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.events.helpers import bots, config, perfect_matchings, played

BYE = "(bye)"


def _pairable(entrants, history, clean_seats: bool, seat_net: int):
    """Whether ``entrants`` can be paired (a bye node for an odd field) with no rematch and no
    second bye (and, ``clean_seats``, no seat balance going past one): the oracle, by networkx's
    plain maximum matching (small fields: every matching, by brute force)."""
    accounts = tally(entrants, history, 1.0)
    nodes = list(entrants) + ([BYE] if len(entrants) % 2 else [])

    def allowed(a, b):
        if BYE in (a, b):
            return accounts[a if b == BYE else b].byes == 0
        if b in accounts[a].opponents:
            return False
        return not (clean_seats and _seat_break(accounts[a].seat_balance, accounts[b].seat_balance, seat_net))

    if len(nodes) <= 8:
        return any(True for _ in perfect_matchings(nodes, allowed))
    graph = nx.Graph()
    graph.add_nodes_from(nodes)
    graph.add_edges_from((a, b) for i, a in enumerate(nodes) for b in nodes[i + 1 :] if allowed(a, b))
    return 2 * len(nx.max_weight_matching(graph, maxcardinality=True)) == len(nodes)


def _seat_break(first: int, second: int, net: int) -> bool:
    """Some bot's |seat balance| grows past one, however the two are seated."""
    low, high = sorted((first, second))
    return (abs(low + net) > 1 and abs(low + net) > abs(low)) or (
        abs(high - net) > 1 and abs(high - net) > abs(high)
    )


def _score_cost(entrants, history, made: Round) -> tuple[int, int]:
    """(the bye's score, the sum of the pairs' squared score differences times the higher
    score's level), in half points, as docs/events.md counts them."""
    accounts = tally(entrants, history, 1.0)
    doubled = {bot: round(2 * accounts[bot].score) for bot in entrants}
    lowest = min(doubled.values())
    bye = doubled[made.byes[0]] if made.byes else 0
    return bye, sum(
        (doubled[p.seat_1] - doubled[p.seat_2]) ** 2
        * (1 + max(doubled[p.seat_1], doubled[p.seat_2]) - lowest)
        for p in made.pairings
    )


def _best_score_cost(entrants, history) -> tuple[int, int] | None:
    """The least (bye score, squared differences) over every clean pairing (brute force)."""
    accounts = tally(entrants, history, 1.0)
    nodes = list(entrants) + ([BYE] if len(entrants) % 2 else [])

    def allowed(a, b):
        if BYE in (a, b):
            return accounts[a if b == BYE else b].byes == 0
        return b not in accounts[a].opponents and not _seat_break(
            accounts[a].seat_balance, accounts[b].seat_balance, 1
        )

    best = None
    for matching in perfect_matchings(nodes, allowed):
        byes = tuple(a if b == BYE else b for a, b in matching if BYE in (a, b))
        pairings = tuple(Pairing(a, b) for a, b in matching if BYE not in (a, b))
        cost = _score_cost(entrants, history, Round(0, pairings, byes))
        best = cost if best is None or cost < best else best
    return best


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    count=st.sampled_from([4, 7, 16]),
    games_per_pairing=st.sampled_from([1, 1, 1, 2]),
    seed=st.integers(0, 2**32 - 1),
    draws=st.sampled_from([0.0, 0.3]),
)
def test_swiss_properties_over_random_results(count, games_per_pairing, seed, draws):
    """Every round: each bot once; a rematch or a second bye only when every pairing of the round
    needs one; seats within one either way whenever a pairing keeps them so; on small fields the
    score groups as well as any pairing of the round keeps them."""
    entrants = bots(count)
    rounds = {4: 3, 7: 6, 16: 7}[count]
    seat_net = games_per_pairing % 2
    chance = random.Random(seed)

    def decide(first, second):
        roll = chance.random()
        return None if roll < draws else 1 if roll < (1 + draws) / 2 else 2

    history = History()
    for _ in range(rounds):
        made = swiss.next_round(entrants, history, rounds, games_per_pairing)
        assert isinstance(made, Round)
        seen = list(made.bots())
        assert sorted(seen) == sorted(entrants)  # each bot exactly once
        assert len(made.byes) == count % 2
        accounts = tally(entrants, history, 1.0)
        repeats: list[tuple[str, ...]] = [
            p.bots for p in made.pairings if p.seat_2 in accounts[p.seat_1].opponents
        ]
        repeats += [(bot,) for bot in made.byes if accounts[bot].byes]
        if repeats:
            assert not _pairable(entrants, history, clean_seats=False, seat_net=seat_net), repeats
        else:
            broken = [
                p
                for p in made.pairings
                if _seat_break(accounts[p.seat_1].seat_balance, accounts[p.seat_2].seat_balance, seat_net)
            ]
            if broken:
                assert not _pairable(entrants, history, clean_seats=True, seat_net=seat_net), broken
            # Seat 1 of the pairing goes to the bot with fewer games there.
            for p in made.pairings:
                assert accounts[p.seat_1].seat_balance <= accounts[p.seat_2].seat_balance
            if count <= 8 and games_per_pairing == 1 and not broken:
                assert _score_cost(entrants, history, made) == _best_score_cost(entrants, history)
        history = played(history, made, decide, games_per_pairing)
    assert swiss.next_round(entrants, history, rounds, games_per_pairing) is FINISHED


@pytest.mark.parametrize("count", [4, 7, 16])
def test_no_rematch_no_second_bye_and_seats_within_one_on_a_long_run(count):
    """A fixed run of random results: the hard rules are kept outright (no pairing needs to break
    them here): 3 rounds of 4 bots (everyone meets everyone), 5 of 7, 9 of 16."""
    entrants = bots(count)
    rounds = {4: 3, 7: 5, 16: 9}[count]
    chance = random.Random(count)
    history = History()
    for _ in range(rounds):
        made = swiss.next_round(entrants, history, rounds)
        assert isinstance(made, Round)
        history = played(history, made, lambda a, b: chance.choice([1, 2, None]))
    met = [frozenset(p.bots) for _, _, p in history.pairings()]
    assert len(met) == len(set(met))
    accounts = tally(entrants, history, 1.0)
    assert all(account.byes <= 1 for account in accounts.values())
    assert all(abs(account.seat_balance) <= 1 for account in accounts.values())


def test_round_one_pairs_the_top_half_with_the_bottom_half():
    made = swiss.next_round(bots(8), History(), 3)
    assert made == Round(
        1,
        (Pairing("b01", "b05"), Pairing("b02", "b06"), Pairing("b03", "b07"), Pairing("b04", "b08")),
    )


def test_the_bye_goes_to_the_lowest_score_and_once_only():
    entrants = bots(5)
    history = History()
    first = swiss.next_round(entrants, history, 4)
    assert isinstance(first, Round)
    # Round 1: b01-b03, b02-b04, and the last seed, b05, sits out.
    assert first.byes == ("b05",)
    history = played(history, first, lambda a, b: 1)  # seat 1 wins: b01 and b02 on 1 point
    second = swiss.next_round(entrants, history, 4)
    assert isinstance(second, Round)
    # b03 and b04 have 0 points: the bye goes to one of them, not again to b05 (1 point).
    assert second.byes in (("b03",), ("b04",))


def test_a_rematch_happens_only_when_every_pairing_needs_one():
    """Four bots after three rounds have met everyone: round 4 has to repeat a pairing."""
    entrants = bots(4)
    history = History()
    for _ in range(3):
        made = swiss.next_round(entrants, history, 4)
        assert isinstance(made, Round)
        history = played(history, made, lambda a, b: None)
    assert len({frozenset(p.bots) for _, _, p in history.pairings()}) == 6
    fourth = swiss.next_round(entrants, history, 4)
    assert isinstance(fourth, Round)
    assert len(fourth.pairings) == 2 and sorted(fourth.bots()) == entrants


def test_withdrawn_bots_are_paired_no_more():
    entrants = bots(6)
    made = swiss.next_round(entrants, History(), 3, withdrawn={"b02"})
    assert isinstance(made, Round)
    assert "b02" not in set(made.bots()) and len(made.byes) == 1


def test_seat_one_goes_to_the_bot_that_had_seat_two():
    """b01 sat in seat 1 in round 1, b04 in seat 2: when they meet, b04 takes seat 1."""
    history = History(
        (Round(1, (Pairing("b01", "b02"), Pairing("b03", "b04"))),),
        {(1, 1): (Game("b01", "b02", 1),), (1, 2): (Game("b03", "b04", 2),)},
    )
    made = swiss.next_round(bots(4), history, 3)
    assert isinstance(made, Round)
    # Winners b01 (seat 1) and b04 (seat 2) meet, losers b02 (seat 2) and b03 (seat 1) meet.
    assert set(made.pairings) == {Pairing("b04", "b01"), Pairing("b02", "b03")}


def test_default_rounds_and_the_event_config():
    assert [swiss.default_rounds(n) for n in (2, 4, 7, 16, 17, 256)] == [1, 2, 3, 4, 5, 8]
    assert config(Format.SWISS, rounds=5).rounds == 5


def test_score_differences_come_before_closeness_in_the_order():
    """Order A(1½) B(1) C(1) D(½) E(0) F(0), B-F, A-E and C-D having met: the pairs nearest in the
    order would be A-B, C-E, D-F (squared differences 1 + 4 + 1, in half points); the score tier
    takes A-C, B-D, E-F (1 + 1 + 0)."""
    scores = {"B": 1.0, "E": 0.0, "A": 1.5, "F": 0.0, "D": 0.5, "C": 1.0}
    met = {"B": ["F"], "F": ["B"], "E": ["A"], "A": ["E"], "D": ["C"], "C": ["D"]}
    accounts = {bot: Tally(score=score, opponents=met[bot]) for bot, score in scores.items()}
    order = swiss.pairing_order(list(scores), accounts)
    assert order == ["A", "B", "C", "D", "E", "F"]
    made = swiss.pair_round(1, order, accounts, seat_net=0)
    assert made.pairings == (Pairing("A", "C"), Pairing("B", "D"), Pairing("E", "F"))
