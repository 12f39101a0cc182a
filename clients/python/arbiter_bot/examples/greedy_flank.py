"""A one-ply greedy Torrent/Fravan bot: the action that leaves the best score margin.

    python -m arbiter_bot.examples.greedy_flank --server localhost:50051 --token TOKEN --game fravan

It rebuilds the position with ``hexflank.state_from_observation``, tries every legal placement
with the engine, and keeps the best margin (own stones plus territory minus the opponent's).
Passing keeps the margin as it is, except that a pass right after the opponent's pass ends the
game: the bot takes that when it wins and never when it loses. A swap is judged like a move (the
first stone becomes ours). Ties are broken at random.
"""

from __future__ import annotations

import math
import random
import sys
from collections.abc import Sequence
from typing import Any

from arbiter_games.fravan import FRAVAN
from arbiter_games.hexflank import PASS, SWAP, FlankObservation, FlankRules, Place, state_from_observation
from arbiter_games.torrent import TORRENT

from ..bot import Bot, TurnContext
from ..cli import run_cli

WIN = 10_000.0  # the value of ending the game as the winner (and minus it for ending it as the loser)


class GreedyFlankBot(Bot):
    """One ply of look-ahead on the score margin, for Torrent and Fravan."""

    name = "greedy-flank"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def evaluate(self, observation: FlankObservation, legal: Sequence[Any]) -> dict[Any, float]:
        """The value of each legal action for the observing seat (larger is better)."""
        rules: FlankRules = FRAVAN if observation.game == FRAVAN.name else TORRENT
        state = state_from_observation(rules, observation)
        seat = observation.seat
        values: dict[Any, float] = {}
        for action in legal:
            if action == PASS:
                values[action] = self._pass_value(observation)
                continue
            if not isinstance(action, Place) and action != SWAP:
                continue
            after = rules.apply(state, action)
            scores = rules.scores(after)
            me = after.colour_of(seat)
            values[action] = float(scores[me] - sum(v for k, v in scores.items() if k != me))
        return values

    @staticmethod
    def _pass_value(observation: FlankObservation) -> float:
        scores = observation.score_by_colour
        me = observation.colour
        margin = scores[me] - sum(v for k, v in scores.items() if k != me)
        if observation.last_action != "pass":
            return float(margin)
        # Our pass would be the second in a row: the game ends now. Equal scores: the first passer of the
        # game wins (set by now: the opponent just passed, if nobody did before).
        if margin == 0:
            return WIN if observation.first_pass_colour == me else -WIN
        return WIN if margin > 0 else -WIN

    def choose(self, observation: Any, legal: Sequence[Any], context: TurnContext) -> Any:
        if not isinstance(observation, FlankObservation):
            return self.rng.choice(list(legal))
        values = self.evaluate(observation, legal)
        if not values:
            return self.rng.choice(list(legal))
        top = max(values.values())
        best = [a for a, v in values.items() if math.isclose(v, top)]
        placements = [a for a in best if isinstance(a, Place)]
        # Among equal margins prefer placing: passing early hands the opponent the tempo.
        return self.rng.choice(placements or best)


def make_bot(seed: int | None = None) -> Bot:
    return GreedyFlankBot(seed)


def main(argv: Sequence[str] | None = None) -> int:
    return run_cli(
        lambda options: GreedyFlankBot(options.seed), argv, description=__doc__, games=("torrent", "fravan")
    )


if __name__ == "__main__":
    sys.exit(main())
