"""Clock fairness under attack: do bots that answer at once ever lose on time to the arbiter's lag?

    python bench/clock_fairness.py [--matches 2000] [--concurrent 10] [--cap-ms 30] [--attack]
                                   [--streams 2] [--workers 2] [--tree DIR]

Starts `arbiter serve` in its own process (no store, records on, log level info as in production,
every match capped at CAP_MS per decision, loss on timeout), then:

- WORKERS bot processes, each with CONCURRENT/WORKERS pairs of instant bots (one connection per
  bot, as real bots connect) that answer every Turn straight off its legal actions (well under a
  millisecond), playing Torrent 5x5 matches (about 62 decisions each) until MATCHES are played;
- with --attack, one attacker process per kind, STREAMS connections each, all at once and at the
  lowest CPU priority (nice 19: on a real network they would be other machines; here they must
  not take the bots' share of the two cores, while the arbiter still serves all their traffic):
  `garbage` (TCP connections that send random bytes, or the HTTP/2 preface and then junk, to the
  gRPC port), `malformed` (Play streams with a wrong token, and streams whose requests do not
  decode as a PlayRequest), `flood` (Play streams sending valid but useless requests as fast as
  their answers come back: moves to unknown matches, seeks with bad options, ladder joins on a
  node without ladders) and `unread` (Play streams that send such requests and seek Fravan
  matches of their own, and never read a reply, until the arbiter closes them).

It prints the false flags (matches the instant bots lost on time: there must be none) with the
first few timeout details, the time charged per move (p50/p99/p99.9/max, from the match
records), the lag inside the arbiter process as measured by a loop-lag monitor that this script's
launcher starts there (`arbiter.hosting.looplag`, loaded from this checkout, so the arbiter of any
tree is measured the same way; its figures are reset once the arbiter is up), and, for each flag
the bots saw, whether their own process stalled (by the same monitor in the bot processes):
a flag while the bot's own process stalled 5 ms or more is the bot side's doing.

--tree DIR runs the arbiter from DIR/server (e.g. an export of main: `git archive main server |
tar -x -C DIR`) with this checkout's SDK and bench, to compare before and after in one sitting.
The machine is shared: run both, alternating, and compare within a sitting.

Diagnosis: CLOCK_FAIRNESS_DIAGNOSE=gc prints every garbage collection in the arbiter that takes
more than 5 ms and the number of objects it tracks at the end; CLOCK_FAIRNESS_DIAGNOSE=all also
runs its loop in asyncio's debug mode (each callback slower than 15 ms is logged; much slower).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib.util
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import grpc
from _common import ROOT, convert, free_port, instant_action, pb, percentile, wait_ready
from arbiter_wire import reasons
from arbiter_wire.reasons import reason_of
from arbiter_wire.v1 import bot_service_pb2_grpc as pb_grpc

PLAY = "/arbiter.v1.BotService/Play"
#: The attackers run at the lowest priority: on a real network they are other machines, and here
#: they must not take the bots' share of the CPU (the arbiter still serves all of their traffic).
ATTACKER_NICE = 19
ATTACKS = ("garbage", "malformed", "flood", "unread")


def looplag_module() -> ModuleType:
    """This checkout's loop-lag monitor, loaded from its file (whatever tree the arbiter runs)."""
    path = ROOT / "server" / "arbiter" / "hosting" / "looplag.py"
    spec = importlib.util.spec_from_file_location("bench_looplag", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_looplag"] = module
    spec.loader.exec_module(module)
    return module


# --- the arbiter, with a loop-lag monitor started by the launcher --------------------------------
def serve_child(report: str, serve_args: list[str]) -> None:
    """In the arbiter's process: watch the loop `asyncio.run` makes, then run `arbiter serve`."""
    monitor = looplag_module().LoopLagMonitor()

    class Policy(asyncio.DefaultEventLoopPolicy):
        def new_event_loop(self) -> asyncio.AbstractEventLoop:
            loop = super().new_event_loop()
            loop.call_soon(monitor.start, loop)
            if os.environ.get("CLOCK_FAIRNESS_DIAGNOSE") == "all":
                loop.set_debug(True)
                loop.slow_callback_duration = 0.015
            return loop

    asyncio.set_event_loop_policy(Policy())
    # The bench resets the figures once the arbiter is up (start-up is not what it measures).
    signal.signal(signal.SIGUSR1, lambda *_: monitor.reset())
    if os.environ.get("CLOCK_FAIRNESS_DIAGNOSE"):
        watch_gc()
    sys.path.insert(0, os.environ["CLOCK_FAIRNESS_SERVER"])  # before _common's own server/
    from arbiter.cli import main

    try:
        main(["serve", *serve_args], standalone_mode=False)
    finally:
        Path(report).write_text(json.dumps(monitor.summary()))
        if os.environ.get("CLOCK_FAIRNESS_DIAGNOSE"):
            import gc

            print(f"objects tracked at the end: {len(gc.get_objects())}", file=sys.stderr)


def watch_gc() -> None:
    """Print every garbage collection that takes more than 5 ms (diagnosis)."""
    import gc

    started: list[float] = [0.0]

    def note(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            started[0] = time.perf_counter()
            return
        took = time.perf_counter() - started[0]
        if took > 0.005:
            print(f"gc generation {info['generation']}: {took * 1e3:.1f} ms", file=sys.stderr)

    gc.callbacks.append(note)


@contextlib.contextmanager
def arbiter_process(
    tree: Path, report: Path, log: Path, serve_args: list[str]
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    port = free_port()
    paths = [str(tree / "server"), str(ROOT / "clients" / "python"), str(ROOT / "bench")]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(paths), CLOCK_FAIRNESS_SERVER=paths[0])
    command = [sys.executable, str(Path(__file__).resolve()), "_serve", str(report), "--"]
    command += ["--port", str(port), "--database", "none", *serve_args]
    with log.open("w") as log_file:
        server = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=log_file)
        try:
            address = f"127.0.0.1:{port}"
            asyncio.run(wait_ready(address))
            yield address, server
        finally:
            server.terminate()
            server.wait(60)


# --- the instant bots ---------------------------------------------------------------------------
#: A flag is the bot process's own doing when its loop was this late during the turn.
OWN_STALL = 0.005
#: Seconds a bot waits for an opponent before it concludes that the others are done.
SEEK_WAIT = 10.0


async def fast_bot(
    channel: grpc.aio.Channel, token: str, games: int, seed: int, monitor: Any, out: dict[str, Any]
) -> None:
    """Seek Torrent 5x5 and play ``games`` matches, answering every Turn at once.

    For each flag (CLOCK_EXPIRED) it notes how late its own process's loop ran between its last
    message and the refusal: if that is OWN_STALL or more, the bot itself was held up (the machine
    is shared), else nothing on the bot's side explains the flag; and the time from its receiving
    the Turn to its receiving the refusal (short: the Turn itself reached it late). A bot still
    waiting for an opponent after SEEK_WAIT seconds stops (the others have played their games).
    """
    rng = random.Random(seed)
    stub = pb_grpc.BotServiceStub(channel)  # type: ignore[no-untyped-call]
    call = stub.Play(metadata=(("authorization", f"Bearer {token}"),))
    seek = pb.PlayRequest(seek=pb.Seek(spec=convert.spec_to_pb("torrent", {"size": 5})))
    await call.write(seek)
    played = 0
    lag_mark = monitor.lag()
    turn_seen = time.monotonic()
    seeking = True
    while True:
        try:
            message = await asyncio.wait_for(call.read(), SEEK_WAIT if seeking else None)
        except TimeoutError:
            break
        if message is grpc.aio.EOF:
            break
        kind = message.WhichOneof("kind")
        if kind in ("match_started", "turn"):  # the Welcome and SeekPending leave it seeking
            seeking = False
        if kind == "turn":
            turn = message.turn
            turn_seen = time.monotonic()
            started = time.perf_counter()
            action = instant_action(turn, rng)
            move = pb.PlayRequest(move=pb.Move(match_id=turn.match_id, turn_id=turn.turn_id, action=action))
            out["think_max"] = max(out["think_max"], time.perf_counter() - started)
            lag_mark = monitor.lag()
            await call.write(move)
            out["moves"] += 1
        elif kind == "move_rejected" and reason_of(message.move_rejected.status) == reasons.CLOCK_EXPIRED:
            own = monitor.lag() - lag_mark
            if own >= OWN_STALL:
                out["own_stalls"].append(round(own * 1e3, 1))
            else:
                out["unexplained"].append(round((time.monotonic() - turn_seen) * 1e3, 1))
        elif kind == "match_ended":
            played += 1
            if played >= games:
                break
            lag_mark = monitor.lag()
            seeking = True
            await call.write(seek)
    call.cancel()


async def bot_worker(address: str, worker: int, pairs: int, games: int) -> dict[str, Any]:
    monitor = looplag_module().LoopLagMonitor()
    monitor.start()
    out: dict[str, Any] = {"moves": 0, "think_max": 0.0, "own_stalls": [], "unexplained": []}
    channels = [grpc.aio.insecure_channel(address) for _ in range(2 * pairs)]
    await asyncio.gather(
        *(
            fast_bot(channel, f"f{worker}_{i}", games, worker * 1000 + i, monitor, out)
            for i, channel in enumerate(channels)
        )
    )
    for channel in channels:
        await channel.close()
    monitor.stop()
    out["lag"] = monitor.summary()
    return out


# --- the attackers ------------------------------------------------------------------------------
async def garbage(host: str, port: int, rng: random.Random) -> None:
    """Connect, send junk (raw, or after the HTTP/2 preface), close; again and again."""
    preface = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
    while True:
        try:
            _, writer = await asyncio.open_connection(host, port)
            junk = rng.randbytes(rng.randrange(16, 4096))
            writer.write(preface + junk if rng.random() < 0.5 else junk)
            await writer.drain()
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()
        except OSError:
            pass
        await asyncio.sleep(0.005)


async def malformed(address: str, token: str, rng: random.Random) -> None:
    """Play streams with a wrong token, and streams whose requests do not decode."""
    async with grpc.aio.insecure_channel(address) as channel:
        play = channel.stream_stream(PLAY)  # no serializers: bytes go out as they are
        while True:
            bad_token = rng.random() < 0.5
            metadata = (("authorization", f"Bearer {'nope' if bad_token else token}"),)
            call = play(metadata=metadata)
            with contextlib.suppress(grpc.aio.AioRpcError, asyncio.CancelledError):
                await call.write(b"\xff" + rng.randbytes(rng.randrange(8, 512)))
                async for _ in call:
                    pass
            call.cancel()
            await asyncio.sleep(0.01)


def useless_requests(rng: random.Random) -> list[pb.PlayRequest]:
    bad_move = pb.Move(match_id=rng.randbytes(8).hex(), turn_id=rng.randrange(1, 99))
    bad_seek = pb.Seek(spec=convert.spec_to_pb("torrent", {"size": 5}))
    bad_seek.spec.flank.size = 4  # not a Torrent size: SeekRejected
    return [
        pb.PlayRequest(move=bad_move),
        pb.PlayRequest(seek=bad_seek),
        pb.PlayRequest(join_ladder=pb.JoinLadder(ladder="no-such-ladder")),
    ]


async def flood(address: str, token: str, rng: random.Random) -> None:
    """Valid but useless requests, as fast as their answers come back."""
    stub_metadata = (("authorization", f"Bearer {token}"),)
    async with grpc.aio.insecure_channel(address) as channel:
        play = channel.stream_stream(
            PLAY,
            request_serializer=pb.PlayRequest.SerializeToString,
            response_deserializer=pb.PlayResponse.FromString,
        )
        while True:
            call = play(metadata=stub_metadata)
            with contextlib.suppress(grpc.aio.AioRpcError, asyncio.CancelledError):
                await call.read()  # the welcome
                for _ in range(2000):
                    for request in useless_requests(rng):
                        await call.write(request)
                        await call.read()
            call.cancel()


async def unread(address: str, token: str, rng: random.Random) -> None:
    """Send requests (and seek matches of its own) but never read a reply, until closed."""
    fravan = pb.PlayRequest(seek=pb.Seek(spec=convert.spec_to_pb("fravan", {"size": 5})))
    async with grpc.aio.insecure_channel(address) as channel:
        play = channel.stream_stream(
            PLAY,
            request_serializer=pb.PlayRequest.SerializeToString,
            response_deserializer=pb.PlayResponse.FromString,
        )
        while True:
            call = play(metadata=(("authorization", f"Bearer {token}"),))
            with contextlib.suppress(grpc.aio.AioRpcError, asyncio.CancelledError):
                await call.write(fravan)
                for _ in range(5000):
                    for request in useless_requests(rng):
                        await call.write(request)
                    await asyncio.sleep(0.001)
            call.cancel()
            await asyncio.sleep(0.05)


async def attack(address: str, kind: str, streams: int) -> None:
    host, port = address.rsplit(":", 1)
    jobs = []
    for i in range(streams):
        rng = random.Random(f"{kind}{i}")
        token = f"x{kind}{i}"
        if kind == "garbage":
            jobs.append(garbage(host, int(port), rng))
        elif kind == "malformed":
            jobs.append(malformed(address, token, rng))
        elif kind == "flood":
            jobs.append(flood(address, token, rng))
        else:
            jobs.append(unread(address, token, rng))
    await asyncio.gather(*jobs)


# --- the run ------------------------------------------------------------------------------------
def spawn(*args: str, nice: int = 0) -> subprocess.Popen[str]:
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join(str(ROOT / d) for d in ("server", "clients/python", "bench"))
    )
    return subprocess.Popen(
        [sys.executable, str(Path(__file__).resolve()), *args],
        env=env,
        stdout=subprocess.PIPE,
        text=True,
        preexec_fn=(lambda: os.nice(nice)) if nice else None,
    )


