"""Iterations per CPU second of the search bots (docs/bots.md, "Speed").

python bench/search_bots.py [ROUNDS] [surge]

``mcts_flank``: one decision of a fixed number of iterations on Torrent and Fravan size-7
positions after 10, 30 and 60 random plies, once with the engine's territory as it is
(``incremental``: after a placement only the lines through the stones that changed are read again)
and once with a territory read afresh for every position (``afresh``: the engine's full count, as
before the territory became incremental). ``ismcts_surge``: one decision of a fixed number of
playouts on a Surge position after 8 random placements, in four variants: UCB at the root over
uniform guesses of the hidden stones (``ucb uniform``, the bot before its opponent model),
sequential halving over guesses from the opponent model with cheap playouts (``halving model``),
the same with the look-ahead for the first 4 moves of each playout (``halving model lookahead
4``), and the default (``default``: halving, the opponent model, the first placement of each side
in a playout by ``surge_tips``' own choice and the face-down stone fitted to it). The variants
alternate within each round, so that a change in the machine's load hits them alike. CPU seconds
(``process_time``) rather than wall time, for the same reason. With ``surge`` only the Surge part
runs.
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable
from typing import Any

import _common  # noqa: F401 - puts the project's code on the path
from arbiter_bot.bot import Bot, TurnContext
from arbiter_bot.examples import mcts_flank
from arbiter_bot.examples.ismcts_surge import IsmctsSurgeBot
from arbiter_bot.examples.mcts_flank import MctsFlankBot
from arbiter_games import get_game, hexflank
from arbiter_games.hexflank import FlankState, Territory
from arbiter_games.surge import SURGE

FLANK_ITERATIONS = 150
SURGE_ITERATIONS = 300
#: The Surge searches compared: UCB over uniform guesses (the bot before the opponent model),
#: halving over guesses from the opponent model with cheap playouts, the same with look-ahead
#: playouts, and the default (playouts starting with surge_tips' own choices).
CHEAP: dict[str, Any] = {"reply": 0, "own": 0, "down_tries": 0}
SURGE_VARIANTS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("ucb uniform", {"halving": False, "model": False, **CHEAP}),
    ("halving model", CHEAP),
    ("halving model lookahead 4", {"lookahead": 4, **CHEAP}),
    ("default", {}),
)


def afresh(state: FlankState) -> Territory:
    """The engine's territory read from the whole board, never derived from the one before."""
    territory = hexflank._territory_afresh(state)
    state.territory = territory
    state.territory_from = None
    return territory


def position(game: str, plies: int) -> tuple[Any, Any]:
    rules = get_game(game)
    rng = random.Random(1)
    state = rules.new_game({}, seed=bytes(32)) if game == "surge" else rules.new_game({"size": 7})
    for _ in range(plies):
        state = rules.apply(state, rng.choice(rules.legal_actions(state)))
    return rules, state


def rate(bot: Bot, game: str, plies: int, iterations: int) -> float:
    rules, state = position(game, plies)
    seat = rules.to_move(state)
    options: dict[str, Any] = {} if game == "surge" else {"size": 7}
    context = TurnContext("m", 1, game, options, seat, None, "x", {1: None, 2: None}, None)
    started = time.process_time()
    bot.choose(rules.observe(state, seat), rules.legal_actions(state), context)
    return iterations / (time.process_time() - started)


def rate_surge(bot: IsmctsSurgeBot, plies: int, iterations: int) -> float:
    """Playouts per CPU second of one decision after ``plies`` random placements; the bot is shown
    its seat's earlier observations first, as in a match, so that its opponent model follows them."""
    rng = random.Random(1)
    state = SURGE.new_game({}, seed=bytes(32))
    seat = None
    for ply in range(plies + 1):
        seat = SURGE.to_move(state)
        if bot.tracker is not None and seat is not None:
            bot.tracker.model("m", SURGE.observe(state, seat))
        if ply < plies:
            state = SURGE.apply(state, rng.choice(SURGE.legal_actions(state)))
    assert seat is not None
    context = TurnContext("m", 1, "surge", {}, seat, None, "x", {1: None, 2: None}, None)
    started = time.process_time()
    bot.choose(SURGE.observe(state, seat), SURGE.legal_actions(state), context)
    return iterations / (time.process_time() - started)


def with_territory(function: Callable[[FlankState], Territory]) -> None:
    setattr(hexflank, "_territory", function)  # noqa: B010 - replacing the engine's function
    setattr(mcts_flank, "_territory", function)  # noqa: B010 - and the bot's reference to it


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    games = () if sys.argv[2:] == ["surge"] else ("torrent", "fravan")
    incremental = hexflank._territory
    for number in range(1, rounds + 1):
        for game in games:
            for plies in (10, 30, 60):
                figures = []
                for name, function in (("afresh", afresh), ("incremental", incremental)):
                    with_territory(function)
                    bot: Bot = MctsFlankBot(1, iterations=FLANK_ITERATIONS)
                    figures.append(f"{name} {rate(bot, game, plies, FLANK_ITERATIONS):5.0f}")
                print(f"round {number} mcts_flank {game:7} after {plies:2} plies: {', '.join(figures)}")
        with_territory(incremental)
        figures = []
        for name, options in SURGE_VARIANTS:
            bot = IsmctsSurgeBot(1, iterations=SURGE_ITERATIONS, **options)
            figures.append(f"{name} {rate_surge(bot, 8, SURGE_ITERATIONS):5.0f}")
        print(f"round {number} ismcts_surge surge after  8 plies: {', '.join(figures)}", flush=True)


if __name__ == "__main__":
    main()
