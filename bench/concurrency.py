"""Many simultaneous matches of instant random bots against one arbiter process.

    python bench/concurrency.py [--matches 200] [--games 3] [--game torrent] [--size 7]
                                [--bot-processes 2] [--processes 1] [--arbiter-from DIR]
                                [--profile FILE]

Starts `arbiter serve` as a separate process (``--database none``: the match core alone; a cap
of 10 s per decision, no game clock), then ``--bot-processes`` bot processes sharing
2 x MATCHES instant bots. Each bot has its own gRPC channel with
``grpc.use_local_subchannel_pool``, so it is one TCP connection of its own, as real bots are
(gRPC otherwise shares one connection between the channels of a process that have the same
target). Every process connects all its bots first; then all start at once: each pair plays
GAMES games, answering every turn at once with a random legal move.

It prints the moves per second (all moves over the time from the start to the last bot done),
how long the arbiter took to take every bot's call (the last Welcome), the p50/p99 time the
arbiter charged per move (turn sent -> answer received, read from the match records), how the
matches ended and how many by timeout (there must be none: the cap per decision is 10 s, far
above any real answer time), and the CPU time (user + system) per move of the arbiter's process
and of the bot processes summed: on a shared machine it moves much less than the wall-clock
figures. It exits non-zero on a timeout, a failed bot call, or a game without its record. While
bots play, each process says every 10 s on stderr how many are left and what each last received;
a seeker left alone (its opponent's call failed before the pairing) is cancelled once nothing
has changed for 30 s, and counts as a failed call.

``--processes N`` runs ``arbiter serve --processes N`` (docs/processes.md): N worker processes
on one port; the bots follow the Redirects they get (a seek left alone on a worker other than
worker 0 is sent there) on a new channel each, and the arbiter's CPU printed is the sum over the
supervisor and its workers.

``--bot-processes 0`` is the earlier shape: every bot in this process on one event loop, over
8 shared channels (so 8 connections); ``--arbiter-from DIR`` runs the arbiter of another
checkout (an older commit, say) against the same bots, so that two versions are compared with
one benchmark.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import grpc
from _common import (
    CHANNEL_OPTIONS,
    convert,
    instant_action,
    median,
    pb,
    percentile,
    raise_file_limit,
    served_process,
)
from arbiter_wire.v1 import bot_service_pb2_grpc as pb_grpc


# --- a bot process ----------------------------------------------------------------------------
class Bots:
    """This process's bots; ``last`` holds, for each bot still playing, what it last received."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.spec = game_spec(args)
        self.last: dict[int, str] = {}
        self.calls: dict[int, Any] = {}
        self.unpaired: set[int] = set()
        self.welcomed = 0.0  # when the last Welcome came (the arbiter had taken every call)
        self.errors: collections.Counter[str] = collections.Counter()

    async def play(self, channel: grpc.aio.Channel, bot: int) -> dict[str, Any]:
        """One bot's games; a failed call is counted, not raised (the others play on). A
        Redirect (from an arbiter of several processes) is followed on a channel of its own."""
        counts: dict[str, Any] = {"bot": bot, "moves": 0, "games": 0, "rejected": 0, "error": None}
        counts["redirect"] = None
        counts["redirects"] = 0
        rng = random.Random(bot)
        seek = pb.PlayRequest(seek=pb.Seek(spec=self.spec))
        own = None
        try:
            while True:
                await self.call(channel, bot, counts, rng, seek)
                if counts["redirect"] is None or counts["error"] or bot in self.unpaired:
                    break
                counts["redirects"] += 1
                if own is not None:
                    await own.close()
                channel = own = grpc.aio.insecure_channel(counts["redirect"], options=CHANNEL_OPTIONS)
                counts["redirect"] = None
        finally:
            if own is not None:
                await own.close()
        if bot in self.unpaired:
            counts["error"] = "no opponent came: its seek was cancelled by the bench"
        if counts["error"]:
            self.errors[counts["error"]] += 1
        return counts

    async def call(
        self, channel: grpc.aio.Channel, bot: int, counts: dict[str, Any], rng: Any, seek: Any
    ) -> None:
        """One Play call, until the bot is done or redirected (``counts["redirect"]``)."""
        stub = pb_grpc.BotServiceStub(channel)  # type: ignore[no-untyped-call]
        call = stub.Play(metadata=(("authorization", f"Bearer t{bot}"),))
        self.last[bot] = "nothing (seek being written)"
        self.calls[bot] = call
        try:
            await call.write(seek)
            while True:  # read() itself: no async generator around each message
                message = await call.read()
                if message is grpc.aio.EOF or not await self.answer(call, message, counts, rng, seek):
                    break
        except grpc.aio.AioRpcError as exc:
            counts["error"] = f"{exc.code().name}: {exc.details()}"
        except asyncio.CancelledError:
            if bot not in self.unpaired:
                raise
        finally:
            call.cancel()
            del self.last[bot], self.calls[bot]

    async def answer(self, call: Any, message: Any, counts: dict[str, Any], rng: Any, seek: Any) -> bool:
        """Handle one message; False when the bot is done."""
        kind = message.WhichOneof("kind")
        self.last[int(counts["bot"])] = kind
        if kind == "welcome":
            self.welcomed = max(self.welcomed, time.monotonic())
        elif kind == "turn":
            turn = message.turn
            action = instant_action(turn, rng)
            move = pb.Move(match_id=turn.match_id, turn_id=turn.turn_id, action=action)
            await call.write(pb.PlayRequest(move=move))
            counts["moves"] += 1
        elif kind == "move_rejected":
            counts["rejected"] += 1
        elif kind == "seek_rejected":
            counts["error"] = f"seek rejected: {message.seek_rejected.status.message}"
            return False
        elif kind == "redirect":
            counts["redirect"] = message.redirect.address  # the call ends; seek again there
            return False
        elif kind == "match_ended":
            counts["games"] += 1
            if counts["games"] >= self.args.games:
                return False
            await call.write(seek)
        return True

    async def watch(self) -> None:
        """Every 10 s while some bots are still playing: what they last received (on stderr).

        A bot whose opponent's call failed before pairing waits for an opponent forever: once
        only such seekers are left, unchanged for 30 s, their calls are cancelled (an error).
        """
        quiet = 0
        previous: dict[int, str] = {}
        while True:
            await asyncio.sleep(10)
            waiting = collections.Counter(self.last.values())
            print(
                f"bots {self.args.first}+: {len(self.last)} still playing, last received "
                f"{dict(waiting)}; failed calls {dict(self.errors)}",
                file=sys.stderr,
                flush=True,
            )
            lone = set(waiting) == {"seek_pending"} and self.last == previous
            quiet = quiet + 1 if lone else 0
            previous = dict(self.last)
            if quiet >= 3:
                for bot, call in list(self.calls.items()):
                    self.unpaired.add(bot)
                    call.cancel()


