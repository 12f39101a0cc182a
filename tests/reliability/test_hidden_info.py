"""The short form of bench/hidden_info.py: 150 pairs (300 Surge matches) over real connections."""

import asyncio
import random

from arbiter_games.surge import BLUE, draw_order

from .hidden_info import run_hidden, twin_order


def test_twin_orders_differ_only_from_their_cut_on():
    rng = random.Random(3)
    for _ in range(200):
        order = draw_order(rng.randbytes(32), BLUE)
        twin, k = twin_order(order, rng)
        assert sorted(twin) == sorted(order)
        assert twin[:k] == order[:k]
        assert twin[k] != order[k]


def test_what_a_seat_receives_before_the_reveal_does_not_depend_on_the_opponents_hidden_stones():
    figures = asyncio.run(run_hidden(pairs=150, concurrency=6, seed=5))
    assert figures.problems == []
    assert figures.leaks == 0
    assert figures.pairs == 150
    # Not vacuous: many turns were compared while an opponent stone lay face down, and the twins'
    # streams do differ after the cutoff whenever the opponent's placements differed.
    assert figures.face_down_turns > 150
    assert figures.compared > 3 * figures.pairs
    assert figures.pairs_diverging > 100
    assert figures.differ_after_cutoff == figures.pairs_diverging
