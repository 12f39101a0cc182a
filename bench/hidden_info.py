"""Hidden information on the wire: Surge matches played twice, the opponent's hidden stones changed.

    python bench/hidden_info.py [--pairs 10000] [--concurrency 8] [--seed 1]

Starts an arbiter in this process on a real gRPC port and plays PAIRS pairs of Surge matches over
raw-protocol connections: twin A is the genuine match of a seed, twin B the same except for the
draw order of the viewer's opponent (kept up to a random stone, reordered after it). Every message
the viewer receives before the reveal of the first round in which the opponent's placements
differ must be byte-identical between the twins (match ids blanked). The viewer is Blue in even
pairs and Orange in odd ones. Prints progress, then the figures; exits 1 on any leak. The method
is described in tests/reliability/hidden_info.py; docs/reliability.md quotes a run.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent.parent / d) for d in ("", "server", "clients/python")]

from arbiter.logging_setup import configure_logging  # noqa: E402

from tests.reliability.hidden_info import HiddenFigures, run_hidden  # noqa: E402


def line(figures: HiddenFigures) -> str:
    return (
        f"{figures.pairs} pairs ({figures.matches} matches), {figures.compared} messages compared"
        f" ({figures.face_down_turns} turns with a hidden opponent stone), {figures.leaks} leaks"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--pairs", type=int, default=10_000)
    parser.add_argument("--concurrency", type=int, default=8, help="pairs played at once")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    configure_logging("warning")
    step = max(1, args.pairs // 20)

    def progress(figures: HiddenFigures) -> None:
        if figures.pairs % step == 0:
            print(f"  {line(figures)}", flush=True)

    figures = asyncio.run(run_hidden(args.pairs, args.concurrency, args.seed, progress=progress))
    print(f"done in {figures.seconds:.0f} s: {line(figures)}")
    print(f"pairs whose opponent placements differed at some round: {figures.pairs_diverging}")
    print(f"pairs whose viewer streams differ after the cutoff:     {figures.differ_after_cutoff}")
    for problem in figures.problems[:20]:
        print(f"  {problem}")
    sys.exit(1 if figures.problems else 0)


if __name__ == "__main__":
    main()
