"""Helpers shared by the benchmarks: instant raw-protocol bots and percentile maths."""

from __future__ import annotations

import contextlib
import random
import resource
import statistics
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path[:0] = [str(Path(__file__).resolve().parent.parent / d) for d in ("server", "clients/python")]

import grpc  # noqa: E402
from arbiter_wire import convert  # noqa: E402
from arbiter_wire.v1 import bot_service_pb2 as pb  # noqa: E402
from arbiter_wire.v1 import bot_service_pb2_grpc as pb_grpc  # noqa: E402
from arbiter_wire.v1 import flank_pb2 as fpb  # noqa: E402
from arbiter_wire.v1 import surge_pb2 as spb  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
#: A channel with these options has a connection of its own (gRPC otherwise shares one between
#: the channels of a process that have the same target): one bot, one TCP connection.
CHANNEL_OPTIONS = [
    ("grpc.use_local_subchannel_pool", 1),
    ("grpc.http2.bdp_probe", 0),  # as the SDK's channels (arbiter_wire.limits)
]


def raise_file_limit() -> None:
    """Open files up to the hard limit: thousands of bots, or of their connections, need them."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def wait_ready(address: str, timeout: float = 30.0) -> None:
    import asyncio
    import time

    deadline = time.monotonic() + timeout
    while True:
        try:
            async with grpc.aio.insecure_channel(address) as channel:
                await asyncio.wait_for(channel.channel_ready(), 1.0)
                return
        except (TimeoutError, grpc.aio.AioRpcError):
            if time.monotonic() > deadline:
                raise


class Served:
    """An ``arbiter serve`` process started by ``served_process``: its address and its CPU time."""

    def __init__(self, address: str, pid: int) -> None:
        self.address = address
        self.pid = pid

    def cpu_seconds(self) -> float:
        """User plus system CPU time the process and its live children (the workers of
        ``arbiter serve --processes N``) have used so far (Linux: /proc/PID/stat)."""
        return sum(self.cpu_by_process().values())

    def cpu_by_process(self) -> dict[int, float]:
        """The same, per process id: the process itself and each of its live children."""
        import os

        found = {}
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue  # ended meanwhile
            if stat.parent.name == str(self.pid) or fields[1] == str(self.pid):
                found[int(stat.parent.name)] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        return found


@contextlib.contextmanager
def serve_process(*serve_args: str, profile: str | None = None) -> Iterator[str]:
    """Run ``arbiter serve ARGS`` in its own process on a free port; yields its address.

    ``profile``: run it under cProfile and write the statistics of its main thread to that file.
    """
    with served_process(*serve_args, profile=profile) as served:
        yield served.address


@contextlib.contextmanager
def served_process(
    *serve_args: str,
    profile: str | None = None,
    root: Path | None = None,
    database: str = "none",
    processes: int = 1,
) -> Iterator[Served]:
    """Run ``arbiter serve ARGS`` in its own process on a free port (as ``serve_process``).

    ``profile``: run it under cProfile and write the statistics of its main thread to that file.
    ``root``: run the arbiter of another checkout of the project (to compare two versions with
    the same benchmark); a checkout from before the store had no ``--database`` option and no
    store, so none is given to it.
    ``database``: the ``--database`` of ``arbiter serve`` (default ``none``: no store, the match
    core alone; ``bench/ladder.py`` and ``bench/memory.py --database`` measure the store).
    ``processes``: how many workers ``serve_args`` ask for (``--processes``); with more than one
    the arbiter is ready once its supervisor says ``listening on`` (every worker listens then).
    """
    import asyncio
    import os
    import subprocess

    root = root or ROOT
    port = free_port()
    path = [str(root / d) for d in ("server", "clients/python") if (root / d).is_dir()]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(path))
    profiler = ["-m", "cProfile", "-o", profile] if profile else []
    command = [sys.executable, *profiler, "-m", "arbiter.cli", "serve", "--port", str(port)]
    command += ["--log-level", "warning"]
    if (root / "server" / "arbiter" / "store").is_dir():
        command += ["--database", database]
    several = processes > 1
    server = subprocess.Popen(
        [*command, *serve_args], env=env, stdout=subprocess.PIPE if several else None, text=True
    )
    try:
        address = f"127.0.0.1:{port}"
        if several:
            wait_listening(server)
        asyncio.run(wait_ready(address, timeout=120.0))  # a loaded machine starts slowly
        yield Served(address, server.pid)
    finally:
        server.terminate()
        server.wait(30)


def wait_listening(server: Any) -> None:
    """Until ``arbiter serve`` prints its ``listening on`` line; the rest of its standard output
    is passed on by a thread of its own."""
    import threading

    for line in server.stdout:
        print(line, end="", flush=True)
        if line.startswith("listening on "):
            break
    else:
        raise RuntimeError("arbiter serve stopped before it listened")

    def drain() -> None:
        for line in server.stdout:
            print(line, end="", flush=True)

    threading.Thread(target=drain, daemon=True).start()


def percentile(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, round(p / 100 * (len(ordered) - 1))))
    return ordered[k]


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def instant_action(turn: Any, rng: random.Random) -> pb.Action:
    """A random legal action, read straight off the Turn (as a fast bot would)."""
    legal = turn.legal
    if legal.WhichOneof("game") == "flank":
        points = legal.flank.points
        if points:
            return pb.Action(
                flank=fpb.FlankAction(place=fpb.FlankPlace(point=points[int(rng.random() * len(points))]))
            )
        flank = fpb.FlankAction()
        getattr(flank, "pass").SetInParent()
        return pb.Action(flank=flank)
    values, squares = legal.surge.values, legal.surge.squares
    return pb.Action(
        surge=spb.SurgeAction(
            place=spb.SurgePlace(
                value=values[int(rng.random() * len(values))],
                square=squares[int(rng.random() * len(squares))],
            )
        )
    )


async def instant_bot(
    channel: grpc.aio.Channel,
    token: str,
    spec: Any,
    games: int,
    seed: int,
    think: float = 0.0,
    thinks: list[tuple[str, int, float]] | None = None,
    control: Any = None,
) -> dict[str, int]:
    """Seek and play ``games`` matches answering at once (or after ``think`` seconds)."""
    import asyncio
    import time

    rng = random.Random(seed)
    stub = pb_grpc.BotServiceStub(channel)  # type: ignore[no-untyped-call]
    call = stub.Play(metadata=(("authorization", f"Bearer {token}"),))
    counts = {"moves": 0, "games": 0, "rejected": 0}
    seek = pb.Seek(spec=spec)
    if control is not None:
        seek.time_control.CopyFrom(control)
    await call.write(pb.PlayRequest(seek=seek))
    async for message in call:
        kind = message.WhichOneof("kind")
        if kind == "turn":
            turn = message.turn
            started = time.perf_counter()
            action = instant_action(turn, rng)
            if think:
                await asyncio.sleep(think)
            move = pb.PlayRequest(move=pb.Move(match_id=turn.match_id, turn_id=turn.turn_id, action=action))
            if thinks is not None:
                thinks.append((turn.match_id, turn.turn_id, time.perf_counter() - started))
            await call.write(move)
            counts["moves"] += 1
        elif kind == "move_rejected":
            counts["rejected"] += 1
        elif kind == "match_ended":
            counts["games"] += 1
            if counts["games"] >= games:
                break
            await call.write(pb.PlayRequest(seek=seek))
    call.cancel()
    return counts


__all__ = [
    "Served",
    "convert",
    "instant_action",
    "instant_bot",
    "median",
    "pb",
    "percentile",
    "serve_process",
    "served_process",
]