async def worker_main(args: argparse.Namespace) -> None:
    """Connect this process's bots, say ``ready``, play once told ``go``, print the counts."""
    raise_file_limit()
    bots = Bots(args)
    first, count = args.first, args.count
    channels = [grpc.aio.insecure_channel(args.worker, options=CHANNEL_OPTIONS) for _ in range(count)]
    await asyncio.gather(*(asyncio.wait_for(c.channel_ready(), 300) for c in channels))
    print("ready", flush=True)
    loop = asyncio.get_running_loop()
    await loop.run_in_executor(None, sys.stdin.readline)
    cpu = own_cpu_seconds()
    started = time.monotonic()
    watch = asyncio.create_task(bots.watch())
    results = await asyncio.gather(*(bots.play(channels[i], first + i) for i in range(count)))
    ended = time.monotonic()
    cpu = own_cpu_seconds() - cpu
    watch.cancel()
    for channel in channels:
        await channel.close()
    summary = {**tally(results), "cpu": cpu, "started": started, "ended": ended, "welcomed": bots.welcomed}
    print(json.dumps(summary), flush=True)


# --- the bench ----------------------------------------------------------------------------------
def tally(results: list[dict[str, Any]]) -> dict[str, Any]:
    """The bots' counts summed: moves, rejected moves, failed calls (and the first three), redirects."""
    errors = [r["error"] for r in results if r["error"]]
    return {
        "moves": sum(r["moves"] for r in results),
        "rejected": sum(r["rejected"] for r in results),
        "errors": len(errors),
        "first_errors": errors[:3],
        "redirects": sum(r["redirects"] for r in results),
    }


