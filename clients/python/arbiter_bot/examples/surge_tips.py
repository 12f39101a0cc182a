"""A Surge Stones bot that follows the tips at the end of the rules page (docs/rules/surge-stones.md).

    python -m arbiter_bot.examples.surge_tips --server localhost:50051 --token TOKEN --game surge

The tips: place big stones early; fight only fights you can win, and win them big; place on the
front home row; concentrate stones in a few columns; when placing first back up your own lines,
when placing second answer the opponent's placement. Each candidate placement gets points for each
tip it follows, plus a short look-ahead: the board is surged a few times with no further
placements (the engine's own ``surge_step``) to see which fights the stone would win or lose.
Measure it offline: ``python -m arbiter_bot.local --game surge --bot1 surge_tips --bot2 random_bot``.
"""

from __future__ import annotations

import random
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from arbiter_games.surge import STONES, PlaceStone, SurgeObservation, surge_step

from ..bot import Bot, TurnContext
from ..cli import run_cli

FILES = "abcdefgh"


@dataclass(frozen=True)
class Weights:
    """How much each tip counts (points per unit)."""

    value: float = 1.0  # big stones early: per point of the stone's value
    front_row: float = 4.0  # on the front home row
    column_stones: float = 2.0  # per own stone already in the column (concentrate)
    new_column: float = -3.0  # opening a column with no own stone
    back_up: float = 6.0  # placing first: right behind an own stone (extends a line)
    answer: float = 6.0  # placing second: in the column of the opponent's face-down stone
    answer_value: float = 0.6  # ... per point of value there
    forecast: float = 3.0  # per point of score margin won in the look-ahead
    material: float = 0.3  # per point of own stones lost (minus enemy stones lost) in the look-ahead
    horizon: int = 4  # surges in the look-ahead


class SurgeTipsBot(Bot):
    """Scores every legal placement by the tips and a short look-ahead; plays the best one."""

    name = "surge-tips"

    def __init__(self, seed: int | None = None, weights: Weights | None = None) -> None:
        self.rng = random.Random(seed)
        self.weights = weights or Weights()

    def choose(self, observation: Any, legal: Sequence[Any], context: TurnContext) -> Any:
        places = [a for a in legal if isinstance(a, PlaceStone)]
        if not places or not isinstance(observation, SurgeObservation):
            return self.rng.choice(list(legal))
        position = Position(observation, self.weights)
        best: list[PlaceStone] = []
        best_score = float("-inf")
        for action in places:
            score = position.score(action, self.weights)
            if score > best_score + 1e-9:
                best, best_score = [action], score
            elif abs(score - best_score) <= 1e-9:
                best.append(action)
        return self.rng.choice(best)


class Position:
    """The board of an observation in the engine's column form, from the observing seat's side."""

    def __init__(self, obs: SurgeObservation, weights: Weights) -> None:
        self.obs = obs
        self.horizon = weights.horizon
        self.blue = obs.colour == "blue"
        self.sign = 1 if self.blue else -1
        # Rows in "my" orientation: 0 my back row, 1 my front home row, ... 7 the enemy's back row.
        self.back_row, self.front_row = (0, 1) if self.blue else (7, 6)
        self.step = 1 if self.blue else -1
        cols = [[0] * 8 for _ in range(8)]
        enemy_pool = Counter(STONES)
        enemy = "orange" if self.blue else "blue"
        for square, colour, value in obs.face_up:
            c, r = _cr(square)
            cols[c][r] = value if colour == "blue" else -value
            if colour == enemy:
                enemy_pool[value] -= 1
        enemy_pool.subtract(obs.removed_orange if self.blue else obs.removed_blue)
        pool = list(enemy_pool.elements())
        #: What the opponent's hidden stone is worth on average.
        self.enemy_guess = round(sum(pool) / len(pool)) if pool else 5
        self.enemy_down: str | None = None
        for square, colour, hidden in obs.face_down:
            c, r = _cr(square)
            value = hidden or 0
            if colour == enemy:
                self.enemy_down = square
                value = self.enemy_guess
            cols[c][r] = value if colour == "blue" else -value
        self.cols = cols
        self.placing_first = obs.first_placer == obs.colour
        self.base = self._forecast(cols)

    def _forecast(self, cols: list[list[int]]) -> tuple[int, int]:
        """(my score minus theirs, my stone value on board minus theirs) after the look-ahead."""
        board: Any = cols
        margin = 0
        for _ in range(self.horizon):
            board, scored = surge_step(board)
            margin += scored["blue"] - scored["orange"]
        material = sum(v for col in board for v in col)
        return margin * self.sign, material * self.sign

    def score(self, action: PlaceStone, w: Weights) -> float:
        c, r = _cr(action.square)
        v = action.value
        col = self.cols[c]
        mine = sum(1 for x in col if x * self.sign > 0)
        total = w.value * v
        if r == self.front_row:
            total += w.front_row
        total += w.column_stones * mine if mine else w.new_column
        ahead = r + self.step
        if self.placing_first and col[ahead] * self.sign > 0:
            total += w.back_up
        if not self.placing_first and self.enemy_down and _cr(self.enemy_down)[0] == c:
            total += w.answer + w.answer_value * v
        cols = [list(x) for x in self.cols]
        cols[c][r] = v * self.sign
        margin, material = self._forecast(cols)
        base_margin, base_material = self.base
        total += w.forecast * (margin - base_margin)
        total += w.material * (material - base_material - v)
        return total


def _cr(square: str) -> tuple[int, int]:
    return FILES.index(square[0]), int(square[1:]) - 1


def make_bot(seed: int | None = None) -> Bot:
    return SurgeTipsBot(seed)


def main(argv: Sequence[str] | None = None) -> int:
    return run_cli(lambda options: SurgeTipsBot(options.seed), argv, description=__doc__, games=("surge",))


if __name__ == "__main__":
    sys.exit(main())
