"""The short form of bench/faults.py: 12 matches, 120 disconnects, every invariant checked."""

import asyncio

from .disconnects import run_disconnects


def test_disconnects_at_random_points_lose_nothing():
    figures = asyncio.run(run_disconnects(matches=12, disconnects=120, concurrency=6, seed=7))
    assert figures.problems == []
    assert figures.matches == 12
    assert figures.stuck == 0
    assert figures.wrong_results == 0
    # The run did what it says: about 120 breaks of every kind, each followed by a reconnect.
    assert figures.total_disconnects >= 110
    assert figures.reconnects == figures.total_disconnects
    assert {"turn", "answered", "sending", "idle", "both", "reveal"} <= set(figures.disconnects)
    assert figures.same_turn_resumed >= figures.disconnects["turn"] > 0
    assert figures.turns_checked > 300