def own_cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def game_spec(args: argparse.Namespace) -> Any:
    options = {} if args.game == "surge" else {"size": args.size}
    return convert.spec_to_pb(args.game, options)


def spawn(args: argparse.Namespace, address: str) -> list[subprocess.Popen[str]]:
    """The bot processes, each with its share of the bots, once all their bots are connected."""
    bots = 2 * args.matches
    share = -(-bots // args.bot_processes)
    procs = []
    for first in range(0, bots, share):
        command = [sys.executable, str(Path(__file__).resolve()), "--worker", address]
        command += ["--first", str(first), "--count", str(min(share, bots - first))]
        command += ["--games", str(args.games), "--game", args.game, "--size", str(args.size)]
        procs.append(subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True))
    for proc in procs:
        assert proc.stdout is not None
        if proc.stdout.readline().strip() != "ready":
            raise RuntimeError("a bot process failed to connect its bots")
    return procs


def run_processes(args: argparse.Namespace, address: str) -> dict[str, Any]:
    procs = spawn(args, address)
    try:
        for proc in procs:
            assert proc.stdin is not None
            proc.stdin.write("go\n")
            proc.stdin.flush()
        results = []
        for proc in procs:
            out, _ = proc.communicate(timeout=3600)
            results.append(json.loads(out.strip().splitlines()[-1]))
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
    return {
        "moves": sum(r["moves"] for r in results),
        "rejected": sum(r["rejected"] for r in results),
        "errors": sum(r["errors"] for r in results),
        "first_errors": [e for r in results for e in r["first_errors"]][:3],
        "redirects": sum(r["redirects"] for r in results),
        "cpu": sum(r["cpu"] for r in results),
        "wall": max(r["ended"] for r in results) - min(r["started"] for r in results),
        "welcomed": max(r["welcomed"] for r in results) - min(r["started"] for r in results),
    }


async def run_in_process(args: argparse.Namespace, address: str) -> dict[str, Any]:
    """The earlier shape: every bot on this event loop, over 8 shared channels."""
    args.first = 0
    bots = Bots(args)
    channels = [grpc.aio.insecure_channel(address) for _ in range(8)]
    cpu = own_cpu_seconds()
    started = time.perf_counter()
    started_monotonic = time.monotonic()
    watch = asyncio.create_task(bots.watch())
    results = await asyncio.gather(*(bots.play(channels[i % 8], i) for i in range(2 * args.matches)))
    watch.cancel()
    wall = time.perf_counter() - started
    cpu = own_cpu_seconds() - cpu
    for channel in channels:
        await channel.close()
    return {**tally(results), "cpu": cpu, "wall": wall, "welcomed": bots.welcomed - started_monotonic}


