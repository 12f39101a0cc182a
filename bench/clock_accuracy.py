"""Clock accuracy: what the arbiter charges minus what the bot itself measured as thinking.

    python bench/clock_accuracy.py [--games 4] [--think 0.02]

Runs `arbiter serve` as a separate process and two bots in this process that each take THINK
seconds per decision, timing themselves from receiving a Turn to handing the Move to gRPC.
For every move, the overhead is (charged by the arbiter) - (measured by the bot): the cost of
delivery both ways that the bot pays. Prints its median and p99, and the largest value.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
from pathlib import Path

import grpc
from _common import convert, instant_bot, median, percentile, serve_process


async def play(address: str, games: int, think: float) -> list[tuple[str, int, float]]:
    thinks: list[tuple[str, int, float]] = []
    spec = convert.spec_to_pb("torrent", {"size": 5})
    async with grpc.aio.insecure_channel(address) as channel:
        await asyncio.gather(
            instant_bot(channel, "ta", spec, games, 1, think=think, thinks=thinks),
            instant_bot(channel, "tb", spec, games, 2, think=think, thinks=thinks),
        )
    return thinks


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--think", type=float, default=0.02)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        records = Path(tmp) / "records"
        serve_args = ["--bot", "a=ta", "--bot", "b=tb", "--records", str(records), "--base", "600"]
        with serve_process(*serve_args) as address:
            thinks = asyncio.run(play(address, args.games, args.think))
        charged = {}
        for path in records.glob("*.json"):
            record = json.loads(path.read_text())
            for entry in record["actions"]:
                if entry["charged"] is not None:
                    charged[(record["match_id"], entry["turn"])] = entry["charged"]
    overhead = [charged[(m, t)] - own for m, t, own in thinks if (m, t) in charged]
    print(f"moves: {len(overhead)} (bots think {args.think * 1e3:.0f} ms each)")
    print(
        f"charged - bot's own think time: median {median(overhead) * 1e3:.3f} ms, "
        f"p99 {percentile(overhead, 99) * 1e3:.3f} ms, max {max(overhead) * 1e3:.3f} ms"
    )
    print(f"never negative: {min(overhead) >= 0}")


if __name__ == "__main__":
    main()
