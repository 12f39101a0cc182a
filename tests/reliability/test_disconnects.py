"""The short form of bench/faults.py: 10 matches, 100 disconnects, every invariant checked."""

import asyncio

from .disconnects import run_disconnects


def test_disconnects_at_random_points_lose_nothing():
    figures = asyncio.run(run_disconnects(matches=10, disconnects=100, concurrency=5, seed=7))
    assert figures.problems == []
    assert figures.matches == 10
    assert figures.stuck == 0
    assert figures.wrong_results == 0
    # The run did what it says: about 100 breaks of every kind, each followed by a reconnect.
    assert figures.total_disconnects >= 95
    assert figures.reconnects == figures.total_disconnects
    assert {"turn", "answered", "sending", "idle", "both", "reveal"} <= set(figures.disconnects)
    assert figures.same_turn_resumed >= figures.disconnects["turn"] > 0
    assert figures.turns_checked > 300