def read_records(records: Path) -> tuple[list[float], dict[str, int], int]:
    charged: list[float] = []
    reasons: dict[str, int] = {}
    count = 0
    for path in records.glob("*.json"):
        record = json.loads(path.read_text())
        count += 1
        reasons[record["result"]["reason"]] = reasons.get(record["result"]["reason"], 0) + 1
        charged += [a["charged"] for a in record["actions"] if a["charged"] is not None]
    return charged, reasons, count


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--matches", type=int, default=200)
    parser.add_argument("--games", type=int, default=3, help="games per pair of bots")
    parser.add_argument("--game", default="torrent", choices=["torrent", "fravan", "surge"])
    parser.add_argument("--size", type=int, default=7)
    parser.add_argument(
        "--bot-processes",
        type=int,
        default=2,
        metavar="N",
        help="bot processes, one connection per bot (0: every bot in this process, 8 shared channels)",
    )
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
    parser.add_argument(
        "--processes",
        type=int,
        default=1,
        metavar="N",
        help="run `arbiter serve --processes N` (the arbiter's CPU is then its processes' sum)",
    )
    parser.add_argument("--worker", metavar="ADDRESS", help=argparse.SUPPRESS)
    parser.add_argument("--first", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--count", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        asyncio.run(worker_main(args))
        return
    raise_file_limit()  # the server and the bot processes inherit it
    with tempfile.TemporaryDirectory() as tmp:
        tokens = Path(tmp) / "tokens"
        tokens.write_text("".join(f"bot{i}=t{i}\n" for i in range(2 * args.matches)))
        records = Path(tmp) / "records"
        serve_args = ["--tokens-file", str(tokens), "--records", str(records)]
        serve_args += ["--base", "0", "--per-decision", "10"]
        if args.processes > 1:
            serve_args += ["--processes", str(args.processes)]
        with served_process(
            *serve_args, profile=args.profile, root=args.arbiter_from, processes=args.processes
        ) as served:
            before = served.cpu_by_process()
            if args.bot_processes > 0:
                run = run_processes(args, served.address)
            else:
                run = asyncio.run(run_in_process(args, served.address))
            after = served.cpu_by_process()
            shares = {pid: after[pid] - before.get(pid, 0.0) for pid in sorted(after)}
            arbiter_cpu = sum(shares.values())
        charged, reasons, written = read_records(records)
    if args.processes > 1:
        own = shares.pop(served.pid, 0.0)
        each = ", ".join(f"pid {pid} {seconds:.1f} s" for pid, seconds in shares.items())
        print(f"arbiter CPU by process: supervisor {own:.1f} s; workers {each}")
    if not report(args, run, arbiter_cpu, charged, reasons, written):
        sys.exit("FAILED: a timeout, a failed bot call or a game without its record")
    if args.profile:
        print_profile(args.profile)


def report(
    args: argparse.Namespace,
    run: dict[str, Any],
    arbiter_cpu: float,
    charged: list[float],
    reasons: dict[str, int],
    written: int,
) -> bool:
    """Print the figures; False on a timeout, a failed bot call, or a game without its record."""
    moves, wall = run["moves"], run["wall"]
    shape = (
        f"{2 * args.matches} bots in {args.bot_processes} processes, one connection each"
        if args.bot_processes > 0
        else f"{2 * args.matches} bots in the bench's process over 8 shared channels"
    )
    print(
        f"{args.matches} simultaneous {args.game} matches x {args.games} games ({shape}): "
        f"{moves} moves in {wall:.1f} s"
    )
    print(f"moves/s: {moves / wall:.0f}")
    print(f"every bot's call taken (its Welcome received) {run['welcomed']:.1f} s after the start")
    print(
        f"charged per move: median {median(charged) * 1e3:.2f} ms, p99 {percentile(charged, 99) * 1e3:.2f} ms"
    )
    timeouts = reasons.get("timeout", 0)
    print(
        f"match endings: {reasons}; timeouts: {timeouts}; rejected moves: {run['rejected']}; "
        f"records: {written} of {args.matches * args.games} games; failed bot calls: {run['errors']}"
    )
    if run["first_errors"]:
        print("first failed bot calls:", run["first_errors"])
    if args.processes > 1:
        print(f"arbiter: {args.processes} worker processes; redirects the bots followed: {run['redirects']}")
    label = "bot processes" if args.bot_processes > 0 else "bots' process"
    print(
        f"CPU per move: arbiter {arbiter_cpu / max(1, moves) * 1e6:.0f} us ({arbiter_cpu:.1f} s), "
        f"{label} {run['cpu'] / max(1, moves) * 1e6:.0f} us ({run['cpu']:.1f} s)"
    )
    return timeouts == 0 and run["errors"] == 0 and written == args.matches * args.games


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