def read_records(records: Path) -> dict[str, Any]:
    charged: list[float] = []
    flags: list[str] = []
    matches = 0
    attackers_matches = 0
    for path in records.glob("*.json"):
        record = json.loads(path.read_text())
        seats = record["seats"]
        if not all(name.startswith("f") for name in seats.values()):
            attackers_matches += 1
            continue
        matches += 1
        charged += [a["charged"] for a in record["actions"] if a["charged"] is not None]
        if record["result"]["reason"] == "timeout":
            flags.append(
                f"{record['result']['detail']} (decision {len(record['actions']) + 1},"
                f" match started at {record['started_at']:.3f})"
            )
    return {"matches": matches, "charged": charged, "flags": flags, "attackers_matches": attackers_matches}


def log_summary(path: Path) -> dict[str, int]:
    """How many lines of each event the arbiter logged (text that is not JSON counts as "other")."""
    counts: dict[str, int] = {}
    for line in path.open():
        try:
            event = str(json.loads(line).get("event"))
        except ValueError:
            event = "other"
        counts[event] = counts.get(event, 0) + 1
    return counts


def tokens_file(path: Path, workers: int, pairs: int, streams: int) -> None:
    lines = [f"f{w}_{i}=f{w}_{i}\n" for w in range(workers) for i in range(2 * pairs)]
    lines += [f"x{kind}{i}=x{kind}{i}\n" for kind in ATTACKS for i in range(streams)]
    path.write_text("".join(lines))


