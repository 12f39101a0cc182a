"""Many simultaneous matches of instant random bots against one arbiter process.

    python bench/concurrency.py [--matches 200] [--games 3] [--game torrent] [--size 7]
                                [--arbiter-from DIR] [--profile FILE]

Starts `arbiter serve` as a separate process (one core for it, one for the bots), connects
2 x MATCHES instant bots from this process, lets each pair play GAMES games, and prints the
moves per second, the p50/p99 time the arbiter charged per move (turn sent -> answer received,
read from the match records), and how many matches ended by timeout (there must be none: the
cap per decision is 10 s, far above any real answer time). Also the CPU time (user + system)
each process used per move: on a shared machine it moves much less than the wall-clock figures.

``--arbiter-from DIR`` runs the arbiter of another checkout (an older commit, say) against the
same bots, so that two versions are compared with one benchmark.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import tempfile
import time
from pathlib import Path

import grpc
from _common import convert, instant_bot, median, percentile, served_process


async def run_bots(address: str, matches: int, games: int, spec: object) -> tuple[int, float, int]:
    channels = [grpc.aio.insecure_channel(address) for _ in range(8)]
    started = time.perf_counter()
    results = await asyncio.gather(
        *(instant_bot(channels[i % len(channels)], f"t{i}", spec, games, i) for i in range(2 * matches))
    )
    wall = time.perf_counter() - started
    for channel in channels:
        await channel.close()
    return sum(r["moves"] for r in results), wall, sum(r["rejected"] for r in results)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--matches", type=int, default=200)
    parser.add_argument("--games", type=int, default=3, help="games per pair of bots")
    parser.add_argument("--game", default="torrent", choices=["torrent", "fravan", "surge"])
    parser.add_argument("--size", type=int, default=7)
    parser.add_argument(
        "--arbiter-from",
        metavar="DIR",
        type=Path,
        help="run the arbiter of this checkout of the project (default: this one)",
    )
    parser.add_argument(
        "--profile",
        metavar="FILE",
        help="profile the arbiter (cProfile) and print where its main thread spent time",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tokens = Path(tmp) / "tokens"
        tokens.write_text("".join(f"bot{i}=t{i}\n" for i in range(2 * args.matches)))
        records = Path(tmp) / "records"
        serve_args = [
            "--tokens-file",
            str(tokens),
            "--records",
            str(records),
            "--base",
            "0",
            "--per-decision",
            "10",
        ]
        with served_process(*serve_args, profile=args.profile, root=args.arbiter_from) as served:
            options = {} if args.game == "surge" else {"size": args.size}
            spec = convert.spec_to_pb(args.game, options)
            arbiter_cpu = served.cpu_seconds()
            bots_cpu = _own_cpu_seconds()
            moves, wall, rejected = asyncio.run(run_bots(served.address, args.matches, args.games, spec))
            arbiter_cpu = served.cpu_seconds() - arbiter_cpu
            bots_cpu = _own_cpu_seconds() - bots_cpu
        charged = []
        reasons: dict[str, int] = {}
        for path in records.glob("*.json"):
            record = json.loads(path.read_text())
            reasons[record["result"]["reason"]] = reasons.get(record["result"]["reason"], 0) + 1
            charged += [a["charged"] for a in record["actions"] if a["charged"] is not None]
    print(
        f"{args.matches} simultaneous {args.game} matches x {args.games} games: {moves} moves in {wall:.1f} s"
    )
    print(f"moves/s: {moves / wall:.0f}")
    print(
        f"charged per move: median {median(charged) * 1e3:.2f} ms, p99 {percentile(charged, 99) * 1e3:.2f} ms"
    )
    print(f"match endings: {reasons}; timeouts: {reasons.get('timeout', 0)}; rejected moves: {rejected}")
    print(
        f"CPU per move: arbiter {arbiter_cpu / moves * 1e6:.0f} us ({arbiter_cpu:.1f} s), "
        f"bots' process {bots_cpu / moves * 1e6:.0f} us ({bots_cpu:.1f} s)"
    )
    if args.profile:
        print_profile(args.profile)


def _own_cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def print_profile(path: str) -> None:
    """The main thread's time: total, waiting for the network (epoll), and the costliest functions."""
    import pstats

    stats = pstats.Stats(path)
    entries = stats.stats  # type: ignore[attr-defined]
    total = sum(entry[2] for entry in entries.values())
    waiting = sum(entry[2] for key, entry in entries.items() if "poll" in key[2])
    print(f"arbiter main thread: {total:.2f} s profiled, of which {waiting:.2f} s waiting in epoll")
    stats.sort_stats("tottime").print_stats(15)


if __name__ == "__main__":
    main()
