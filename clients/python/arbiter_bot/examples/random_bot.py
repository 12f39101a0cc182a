"""A uniformly random legal action in any game; in Torrent/Fravan placements come before passing.

python -m arbiter_bot.examples.random_bot --server localhost:50051 --token TOKEN --game surge
"""

from __future__ import annotations

import random
import sys
from collections.abc import Sequence
from typing import Any

from arbiter_games.hexflank import Place

from ..bot import Bot, TurnContext
from ..cli import run_cli


class RandomBot(Bot):
    """Picks uniformly among the legal placements; passes (or swaps) only when it cannot place."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, observation: Any, legal: Sequence[Any], context: TurnContext) -> Any:
        places = [a for a in legal if isinstance(a, Place)]  # Surge's PlaceStone is not a Place
        return self.rng.choice(places or list(legal))


def make_bot(seed: int | None = None) -> Bot:
    return RandomBot(seed)


def main(argv: Sequence[str] | None = None) -> int:
    return run_cli(lambda options: RandomBot(options.seed), argv, description=__doc__)


if __name__ == "__main__":
    sys.exit(main())
