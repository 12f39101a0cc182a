"""Play N random Surge games (the engine benchmark's workload), for bench/surge_instructions.sh.

python bench/surge_games.py N apply|inplace
"""

from __future__ import annotations

import random
import sys

import _common  # noqa: F401 - puts server/ on the path
from arbiter_games.surge import SURGE


def main() -> None:
    games, mode = int(sys.argv[1]), sys.argv[2]
    rng = random.Random(5)
    for _ in range(games):
        state = SURGE.new_game(None, rng.randbytes(32))
        while SURGE.outcome(state) is None:
            legal = SURGE.legal_actions(state)
            action = legal[int(rng.random() * len(legal))]
            if mode == "inplace":
                SURGE.apply_in_place(state, action)
            else:
                state = SURGE.apply(state, action)


if __name__ == "__main__":
    main()
