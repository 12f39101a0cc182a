"""Disconnect injection: matches over real connections, broken at random points, then resumed.

    python bench/faults.py [--matches 100] [--disconnects 1000] [--concurrency 8] [--seed 1]

Starts an arbiter in this process on a real gRPC port (the servicer, sessions and hosting of
`arbiter serve`, without a store) and plays MATCHES matches (Torrent, Fravan and Surge in turn,
each between its own two raw-protocol bots) while breaking DISCONNECTS connections at random
moments: during a turn, right after an answer, while the opponent thinks, both seats at once, and
in Surge as a round's stones are revealed. Every reconnect comes within 30 ms. Prints progress,
then the figures: disconnects by kind, reconnects that got the same pending turn back, wrong
results (engine replay), stuck matches. Exits 1 if any invariant failed. The invariants are those
of tests/reliability/disconnects.py; docs/reliability.md quotes a run.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent.parent / d) for d in ("", "server", "clients/python")]

from arbiter.logging_setup import configure_logging  # noqa: E402

from tests.reliability.disconnects import Figures, run_disconnects  # noqa: E402


def report(figures: Figures) -> None:
    print(f"matches:                        {figures.matches} in {figures.seconds:.1f} s")
    kinds = ", ".join(f"{kind} {count}" for kind, count in sorted(figures.disconnects.items()))
    print(f"disconnects:                    {figures.total_disconnects} ({kinds})")
    print(f"reconnects:                     {figures.reconnects}")
    print(f"same pending turn after a break during a turn: {figures.same_turn_resumed}")
    print(f"answers lost in a break, answered again:       {figures.moves_lost}")
    print(f"resent answers acknowledged (MoveAcknowledged): {figures.acknowledged}")
    print(f"results waiting after the Welcome:             {figures.ended_while_away}")
    print(f"results sent to a connection as it broke:      {figures.ended_unseen}")
    print(f"turns checked against the engine:              {figures.turns_checked}")
    print(f"wrong results:                  {figures.wrong_results}")
    print(f"stuck matches:                  {figures.stuck}")
    print(f"problems:                       {len(figures.problems)}")
    for problem in figures.problems[:20]:
        print(f"  {problem}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--matches", type=int, default=100)
    parser.add_argument("--disconnects", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=8, help="matches played at once")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    configure_logging("warning")
    step = max(1, args.matches // 10)

    def progress(figures: Figures) -> None:
        if figures.matches % step == 0 or figures.matches == args.matches:
            print(
                f"  {figures.matches}/{args.matches} matches, {figures.total_disconnects} disconnects,"
                f" {len(figures.problems)} problems",
                flush=True,
            )

    figures = asyncio.run(
        run_disconnects(args.matches, args.disconnects, args.concurrency, args.seed, progress=progress)
    )
    report(figures)
    sys.exit(1 if figures.problems or figures.stuck else 0)


if __name__ == "__main__":
    main()