def has_bad_token_limit(tree: Path) -> bool:
    """Whether the arbiter of ``tree`` has the failed-token rate limit (later than the rate limits)."""
    options = tree / "server" / "arbiter" / "cli_hosting.py"
    return options.exists() and "--limit-bad-tokens" in options.read_text()


def run(args: argparse.Namespace) -> None:
    pairs = max(1, args.concurrent // args.workers)
    games = max(1, -(-args.matches // (pairs * args.workers)))
    with tempfile.TemporaryDirectory() as tmp_text:
        tmp = Path(tmp_text)
        tokens_file(tmp / "tokens", args.workers, pairs, args.streams)
        serve_args = ["--tokens-file", str(tmp / "tokens"), "--records", str(tmp / "records")]
        serve_args += [
            "--base",
            "0",
            "--per-decision",
            str(args.cap_ms / 1000),
            "--log-level",
            args.log_level,
        ]
        tree = Path(args.tree).resolve() if args.tree else ROOT
        if has_bad_token_limit(tree):
            # The attackers share the bots' loopback address: the failed-token limit, which
            # refuses an address whatever its token (docs/protocol.md), would shut the bots out
            # too. Off, every wrong token is looked up: the heavier load for the arbiter.
            serve_args += ["--limit-bad-tokens", "0"]
        report = tmp / "lag.json"
        with arbiter_process(tree, report, tmp / "arbiter.log", serve_args) as (address, server):
            attackers = (
                [spawn("_attack", address, kind, str(args.streams), nice=ATTACKER_NICE) for kind in ATTACKS]
                if args.attack
                else []
            )
            time.sleep(1.0 if attackers else 0.0)
            server.send_signal(signal.SIGUSR1)
            print(f"arbiter pid {server.pid}", file=sys.stderr, flush=True)
            started = time.perf_counter()
            workers = [spawn("_bots", address, str(w), str(pairs), str(games)) for w in range(args.workers)]
            try:
                outputs = [json.loads(worker.communicate()[0]) for worker in workers]
                wall = time.perf_counter() - started
            finally:  # a failed worker must not leave the others, or the attackers, running
                for child in [*workers, *attackers]:
                    child.terminate()
                for child in [*workers, *attackers]:
                    child.wait(30)
        found = read_records(tmp / "records")
        lag = json.loads(report.read_text()) if report.exists() else {}
        log_lines = log_summary(tmp / "arbiter.log")
        if os.environ.get("CLOCK_FAIRNESS_DIAGNOSE"):
            print((tmp / "arbiter.log").read_text()[-20000:])
    print_report(args, tree, found, outputs, lag, wall, log_lines)


def print_report(
    args: argparse.Namespace,
    tree: Path,
    found: dict[str, Any],
    outputs: list[dict[str, Any]],
    lag: dict[str, Any],
    wall: float,
    log_lines: dict[str, int],
) -> None:
    charged = found["charged"]
    moves = sum(o["moves"] for o in outputs)
    attack = f"attack: {', '.join(ATTACKS)} x {args.streams} each" if args.attack else "no attack"
    print(f"arbiter from {tree}; {attack}; cap {args.cap_ms:g} ms per decision")
    print(
        f"{found['matches']} matches of instant bots ({args.concurrent} at a time),"
        f" {moves} moves in {wall:.1f} s"
    )
    flags = found["flags"]
    rate = f"1 in {found['matches'] / len(flags):.0f}" if flags else "none"
    print(f"false flags (instant bots lost on time): {len(flags)} ({rate})")
    for detail in flags[: args.show_flags]:
        print(f"  {detail}")
    if charged:
        print(
            f"charged per move: p50 {percentile(charged, 50) * 1e3:.2f} ms,"
            f" p99 {percentile(charged, 99) * 1e3:.2f} ms, p99.9 {percentile(charged, 99.9) * 1e3:.2f} ms,"
            f" max {max(charged) * 1e3:.2f} ms"
        )
    if lag:
        print(
            f"arbiter loop lateness: p50 {lag['late_p50_ms']:.0f} ms, p99 {lag['late_p99_ms']:.0f} ms, "
            f"p99.9 {lag['late_p999_ms']:.0f} ms, max {lag['late_max_ms']:.1f} ms "
            f"({lag['ticks']} ticks; {lag['lag_total_ms'] / 1e3:.2f} s of lag in all)"
        )
        if "thread_wait_max_ms" in lag:
            print(
                f"arbiter threads kept waiting for a CPU: longest {lag['thread_wait_max_ms']:.1f} ms;"
                f" lag counted for them beyond the loop's lateness"
                f" {lag['lag_from_thread_waits_ms'] / 1e3:.2f} s"
            )
    worst = max((o["lag"]["late_max_ms"] for o in outputs), default=0.0)
    think = max((o["think_max"] for o in outputs), default=0.0)
    print(f"bot processes: loop lateness max {worst:.1f} ms; own think time max {think * 1e3:.2f} ms")
    own = sorted(x for o in outputs for x in o["own_stalls"])
    unexplained = sorted(x for o in outputs for x in o["unexplained"])
    print(
        f"flags the bots saw: {len(own)} while their own process stalled >= {OWN_STALL * 1e3:.0f} ms"
        f" (stalls {own[:3]}...{own[-3:]} ms), {len(unexplained)} with no stall of their own"
    )
    if unexplained:
        print(
            f"  for those, Turn received -> refusal received: p50 {percentile(unexplained, 50):.1f} ms,"
            f" min {unexplained[0]:.1f} ms, max {unexplained[-1]:.1f} ms (short: the Turn came late)"
        )
    print(
        f"matches among the attackers: {found['attackers_matches']};"
        f" arbiter log lines: {sum(log_lines.values())}"
    )
    print(f"  by event: {dict(sorted(log_lines.items(), key=lambda kv: -kv[1])[:8])}")


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "_serve":
        serve_child(sys.argv[2], sys.argv[4:])
        return
    if len(sys.argv) > 1 and sys.argv[1] == "_bots":
        address, worker, pairs, games = sys.argv[2], *map(int, sys.argv[3:6])
        print(json.dumps(asyncio.run(bot_worker(address, worker, pairs, games))))
        return
    if len(sys.argv) > 1 and sys.argv[1] == "_attack":
        with contextlib.suppress(KeyboardInterrupt):
            asyncio.run(attack(sys.argv[2], sys.argv[3], int(sys.argv[4])))
        return
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--matches", type=int, default=2000, help="matches of instant bots in all")
    parser.add_argument("--concurrent", type=int, default=10, help="matches of instant bots at a time")
    parser.add_argument("--workers", type=int, default=2, help="processes the instant bots run in")
    parser.add_argument("--cap-ms", type=float, default=30.0, help="per-decision cap")
    parser.add_argument("--attack", action="store_true", help="run the attackers alongside")
    parser.add_argument("--streams", type=int, default=2, help="connections per kind of attack")
    parser.add_argument("--tree", help="run the arbiter from DIR/server (default: this checkout)")
    parser.add_argument("--show-flags", type=int, default=5, help="print the details of this many flags")
    parser.add_argument("--log-level", default="info", help="the arbiter's (production runs at info)")
    run(parser.parse_args())


if __name__ == "__main__":
    main()
