"""Positions from real games for the SDK tests: every state a random game passes through."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from arbiter_games import get_game
from arbiter_games.surge import SKIP

FLANK_GAMES = [("torrent", 5), ("torrent", 6), ("torrent", 7), ("torrent", 9), ("fravan", 5), ("fravan", 7)]


def random_game(game: str, options: dict[str, Any], seed: int) -> Iterator[tuple[Any, Any]]:
    """(rules, state) for every state of one random game, the final one included."""
    rng = random.Random(seed)
    rules = get_game(game)
    state = rules.new_game(options, seed=rng.randbytes(32)) if game == "surge" else rules.new_game(options)
    while True:
        yield rules, state
        if rules.outcome(state) is not None:
            return
        legal = rules.legal_actions(state)
        places = [a for a in legal if hasattr(a, "point") or hasattr(a, "value")]
        # Mostly placements, sometimes a pass or swap, so every kind of position shows up.
        action = rng.choice(legal) if rng.random() < 0.1 or not places else rng.choice(places)
        state = rules.apply(state, action)


def decision_points(game: str, options: dict[str, Any], seed: int) -> Iterator[tuple[Any, Any, list[Any]]]:
    """(rules, state, legal) wherever a bot would be asked (Surge skips are the arbiter's)."""
    for rules, state in random_game(game, options, seed):
        legal = list(rules.legal_actions(state))
        if not legal or legal == [SKIP]:
            continue
        yield rules, state, legal
