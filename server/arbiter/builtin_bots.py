"""Built-in bots for demos and the local runner: they see only observations and legal actions."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, Protocol

from .engines.hexflank import FlankObservation, FlankRules, Place, state_from_observation


class BuiltinBot(Protocol):
    def choose(self, observation: Any, legal: Sequence[Any]) -> Any: ...


class RandomBot:
    """A uniformly random legal action; placements preferred over passing in Torrent/Fravan."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, observation: Any, legal: Sequence[Any]) -> Any:
        places = [a for a in legal if isinstance(a, Place)]
        return self.rng.choice(places or list(legal))


class GreedyFlankBot:
    """One ply of look-ahead: the placement (or pass) that leaves the best score margin."""

    def __init__(self, rules: FlankRules, seed: int | None = None) -> None:
        self.rules = rules
        self.rng = random.Random(seed)

    def choose(self, observation: FlankObservation, legal: Sequence[Any]) -> Any:
        rules = self.rules
        state = state_from_observation(rules, observation)
        me = observation.colour
        best: list[Any] = []
        best_margin = None
        for action in legal:
            after = rules.apply(state, action)
            scores = rules.scores(after)
            if after.colour_of(observation.seat) != me:  # a swap changes our colour
                me_after = after.colour_of(observation.seat)
            else:
                me_after = me
            margin = scores[me_after] - sum(v for k, v in scores.items() if k != me_after)
            if best_margin is None or margin > best_margin:
                best_margin, best = margin, [action]
            elif margin == best_margin:
                best.append(action)
        return self.rng.choice(best)


class GreedySurgeBot:
    """Follows the rules' tips cheaply: biggest stone first, on the front home row, in busy columns."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, observation: Any, legal: Sequence[Any]) -> Any:
        places = [a for a in legal if hasattr(a, "value")]
        if not places:
            return legal[0]
        front_row = "2" if getattr(observation, "colour", "blue") == "blue" else "7"
        top = max(a.value for a in places)
        best = [a for a in places if a.value == top]
        front = [a for a in best if a.square.endswith(front_row)]
        return self.rng.choice(front or best)


def make_bot(name: str, rules: Any, seed: int | None = None) -> BuiltinBot:
    """A built-in bot by name: ``random`` or ``greedy``."""
    if name == "random":
        return RandomBot(seed)
    if name == "greedy":
        if isinstance(rules, FlankRules):
            return GreedyFlankBot(rules, seed)
        return GreedySurgeBot(seed)
    raise ValueError(f"unknown built-in bot {name!r}; choose 'random' or 'greedy'")
