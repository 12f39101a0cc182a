"""Engine speed on one core: random playouts through the public interface.

    python bench/engines.py [--seconds S] [--runs R]

Prints ``torrent-7: N plies/s``, ``fravan-7: N plies/s`` and ``surge: N games/s``
for the pure ``apply`` (what the arbiter uses), then the same workload on the
``apply_in_place`` path that search code may use. A ply is one applied action.
Each figure is the median of R runs after one uncounted warm-up run (which fills
Surge's cache of surge plans, as a running arbiter or a search has it); the
machines here vary by tens of percent from one second to the next, so the line
below each figure gives the slowest and fastest run.
Torrent/Fravan: a uniformly random placement, passing only when no point is
free (and never swapping). Surge: a uniformly random legal action.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "clients" / "python"))

from arbiter_games.fravan import FRAVAN
from arbiter_games.hexflank import PASS, SWAP, FlankRules
from arbiter_games.surge import SURGE
from arbiter_games.torrent import TORRENT

#: The engines themselves (not their game definitions): what search code calls.
FLANK: dict[str, FlankRules] = {"torrent": TORRENT, "fravan": FRAVAN}


def flank_plies_per_second(name: str, seconds: float, in_place: bool) -> float:
    rules = FLANK[name]
    rng = random.Random(7)
    legal_actions = rules.legal_actions
    step = rules.apply_in_place if in_place else None
    apply = rules.apply
    plies = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        state = rules.new_game({"size": 7})
        while not state.over:
            legal = legal_actions(state)
            # Placements come first; PASS (and SWAP on the second action) close the list.
            n = len(legal)
            while n and (legal[n - 1] is PASS or legal[n - 1] is SWAP):
                n -= 1
            action = legal[int(rng.random() * n)] if n else PASS
            if step is not None:
                step(state, action)
            else:
                state = apply(state, action)
            plies += 1
    return plies / (time.perf_counter() - start)


def surge_games_per_second(seconds: float, in_place: bool) -> float:
    rules: Any = SURGE
    rng = random.Random(7)
    legal_actions = rules.legal_actions
    outcome = rules.outcome
    games = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        state = rules.new_game(None, rng.randbytes(32))
        while outcome(state) is None:
            legal = legal_actions(state)
            action = legal[int(rng.random() * len(legal))]
            if in_place:
                rules.apply_in_place(state, action)
            else:
                state = rules.apply(state, action)
        games += 1
    return games / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seconds", type=float, default=10.0, help="time per figure (default 10)")
    parser.add_argument("--runs", type=int, default=5, help="runs per figure, the median is printed")
    args = parser.parse_args()
    share = args.seconds / args.runs
    for in_place in (False, True):
        suffix = " (apply_in_place)" if in_place else ""
        figures: list[tuple[str, str, Callable[[bool], float]]] = [
            (f"{name}-7{suffix}", "plies/s", partial(flank_plies_per_second, name, share))
            for name in ("torrent", "fravan")
        ]
        figures.append((f"surge{suffix}", "games/s", partial(surge_games_per_second, share)))
        for label, unit, measure in figures:
            measure(in_place)  # warm-up, not counted: fills the engines' caches (Surge's surge plans)
            rates = sorted(measure(in_place) for _ in range(args.runs))
            print(f"{label}: {statistics.median(rates):.0f} {unit}", flush=True)
            print(f"  ({args.runs} runs of {share:g} s: min {rates[0]:.0f}, max {rates[-1]:.0f})", flush=True)


if __name__ == "__main__":
    main()
