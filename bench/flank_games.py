"""Play N random Torrent-7 games as the arbiter does, for bench/flank_instructions.sh.

python bench/flank_games.py N apply|observe

``apply``: list the legal actions and apply a random placement (passing only when no point is
free) until the game ends. ``observe``: the same, plus the observation of the seat to move after
every action (what the arbiter builds for each Turn: board text, events and the scores with
their territory count). Prints the number of plies.
"""

from __future__ import annotations

import random
import sys

import _common  # noqa: F401 - puts the project's code on the path
from arbiter_games.hexflank import PASS
from arbiter_games.torrent import TORRENT


def main() -> None:
    games, mode = int(sys.argv[1]), sys.argv[2]
    rng = random.Random(1)
    plies = 0
    for _ in range(games):
        state = TORRENT.new_game({"size": 7})
        while not state.over:
            legal = TORRENT.legal_actions(state)
            places = len(legal) - 2 if state.action_count > 1 else len(legal)
            action = legal[int(rng.random() * places)] if places > 0 else PASS
            state = TORRENT.apply(state, action)
            if mode == "observe" and not state.over:
                seat = TORRENT.to_move(state)
                assert seat is not None
                TORRENT.observe(state, seat)
            plies += 1
    print(plies)


if __name__ == "__main__":
    main()
