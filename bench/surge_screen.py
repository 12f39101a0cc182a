"""Offline screen of ``ismcts_surge`` variants against ``surge_tips`` (docs/bots.md, "Surge tuning").

python bench/surge_screen.py OPTIONS_JSON FIRST_DEAL DEALS [WORKERS]

Plays each deal (a match seed made from its number) twice, the search bot once in each seat,
in ``WORKERS`` processes (default 2), offline with the engines (``play_local`` without the
protobuf round trip). ``OPTIONS_JSON`` holds the ``IsmctsSurgeBot`` keyword arguments, for
example ``'{"think": 0.1}'`` or ``'{"think": 0.1, "model": false}'``; ``'"surge_tips"'`` plays
``surge_tips`` in the bot's place (the seats' balance between two greedy bots).

The bot's time budget is counted in CPU seconds of its own process: ``time.monotonic`` is
replaced by ``time.process_time`` before the SDK is imported. So a screen measures the same
search whatever the machine's load, and variants screened at different times on the same deals
compare like with like. It prints the score, the results by seat, the CPU seconds used and one
letter per game (W, L, D), deal by deal, the bot in seat 1 first.
"""

from __future__ import annotations

import hashlib
import json
import sys
import time
from multiprocessing import Pool
from typing import Any

time.monotonic = time.process_time  # the bots' budgets in CPU seconds (before the SDK is imported)

import _common  # noqa: E402, F401 - puts the project's code on the path
from arbiter_bot.bot import Bot  # noqa: E402
from arbiter_bot.examples.ismcts_surge import IsmctsSurgeBot  # noqa: E402
from arbiter_bot.examples.surge_tips import SurgeTipsBot  # noqa: E402
from arbiter_bot.local import play_local  # noqa: E402

Job = tuple[Any, int, int]


def one_game(job: Job) -> tuple[int, int, float, float]:
    """(deal, the search bot's seat, its result 1/0.5/0, CPU seconds of the game)."""
    options, deal, seat = job
    seed = hashlib.sha256(f"deal{deal}".encode()).digest()
    bot: Bot = (
        SurgeTipsBot(deal * 2 + seat)
        if options == "surge_tips"
        else IsmctsSurgeBot(deal * 2 + seat, **options)
    )
    greedy = SurgeTipsBot(deal)
    started = time.process_time()
    first, second = (bot, greedy) if seat == 1 else (greedy, bot)
    result = play_local(first, second, "surge", seed=seed, wire=False)
    winner = result.winner_seat
    points = 0.5 if winner is None else float(winner == seat)
    return deal, seat, points, time.process_time() - started


def main() -> None:
    options = json.loads(sys.argv[1])
    first, deals = int(sys.argv[2]), int(sys.argv[3])
    workers = int(sys.argv[4]) if len(sys.argv) > 4 else 2
    jobs: list[Job] = [(options, deal, seat) for deal in range(first, first + deals) for seat in (1, 2)]
    with Pool(workers) as pool:
        results = pool.map(one_game, jobs, chunksize=1)
    by_seat = {1: [0, 0, 0], 2: [0, 0, 0]}
    letters = ""
    for _, seat, points, _ in results:
        index = 0 if points == 1.0 else 2 if points == 0.5 else 1
        by_seat[seat][index] += 1
        letters += "WLD"[index]
    score = sum(r[2] for r in results)
    cpu = sum(r[3] for r in results)
    print(
        f"{json.dumps(options)} deals {first}..{first + deals - 1}: score {score:g}/{len(results)} "
        f"= {100 * score / len(results):.1f}%; bot as seat 1 won-lost-drawn {by_seat[1]}, as seat 2 "
        f"{by_seat[2]}; cpu {cpu:.0f} s; {letters}",
        flush=True,
    )


if __name__ == "__main__":
    main()
