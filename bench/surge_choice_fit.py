"""How ``surge_tips`` chooses which stone to place: the fit behind ``surge_model.BETA`` (docs/bots.md).

python bench/surge_choice_fit.py [GAMES]

Plays GAMES games (default 30) of ``surge_tips`` against itself offline, records every placement
with the hand it was chosen from, and prints how often the placed value was the biggest in hand
and the mean log-likelihood of the choices under the opponent model's softmax over the hand's
values, ``exp(beta * v) / sum(exp(beta * x) for x in hand)``, for several ``beta``.
"""

from __future__ import annotations

import hashlib
import math
import sys

import _common  # noqa: F401 - puts the project's code on the path
from arbiter_bot.bot import TurnContext
from arbiter_bot.examples.surge_tips import SurgeTipsBot
from arbiter_games.surge import SURGE, PlaceStone

BETAS = (0.3, 0.5, 0.7, 1.0, 1.5, 2.0, 3.0)


def choices(games: int) -> list[tuple[tuple[int, ...], int]]:
    """(hand, value placed) at every decision of ``games`` self-play games."""
    out = []
    for number in range(games):
        state = SURGE.new_game({}, hashlib.sha256(b"b%d" % number).digest())
        bots = {1: SurgeTipsBot(number), 2: SurgeTipsBot(number + 1000)}
        while SURGE.outcome(state) is None:
            seat = SURGE.to_move(state)
            assert seat is not None
            legal = SURGE.legal_actions(state)
            if not SURGE.can_place(state):
                SURGE.apply_in_place(state, legal[0])
                continue
            obs = SURGE.observe(state, seat)
            context = TurnContext("m", 1, "surge", {}, seat, obs.colour, "x", {1: None, 2: None}, None)
            action = bots[seat].choose(obs, legal, context)
            assert isinstance(action, PlaceStone)
            out.append((obs.hand, action.value))
            SURGE.apply_in_place(state, action)
    return out


def main() -> None:
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 30
    seen = choices(games)
    biggest = sum(value == max(hand) for hand, value in seen) / len(seen)
    print(f"{len(seen)} decisions; the biggest value in hand placed {100 * biggest:.1f}% of the time")
    for beta in BETAS:
        total = sum(beta * value - math.log(sum(math.exp(beta * x) for x in hand)) for hand, value in seen)
        print(f"beta {beta}: mean log-likelihood {total / len(seen):.4f}")


if __name__ == "__main__":
    main()
