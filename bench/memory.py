"""The arbiter's memory per live match, with one connection per bot and bots in other processes.

    python bench/memory.py [--matches 1000] [--steps 500,1000] [--procs 4] [--size 5]
                           [--think-min 1.0] [--think-max 2.0] [--hold 5]
                           [--database none|sqlite|postgresql]

Starts ``arbiter serve`` as its own process (records to a temporary directory; game clock off,
10 s cap per decision; metrics on a free port) with the store ``--database`` names: ``none``
(the default: no store, the match core alone), ``sqlite`` (the default store of ``arbiter
serve``, here a file in a temporary directory) or ``postgresql`` (a throwaway PostgreSQL cluster
of tests/postgres.py, started for the run and removed after it). Then ``--procs`` bot processes
sharing ``2 x MATCHES`` bots, each bot with its own gRPC channel
(``grpc.use_local_subchannel_pool``, so each bot is one TCP connection, as real bots are). Each
bot seeks Torrent (size ``--size``) and answers every turn with a random legal move after a
delay drawn from [think-min, think-max] seconds, so the matches stay live and the load stays
small; when a match ends the bot seeks again, until the bench stops it.

It reads the server's resident memory (VmRSS in /proc/PID/status) before any bot connects,
with every bot connected (channels ready, no call open), and at each step of live matches
(live: ``arbiter_matches_running`` read from the server's metrics), and prints the memory per
live match. At the end it stops the bots (each finishes its match) and prints how many matches
ended, how, and how many ended by timeout (there must be none: the bots answer within
think-max seconds, far below the 10 s cap); it exits non-zero when one did, when a bot's call
failed, or when a match that started has no record.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import re
import resource
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
from _common import (
    CHANNEL_OPTIONS,
    ROOT,
    convert,
    free_port,
    instant_action,
    pb,
    raise_file_limit,
    served_process,
)
from arbiter_wire.v1 import bot_service_pb2_grpc as pb_grpc


# --- the bot processes ------------------------------------------------------------------------
class Worker:
    """``count`` bots of one process, started on command and stopped together."""

    def __init__(self, address: str, first: int, count: int, args: argparse.Namespace) -> None:
        self.address = address
        self.tokens = [f"t{i}" for i in range(first, first + count)]
        self.args = args
        self.spec = convert.spec_to_pb("torrent", {"size": args.size})
        self.rng = random.Random(first)
        self.channels: list[grpc.aio.Channel] = []
        self.tasks: list[asyncio.Task[None]] = []
        self.stopping = False
        self.idle: dict[int, Any] = {}  # bot -> its call, while it waits for a match
        self.counts = {"games": 0, "moves": 0, "rejected": 0, "seek_rejected": 0, "errors": 0}
        self.errors: list[str] = []

    async def connect(self) -> None:
        self.channels = [
            grpc.aio.insecure_channel(self.address, options=CHANNEL_OPTIONS) for _ in self.tokens
        ]
        await asyncio.gather(*(asyncio.wait_for(c.channel_ready(), 120) for c in self.channels))

    def start(self, n: int) -> None:
        for _ in range(n):
            i = len(self.tasks)
            if i < len(self.tokens):
                self.tasks.append(asyncio.create_task(self.bot(i)))

    def stop(self) -> None:
        self.stopping = True

    async def bot(self, i: int) -> None:
        stub = pb_grpc.BotServiceStub(self.channels[i])  # type: ignore[no-untyped-call]
        call = stub.Play(metadata=(("authorization", f"Bearer {self.tokens[i]}"),))
        seek = pb.PlayRequest(seek=pb.Seek(spec=self.spec))
        try:
            self.idle[i] = call
            await call.write(seek)
            async for message in call:
                if not await self.answer(i, call, message, seek):
                    break
        except grpc.aio.AioRpcError as exc:
            if exc.code() != grpc.StatusCode.CANCELLED:
                self.counts["errors"] += 1
                self.errors.append(f"{exc.code().name}: {exc.details()}")
        except asyncio.CancelledError:
            pass
        finally:
            self.idle.pop(i, None)
            call.cancel()

    async def answer(self, i: int, call: Any, message: Any, seek: Any) -> bool:
        """Handle one message; False when the bot is done."""
        kind = message.WhichOneof("kind")
        if kind == "match_started":
            self.idle.pop(i, None)
        elif kind == "turn":
            turn = message.turn
            action = instant_action(turn, self.rng)
            await asyncio.sleep(self.rng.uniform(self.args.think_min, self.args.think_max))
            await call.write(
                pb.PlayRequest(move=pb.Move(match_id=turn.match_id, turn_id=turn.turn_id, action=action))
            )
            self.counts["moves"] += 1
        elif kind == "move_rejected":
            self.counts["rejected"] += 1
        elif kind == "seek_rejected":
            self.counts["seek_rejected"] += 1
            return False
        elif kind == "match_ended":
            self.counts["games"] += 1
            if self.stopping:
                return False
            self.idle[i] = call
            await call.write(seek)
        return True

    async def finish(self) -> None:
        """Wait for the bots in a match to end it; then cancel the seekers left without a partner.

        Seekers still waiting pair with each other within milliseconds, so a seeker cancelled
        after every other bot of this process has been idle for a few seconds has no partner.
        """
        quiet = 0.0
        while not all(task.done() for task in self.tasks):
            busy = sum(not task.done() for task in self.tasks) - len(self.idle)
            quiet = quiet + 0.5 if busy == 0 else 0.0
            if quiet >= 3.0:
                for call in list(self.idle.values()):
                    call.cancel()
            await asyncio.sleep(0.5)
        await asyncio.gather(*self.tasks)
        for channel in self.channels:
            await channel.close()


async def worker_main(args: argparse.Namespace) -> None:
    raise_file_limit()
    worker = Worker(args.worker, args.first, args.count, args)
    await worker.connect()
    print("ready", flush=True)
    loop = asyncio.get_running_loop()
    while True:
        line = (await loop.run_in_executor(None, sys.stdin.readline)).split()
        if not line or line[0] == "stop":
            break
        worker.start(int(line[1]))
    worker.stop()
    await worker.finish()
    usage = resource.getrusage(resource.RUSAGE_SELF)
    cpu = usage.ru_utime + usage.ru_stime
    print(json.dumps({**worker.counts, "cpu": cpu, "first_errors": worker.errors[:3]}), flush=True)


# --- the bench ----------------------------------------------------------------------------------
def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def sockets(pid: int) -> int:
    """Open sockets of a process (its listening ones included)."""
    count = 0
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        with contextlib.suppress(OSError):  # closed while being read
            count += fd.readlink().name.startswith("socket:")
    return count


def scrape(url: str) -> dict[str, float]:
    """The metrics page as {sample name with labels: value}."""
    text = urllib.request.urlopen(url, timeout=30).read().decode()
    samples = {}
    for line in text.splitlines():
        match = re.match(r"^([a-z_]+(?:\{[^}]*\})?) (\S+)$", line)
        if match:
            samples[match[1]] = float(match[2])
    return samples


class Bench:
    def __init__(self, args: argparse.Namespace, pid: int, address: str, metrics: str) -> None:
        self.args = args
        self.pid = pid
        self.address = address
        self.metrics = f"http://{metrics}/metrics"
        self.procs: list[subprocess.Popen[str]] = []
        self.started = 0  # bots told to play
        self.rss: dict[str, tuple[int, int]] = {}  # label -> (KiB, live matches)

    def running(self) -> int:
        return int(scrape(self.metrics).get("arbiter_matches_running", 0))

    def read(self, label: str) -> None:
        time.sleep(self.args.hold)
        live = self.running()
        kib = rss_kib(self.pid)
        live = (live + self.running()) // 2
        self.rss[label] = (kib, live)
        sessions = int(scrape(self.metrics).get("arbiter_sessions", 0))
        print(
            f"{label:>28}: RSS {kib / 1024:7.1f} MiB, live matches {live:5d}, "
            f"server sockets {sockets(self.pid)}, sessions {sessions}",
            flush=True,
        )

    def spawn(self) -> None:
        bots = 2 * self.args.matches
        share = -(-bots // self.args.procs)
        script = str(Path(__file__).resolve())
        for first in range(0, bots, share):
            count = min(share, bots - first)
            command = [sys.executable, script, "--worker", self.address, "--first", str(first)]
            command += ["--count", str(count), "--size", str(self.args.size)]
            command += ["--think-min", str(self.args.think_min), "--think-max", str(self.args.think_max)]
            self.procs.append(
                subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            )
        for proc in self.procs:
            assert proc.stdout is not None
            if proc.stdout.readline().strip() != "ready":
                raise RuntimeError("a bot process failed to connect its bots")

    def ramp(self, matches: int) -> None:
        """Tell the bot processes to start bots until 2 x matches play; wait for the live count."""
        more = 2 * matches - self.started
        each = -(-more // len(self.procs))
        for proc in self.procs:
            assert proc.stdin is not None
            proc.stdin.write(f"play {each}\n")
            proc.stdin.flush()
        self.started += each * len(self.procs)
        deadline = time.monotonic() + 180
        while self.running() < matches * 0.98 and time.monotonic() < deadline:
            time.sleep(1)

    def stop(self) -> list[dict[str, Any]]:
        for proc in self.procs:
            assert proc.stdin is not None
            proc.stdin.write("stop\n")
            proc.stdin.flush()
        results = []
        for proc in self.procs:
            out, _ = proc.communicate(timeout=600)
            results.append(json.loads(out.strip().splitlines()[-1]))
        return results


def report(bench: Bench, results: list[dict[str, Any]], samples: dict[str, float], records: Path) -> bool:
    """Print the figures; False when a match timed out, a bot failed, or a match was not recorded."""
    base, _ = bench.rss["before any bot connects"]
    idle, _ = bench.rss["all bots connected, idle"]
    print(f"per connected idle bot: {(idle - base) / (2 * bench.args.matches):.1f} KiB")
    previous = ("all bots connected, idle", idle, 0)
    for label, (kib, live) in bench.rss.items():
        if not label.startswith("live"):
            continue
        print(
            f"{label}: {(kib - idle) / live:.1f} KiB per live match over the connected bots, "
            f"{(kib - base) / live:.1f} KiB over the bare server, "
            f"{(kib - previous[1]) / max(1, live - previous[2]):.1f} KiB per match since {previous[0]!r}"
        )
        previous = (label, kib, live)
    ended = {
        re.search(r'termination="([^"]*)"', k)[1]: int(v)  # type: ignore[index]
        for k, v in samples.items()
        if k.startswith("arbiter_matches_ended_total")
    }
    started = int(sum(v for k, v in samples.items() if k.startswith("arbiter_matches_started_total")))
    charged = []
    for path in records.glob("*.json"):
        record = json.loads(path.read_text())
        charged += [a["charged"] for a in record["actions"] if a["charged"] is not None]
    totals = {key: sum(int(r[key]) for r in results) for key in ("games", "moves", "rejected", "errors")}
    timeouts = ended.get("timeout", 0)
    print(f"matches started {started}, ended {sum(ended.values())}: {ended}; timeouts: {timeouts}")
    written = len(list(records.glob("*.json")))
    print(f"records written: {written}; largest charged decision: {max(charged, default=0):.3f} s")
    cpu = sum(float(r["cpu"]) for r in results)
    print(f"bot processes' CPU time: {cpu:.1f} s, {cpu / max(1, totals['moves']) * 1e6:.0f} us per move")
    print(f"bots: {totals}; seek refusals {sum(int(r['seek_rejected']) for r in results)}")
    for r in results:
        if r["first_errors"]:
            print("bot errors:", r["first_errors"])
    return timeouts == 0 and totals["errors"] == 0 and started == sum(ended.values()) == written


@contextlib.contextmanager
def store(database: str, tmp: Path) -> Iterator[str]:
    """The ``--database`` URL of ``arbiter serve`` for ``database``; a PostgreSQL cluster lives
    while the block runs."""
    if database == "none":
        yield "none"
    elif database == "sqlite":
        yield f"sqlite:///{tmp / 'arbiter.db'}"
    else:
        sys.path.insert(0, str(ROOT))
        from tests.postgres import Cluster

        cluster = Cluster()
        try:
            cluster.start()
            yield cluster.createdb("memory")
        finally:
            cluster.stop()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--matches", type=int, default=1000, help="live matches at the last step")
    parser.add_argument("--steps", default="500,1000", help="live matches at which to read the memory")
    parser.add_argument("--procs", type=int, default=4, help="bot processes")
    parser.add_argument("--size", type=int, default=5, help="Torrent board size")
    parser.add_argument("--think-min", type=float, default=1.0)
    parser.add_argument("--think-max", type=float, default=2.0)
    parser.add_argument("--hold", type=float, default=5.0, help="seconds to wait before each reading")
    parser.add_argument("--database", choices=["none", "sqlite", "postgresql"], default="none")
    parser.add_argument("--worker", metavar="ADDRESS", help=argparse.SUPPRESS)
    parser.add_argument("--first", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--count", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        asyncio.run(worker_main(args))
        return
    raise_file_limit()  # the server inherits it
    steps = [int(s) for s in args.steps.split(",")]
    args.matches = max(args.matches, *steps)
    with tempfile.TemporaryDirectory() as tmp, store(args.database, Path(tmp)) as url:
        tokens = Path(tmp) / "tokens"
        tokens.write_text("".join(f"bot{i}=t{i}\n" for i in range(2 * args.matches)))
        records = Path(tmp) / "records"
        metrics = f"127.0.0.1:{free_port()}"
        serve_args = ["--tokens-file", str(tokens), "--records", str(records), "--base", "0"]
        serve_args += ["--per-decision", "10", "--metrics", metrics]
        print(f"store: {args.database} ({url})", flush=True)
        with served_process(*serve_args, database=url) as served:
            bench = Bench(args, served.pid, served.address, metrics)
            bench.read("before any bot connects")
            try:
                bench.spawn()
                bench.read("all bots connected, idle")
                for step in steps:
                    bench.ramp(step)
                    bench.read(f"live {step}")
                results = bench.stop()
                bench.read("after the bots left")
            finally:
                for proc in bench.procs:
                    if proc.poll() is None:
                        proc.kill()
            samples = scrape(bench.metrics)
            cpu = served.cpu_seconds()
        print(f"arbiter CPU time: {cpu:.1f} s")
        if not report(bench, results, samples, records):
            sys.exit("FAILED: a timeout, a bot error or a match without its record")


if __name__ == "__main__":
    main()
