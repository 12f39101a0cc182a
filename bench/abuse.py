"""Resource exhaustion without a token: the four attacks of issue 18 on a real `arbiter serve`.

    python bench/abuse.py [--attacks idle,slowloris,junk,sse] [--idle-connections 10000]
                          [--slowloris 3000] [--junk-calls 20000] [--subscribers 2000]

Starts ``arbiter serve --web ... --metrics ...`` (SQLite in a temporary directory) as its own
process, then runs each attack in turn from this process:

- ``idle`` (item 2): HTTP/2 connections to the gRPC port that answer the server's SETTINGS and
  PINGs but never open a stream; how many the server closes, and when.
- ``slowloris`` (item 3): partial HTTP requests to the web port, a header line trickled every
  ``--trickle`` seconds, held ``--hold`` seconds; how many the server closes, whether a page is
  still served (to a reader at another address, 127.0.0.2), how much the arbiter logs meanwhile.
- ``junk`` (item 4): unary calls to made-up gRPC method paths, then the size and time of a
  ``/metrics`` scrape; and ``--metrics-partial`` partial requests to the metrics port (the
  arbiter's threads, and whether they are closed).
- ``sse`` (item 5): event-stream subscribers of one live Torrent-5 match; the match's time with
  them against the same match without them (``--sse-rounds N``: N of each, the medians
  compared), and when the last subscriber had the match's end. They all come from 127.0.0.1: lift the caps per
  address for them (``--serve-arg=--web-max-spectators-per-address --serve-arg=5000
  --serve-arg=--web-max-connections-per-address --serve-arg=0``).

During each attack two fresh bots (new connections) connect and play a Torrent-5 match: the bench
prints whether they got their Welcome, in what time, and whether the match ended within their
clocks; and the arbiter's RSS, open descriptors and threads (and its web process's: ``serve
--web`` serves the pages from a process of its own). After it, the time to recover: until the
descriptors of both are back near where they were and two fresh bots play again.

The exit status is 1 when an invariant fails (each is printed with FAIL): bots connect and play
during every attack; the server closes every idle connection within ``--recover-timeout`` and
every partial web or metrics request; the scrape stays under 1 MiB with no made-up method in it;
a web page answers during the slowloris; the arbiter logs under 1 MiB during it; the match with
subscribers takes at most 1.5 times as long as without them (the medians of the rounds; a match
alone counts as at least 0.2 s, its time being mostly noise below that). Small sizes for a quick check:
``--idle-connections 200 --slowloris 200 --junk-calls 500 --subscribers 100 --hold 10``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import http.client
import os
import statistics
import struct
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
from _common import CHANNEL_OPTIONS, ROOT, free_port, instant_action, raise_file_limit, wait_ready
from arbiter_wire import convert
from arbiter_wire.v1 import bot_service_pb2 as pb
from arbiter_wire.v1 import bot_service_pb2_grpc as pb_grpc
from arbiter_wire.v1 import common_pb2 as cpb

BOTS = {name: f"abuse-token-{name}" for name in ("probe-a", "probe-b", "watched-a", "watched-b")}
MIB = 1024 * 1024
#: Descriptors above the baseline that still count as recovered (the store, a record file, ...).
FD_SLACK = 16


# --- the arbiter under attack ---------------------------------------------------------------


@dataclass
class Served:
    """An ``arbiter serve`` process and its three ports; its standard error goes to ``log``."""

    process: subprocess.Popen[bytes]
    grpc_address: str
    web: tuple[str, int]
    metrics: tuple[str, int]
    log: Path

    def _proc(self, name: str, pid: int | None = None) -> Path:
        return Path(f"/proc/{pid or self.process.pid}/{name}")

    def web_pid(self) -> int | None:
        """The web pages' own process (``serve --web`` spawns it; None with --web-in-process)."""
        with contextlib.suppress(OSError):
            for task in os.listdir(self._proc("task")):
                for child in self._proc(f"task/{task}/children").read_text().split():
                    if b"spawn_main" in self._proc("cmdline", int(child)).read_bytes():
                        return int(child)
        return None

    def rss_mib(self, pid: int | None = None) -> float:
        for line in self._proc("status", pid).read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return float("nan")

    def threads(self, pid: int | None = None) -> int:
        for line in self._proc("status", pid).read_text().splitlines():
            if line.startswith("Threads:"):
                return int(line.split()[1])
        return -1

    def fds(self, pid: int | None = None) -> int:
        try:
            return len(os.listdir(self._proc("fd", pid)))
        except OSError:
            return -1

    def all_fds(self) -> int:
        """The descriptors of the arbiter and of its web process (where the spectators are)."""
        web = self.web_pid()
        return self.fds() + (self.fds(web) if web is not None else 0)

    def log_bytes(self) -> int:
        return self.log.stat().st_size

    def figures(self) -> str:
        said = f"RSS {self.rss_mib():.1f} MiB, {self.fds()} open descriptors, {self.threads()} threads"
        web = self.web_pid()
        if web is not None:
            said += (
                f"; its web process: RSS {self.rss_mib(web):.1f} MiB, {self.fds(web)} open descriptors,"
                f" {self.threads(web)} threads"
            )
        return said


@contextlib.contextmanager
def served(workdir: Path, serve_args: list[str]) -> Iterator[Served]:
    """``arbiter serve --web --metrics`` with the bench's bots, ready on all three ports."""
    grpc_port, web_port, metrics_port = free_port(), free_port(), free_port()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(str(ROOT / d) for d in ("server", "clients/python")))
    command = [sys.executable, "-m", "arbiter.cli", "serve", "--port", str(grpc_port)]
    command += ["--database", f"sqlite:///{workdir / 'abuse.db'}", "--records", str(workdir / "records")]
    command += ["--web", f"127.0.0.1:{web_port}", "--metrics", f"127.0.0.1:{metrics_port}"]
    command += ["--log-level", "warning"]
    for name, token in BOTS.items():
        command += ["--bot", f"{name}={token}"]
    log = workdir / "arbiter.log"
    with log.open("wb") as err:
        process = subprocess.Popen(
            [*command, *serve_args], env=env, stdout=subprocess.DEVNULL, stderr=err, cwd=workdir
        )
    arbiter = Served(
        process, f"127.0.0.1:{grpc_port}", ("127.0.0.1", web_port), ("127.0.0.1", metrics_port), log
    )
    try:
        asyncio.run(wait_ready(arbiter.grpc_address, timeout=120.0))
        wait_http(f"http://127.0.0.1:{web_port}/", 60.0)
        wait_http(f"http://127.0.0.1:{metrics_port}/metrics", 60.0)
        yield arbiter
    finally:
        process.terminate()
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()


def wait_http(url: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(url, timeout=5) as reply:
                reply.read()
                return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


# --- bots that must still play --------------------------------------------------------------


@dataclass
class Probe:
    """Two fresh bots' match: connected (both Welcomes), when, and how it ended."""

    connected: bool = False
    connect_seconds: float = float("nan")
    match_seconds: float = float("nan")
    reason: str = "none"

    @property
    def ok(self) -> bool:
        return self.connected and self.reason not in ("none", "timeout", "aborted")

    def describe(self) -> str:
        if not self.connected:
            return "bots did NOT connect"
        return (
            f"bots connected in {self.connect_seconds:.2f} s, match {self.match_seconds:.2f} s, "
            f"ended {self.reason} (within their clocks: {'yes' if self.ok else 'NO'})"
        )


class Bot:
    """One bot on a connection of its own: Welcome, then a seek and instant moves."""

    def __init__(self, address: str, name: str) -> None:
        self.channel = grpc.aio.insecure_channel(address, options=CHANNEL_OPTIONS)
        stub = pb_grpc.BotServiceStub(self.channel)  # type: ignore[no-untyped-call]
        self.call = stub.Play(metadata=(("authorization", f"Bearer {BOTS[name]}"),))

    async def welcomed(self, timeout: float) -> bool:
        try:
            message = await asyncio.wait_for(self.call.read(), timeout)
        except (TimeoutError, grpc.aio.AioRpcError):
            return False
        return message is not grpc.aio.EOF and message.WhichOneof("kind") == "welcome"

    async def play(self, release: asyncio.Event | None = None, started: Any = None) -> str:
        """Seek Torrent 5 and play it out (the first move waits for ``release``); its end reason."""
        import random

        rng = random.Random(7)
        await self.call.write(pb.PlayRequest(seek=pb.Seek(spec=convert.spec_to_pb("torrent", {"size": 5}))))
        while (message := await self.call.read()) is not grpc.aio.EOF:
            kind = message.WhichOneof("kind")
            if kind == "match_started" and started is not None:
                started(message.match_started.match_id)
            elif kind == "turn":
                if release is not None:
                    await release.wait()
                turn = message.turn
                action = instant_action(turn, rng)
                await self.call.write(
                    pb.PlayRequest(move=pb.Move(match_id=turn.match_id, turn_id=turn.turn_id, action=action))
                )
            elif kind == "match_ended":
                return (
                    cpb.EndReason.Name(message.match_ended.result.reason).removeprefix("END_REASON_").lower()
                )
        return "none"

    async def close(self) -> None:
        self.call.cancel()
        await self.channel.close()


async def connect_pair(address: str, names: tuple[str, str], deadline: float) -> list[Bot] | None:
    """Both bots welcomed (each tries again until ``deadline``), or None."""
    bots: list[Bot] = []
    for name in names:
        while True:
            bot = Bot(address, name)
            if await bot.welcomed(max(1.0, min(10.0, deadline - time.monotonic()))):
                bots.append(bot)
                break
            await bot.close()
            if time.monotonic() > deadline:
                for other in bots:
                    await other.close()
                return None
            await asyncio.sleep(0.5)
    return bots


async def probe(address: str, within: float = 60.0) -> Probe:
    """Two fresh bots connect (trying again for up to ``within`` s) and play one match."""
    result = Probe()
    started = time.monotonic()
    bots = await connect_pair(address, ("probe-a", "probe-b"), started + within)
    if bots is None:
        return result
    result.connected, result.connect_seconds = True, time.monotonic() - started
    try:
        began = time.monotonic()
        reasons = await asyncio.wait_for(asyncio.gather(*(bot.play() for bot in bots)), within)
        result.match_seconds, result.reason = time.monotonic() - began, reasons[0]
    except (TimeoutError, grpc.aio.AioRpcError) as exc:
        result.reason = type(exc).__name__
    finally:
        for bot in bots:
            await bot.close()
    return result


async def recovered(arbiter: Served, baseline_fds: int, timeout: float) -> float | None:
    """Seconds until the arbiter's descriptors are back near ``baseline_fds`` and two fresh bots
    play again (None: not within ``timeout``)."""
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        if arbiter.all_fds() <= baseline_fds + FD_SLACK and (await probe(arbiter.grpc_address, 30.0)).ok:
            return time.monotonic() - started
        await asyncio.sleep(0.5)
    return None


# --- the report -----------------------------------------------------------------------------


@dataclass
class Report:
    failures: list[str] = field(default_factory=list)

    def check(self, attack: str, holds: bool, what: str) -> None:
        print(f"  {'ok  ' if holds else 'FAIL'} {what}", flush=True)
        if not holds:
            self.failures.append(f"{attack}: {what}")


async def during_and_after(
    attack: str, arbiter: Served, baseline_fds: int, args: argparse.Namespace, report: Report
) -> Probe:
    """The probe during an attack, and the arbiter's figures then."""
    found = await probe(arbiter.grpc_address, args.probe_within)
    print(f"  during: {found.describe()}", flush=True)
    print(f"  arbiter: {arbiter.figures()} (descriptors of both at the start: {baseline_fds})", flush=True)
    report.check(attack, found.ok, "bots connect and play within their clocks during the attack")
    return found


async def recovery(
    attack: str, arbiter: Served, baseline_fds: int, args: argparse.Namespace, report: Report
) -> None:
    took = await recovered(arbiter, baseline_fds, args.recover_timeout)
    shown = "not within" if took is None else f"{took:.1f} s of"
    print(f"  recovered: {shown} {args.recover_timeout:.0f} s; arbiter: {arbiter.figures()}", flush=True)
    report.check(attack, took is not None, "the arbiter recovers after the attack")


# --- raw connections ------------------------------------------------------------------------

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"


def h2_frame(kind: int, flags: int = 0, payload: bytes = b"") -> bytes:
    return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(">I", 0) + payload


class Watched:
    """Connections of one attack, each with the moment the server closed it (None: open)."""

    def __init__(self, count_silent: bool = False) -> None:
        self.started = time.monotonic()
        self.closed_at: list[float | None] = []
        self.count_silent = count_silent
        self.silent: int = 0  # closed before the server sent a byte
        self.writers: list[asyncio.StreamWriter] = []
        self.tasks: list[asyncio.Task[None]] = []

    def add(self, writer: asyncio.StreamWriter, follow: Callable[[int], Awaitable[None]]) -> None:
        self.closed_at.append(None)
        self.writers.append(writer)
        self.tasks.append(asyncio.ensure_future(follow(len(self.closed_at) - 1)))

    def closed(self, index: int) -> None:
        self.closed_at[index] = time.monotonic() - self.started

    def age(self) -> float:
        return time.monotonic() - self.started

    def count_closed(self) -> int:
        return sum(at is not None for at in self.closed_at)

    def describe(self) -> str:
        times = sorted(at for at in self.closed_at if at is not None)
        if not times:
            return f"the server closed 0 of {len(self.closed_at)}"
        silent = f"; {self.silent} before sending anything" if self.count_silent else ""
        return (
            f"the server closed {len(times)} of {len(self.closed_at)} (first at {times[0]:.1f} s, "
            f"last at {times[-1]:.1f} s{silent})"
        )

    async def wait_closed(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while self.count_closed() < len(self.closed_at) and time.monotonic() < deadline:  # noqa: ASYNC110
            await asyncio.sleep(0.25)

    async def close_all(self) -> None:
        for writer in self.writers:
            writer.close()
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)


async def open_many(count: int, opener: Callable[[], Awaitable[None]], batch: int = 250) -> int:
    """Run ``opener`` ``count`` times, ``batch`` at once; how many failed to connect."""
    failed = 0
    for start in range(0, count, batch):
        results = await asyncio.gather(
            *(opener() for _ in range(min(batch, count - start))), return_exceptions=True
        )
        failed += sum(isinstance(r, BaseException) for r in results)
    return failed


# --- item 2: idle HTTP/2 connections --------------------------------------------------------


async def attack_idle(arbiter: Served, args: argparse.Namespace, report: Report) -> None:
    print(f"\nidle (item 2): {args.idle_connections} HTTP/2 connections that never open a stream", flush=True)
    baseline = arbiter.all_fds()
    watched = Watched(count_silent=True)
    host, port = arbiter.grpc_address.rsplit(":", 1)

    async def follow(index: int, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        said = False
        try:
            while True:
                head = await reader.readexactly(9)
                payload = await reader.readexactly(int.from_bytes(head[:3], "big"))
                said = True
                if head[3] == 4 and not head[4] & 1:  # SETTINGS: acknowledge
                    writer.write(h2_frame(4, 1))
                elif head[3] == 6 and not head[4] & 1:  # PING: answer
                    writer.write(h2_frame(6, 1, payload))
        except (asyncio.IncompleteReadError, ConnectionError):
            watched.silent += not said
            watched.closed(index)

    async def opener() -> None:
        reader, writer = await asyncio.open_connection(host, int(port))
        writer.write(PREFACE + h2_frame(4))
        watched.add(writer, lambda index: follow(index, reader, writer))

    failed = await open_many(args.idle_connections, opener)
    print(f"  opened {len(watched.closed_at)} in {watched.age():.1f} s ({failed} failed to connect)")
    await asyncio.sleep(1.0)
    print(f"  after 1 s: {watched.describe()}", flush=True)
    await during_and_after("idle", arbiter, baseline, args, report)
    await watched.wait_closed(args.recover_timeout)
    print(f"  by {watched.age():.1f} s: {watched.describe()}", flush=True)
    report.check(
        "idle",
        watched.count_closed() == len(watched.closed_at),
        f"the server closes every idle connection within {args.recover_timeout:.0f} s",
    )
    await watched.close_all()
    await recovery("idle", arbiter, baseline, args, report)


# --- item 3: slowloris on the web port ------------------------------------------------------


async def attack_slowloris(arbiter: Served, args: argparse.Namespace, report: Report) -> None:
    print(f"\nslowloris (item 3): {args.slowloris} partial HTTP requests on the web port", flush=True)
    baseline, log_before = arbiter.all_fds(), arbiter.log_bytes()
    watched = Watched()
    host, port = arbiter.web

    async def follow(index: int, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                with contextlib.suppress(TimeoutError):
                    if not await asyncio.wait_for(reader.read(4096), args.trickle):
                        break
                    continue  # the server answered something (an error): wait for its close
                writer.write(b"X-Slow: a\r\n")  # one more header line, never the blank one
                await writer.drain()
        except ConnectionError:
            pass
        watched.closed(index)

    async def opener() -> None:
        reader, writer = await asyncio.open_connection(host, port)
        writer.write(b"GET / HTTP/1.1\r\nHost: bench\r\n")
        watched.add(writer, lambda index: follow(index, reader, writer))

    failed = await open_many(args.slowloris, opener)
    print(f"  opened {len(watched.closed_at)} in {watched.age():.1f} s ({failed} failed to connect)")
    await during_and_after("slowloris", arbiter, baseline, args, report)
    # The attack comes from 127.0.0.1, which the web port's cap per address holds to its share:
    # an ordinary reader is at another address (127.0.0.2).
    same = await asyncio.to_thread(timed_get_from, "127.0.0.1", host, port, 10.0)
    page = await asyncio.to_thread(timed_get_from, "127.0.0.2", host, port, 10.0)
    print(f"  a web page during the attack, from the attacker's address: {same}", flush=True)
    print(f"  a web page during the attack, from another address: {page}", flush=True)
    report.check("slowloris", page.startswith("200"), "a web page is served during the attack")
    await watched.wait_closed(max(0.0, args.hold - (watched.age())))
    logged = arbiter.log_bytes() - log_before
    print(f"  by {watched.age():.1f} s: {watched.describe()}; the arbiter logged {logged} bytes")
    report.check(
        "slowloris",
        watched.count_closed() == len(watched.closed_at),
        f"every partial request is closed within {args.hold:.0f} s",
    )
    report.check("slowloris", logged < MIB, "the arbiter logs under 1 MiB during the attack")
    await watched.close_all()
    await recovery("slowloris", arbiter, baseline, args, report)


def timed_get_from(local: str, host: str, port: int, timeout: float) -> str:
    """``GET /`` from the local address ``local``: the status, the time, the size."""
    started = time.monotonic()
    connection = http.client.HTTPConnection(host, port, timeout=timeout, source_address=(local, 0))
    try:
        connection.request("GET", "/")
        reply = connection.getresponse()
        size = len(reply.read())
        return f"{reply.status} in {time.monotonic() - started:.2f} s ({size} bytes)"
    except OSError as exc:
        return f"failed after {time.monotonic() - started:.1f} s: {exc}"
    finally:
        connection.close()


# --- item 4: made-up methods and the metrics port -------------------------------------------


async def attack_junk(arbiter: Served, args: argparse.Namespace, report: Report) -> None:
    print(f"\njunk (item 4): {args.junk_calls} calls to made-up gRPC methods", flush=True)
    baseline, rss_before = arbiter.all_fds(), arbiter.rss_mib()
    channels = [grpc.aio.insecure_channel(arbiter.grpc_address, options=CHANNEL_OPTIONS) for _ in range(8)]
    codes: dict[str, int] = {}
    started = time.monotonic()
    limit = asyncio.Semaphore(256)

    async def junk(n: int) -> None:
        async with limit:
            call = channels[n % len(channels)].unary_unary(f"/junk{n}.Made{n}/Up{n}")
            try:
                await call(b"", timeout=30)
                code = "OK"
            except grpc.aio.AioRpcError as err:
                code = err.code().name
            codes[code] = codes.get(code, 0) + 1

    await asyncio.gather(*(junk(n) for n in range(args.junk_calls)))
    for channel in channels:
        await channel.close()
    print(f"  {args.junk_calls} calls in {time.monotonic() - started:.1f} s: {codes}")
    print(f"  arbiter RSS {arbiter.rss_mib():.1f} MiB (+{arbiter.rss_mib() - rss_before:.1f})", flush=True)
    url = f"http://{arbiter.metrics[0]}:{arbiter.metrics[1]}/metrics"
    began = time.monotonic()
    text = await asyncio.to_thread(lambda: urllib.request.urlopen(url, timeout=120).read())
    took = time.monotonic() - began
    print(f"  /metrics: {len(text)} bytes in {took:.2f} s", flush=True)
    report.check("junk", len(text) < MIB, "a scrape stays under 1 MiB")
    report.check("junk", b"junk" not in text, "no made-up method path is a label")
    await metrics_partials(arbiter, args, report)
    await during_and_after("junk", arbiter, baseline, args, report)
    await recovery("junk", arbiter, baseline, args, report)


async def metrics_partials(arbiter: Served, args: argparse.Namespace, report: Report) -> None:
    """Partial requests on the metrics port: the arbiter's threads, and whether they are closed."""
    threads = arbiter.threads()
    watched = Watched()
    host, port = arbiter.metrics

    async def follow(index: int, reader: asyncio.StreamReader) -> None:
        with contextlib.suppress(ConnectionError):
            while await reader.read(4096):
                pass
        watched.closed(index)

    async def opener() -> None:
        reader, writer = await asyncio.open_connection(host, port)
        writer.write(b"GET /metrics HTTP/1.1\r\nHost: bench\r\n")
        watched.add(writer, lambda index: follow(index, reader))

    await open_many(args.metrics_partial, opener)
    await asyncio.sleep(1.0)
    print(
        f"  {args.metrics_partial} partial requests on the metrics port:"
        f" threads {threads} -> {arbiter.threads()}"
    )
    await watched.wait_closed(args.recover_timeout)
    print(f"  by {watched.age():.1f} s: {watched.describe()}; threads {arbiter.threads()}")
    report.check(
        "junk",
        watched.count_closed() == len(watched.closed_at),
        f"every partial metrics request is closed within {args.recover_timeout:.0f} s",
    )
    await watched.close_all()


# --- item 5: spectators of one live match ---------------------------------------------------


@dataclass
class WatchedMatch:
    """A watched match: its seconds, the subscribers answered 200, the bytes they received, and
    the seconds from the match's end until the last of them had its ``end`` event (None: not all
    within ``--recover-timeout``)."""

    seconds: float
    accepted: int
    received: int
    delivered: float | None


async def watched_match(arbiter: Served, subscribers: int, args: argparse.Namespace) -> WatchedMatch:
    """A Torrent-5 match whose first move waits until ``subscribers`` follow its event stream."""
    bots = await connect_pair(arbiter.grpc_address, ("watched-a", "watched-b"), time.monotonic() + 60)
    assert bots is not None, "the watched bots did not connect"
    release = asyncio.Event()
    match_id: asyncio.Future[str] = asyncio.get_running_loop().create_future()

    def started(found: str) -> None:
        if not match_id.done():
            match_id.set_result(found)

    games = [asyncio.ensure_future(bot.play(release, started)) for bot in bots]
    streams = Streams()
    try:
        mid = await asyncio.wait_for(match_id, 60)
        await streams.open(arbiter.web, f"/matches/{mid}/events", subscribers)
        began = time.monotonic()
        release.set()
        await asyncio.wait_for(asyncio.gather(*games), args.recover_timeout)
        ended = time.monotonic()
        took = ended - began
        deadline = ended + args.recover_timeout
        while streams.ended < streams.accepted and time.monotonic() < deadline:  # noqa: ASYNC110
            await asyncio.sleep(0.05)  # the last frames and the end event reach the subscribers
        delivered = streams.last_end - ended if streams.ended >= streams.accepted else None
        return WatchedMatch(took, streams.accepted, streams.received, delivered)
    finally:
        release.set()
        await streams.close()
        for bot in bots:
            await bot.close()


class Streams:
    """Event-stream subscribers that read everything and count it."""

    def __init__(self) -> None:
        self.accepted = 0
        self.received = 0
        #: Streams that had their ``end`` event, and when the last one had it.
        self.ended = 0
        self.last_end = 0.0
        self.writers: list[asyncio.StreamWriter] = []
        self.tasks: list[asyncio.Task[None]] = []

    async def open(self, web: tuple[str, int], path: str, count: int) -> None:
        answered: list[asyncio.Future[None]] = []

        async def one() -> None:
            reader, writer = await asyncio.open_connection(*web)
            writer.write(f"GET {path} HTTP/1.1\r\nHost: bench\r\nAccept: text/event-stream\r\n\r\n".encode())
            self.writers.append(writer)
            done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            answered.append(done)
            self.tasks.append(asyncio.ensure_future(self._read(reader, done)))

        await open_many(count, one)
        await asyncio.wait_for(asyncio.gather(*answered, return_exceptions=True), 120)

    async def _read(self, reader: asyncio.StreamReader, answered: asyncio.Future[None]) -> None:
        try:
            status = await reader.readline()
            self.accepted += b" 200 " in status
            answered.set_result(None)
            tail = b""
            while chunk := await reader.read(65536):
                self.received += len(chunk)
                if b"event: end" in tail + chunk:
                    self.ended += 1
                    self.last_end = time.monotonic()
                tail = chunk[-16:]
        except ConnectionError:
            pass
        finally:
            if not answered.done():
                answered.set_result(None)

    async def close(self) -> None:
        for writer in self.writers:
            writer.close()
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)


async def attack_sse(arbiter: Served, args: argparse.Namespace, report: Report) -> None:
    print(
        f"\nsse (item 5): {args.subscribers} event-stream subscribers of one live Torrent-5 match"
        f" ({args.sse_rounds} round(s): a match alone, then one watched)",
        flush=True,
    )
    baseline = arbiter.all_fds()
    alone_times: list[float] = []
    watched_times: list[float] = []
    found: Probe | None = None
    for number in range(1, args.sse_rounds + 1):
        alone = (await watched_match(arbiter, 0, args)).seconds
        flood = asyncio.ensure_future(watched_match(arbiter, args.subscribers, args))
        await asyncio.sleep(0)
        if found is None:  # the fresh bots' probe, in the first round
            watched, found = await asyncio.gather(flood, probe_when_subscribed(arbiter, args))
        else:
            watched = await flood
        took = watched.seconds
        delivered = "not all" if watched.delivered is None else f"{watched.delivered:.2f} s"
        print(
            f"  round {number}: the match took {alone:.2f} s without subscribers, {took:.2f} s with"
            f" {args.subscribers} ({watched.accepted} answered 200; {took / alone:.1f} times as long);"
            f" {watched.received / MIB:.1f} MiB sent to them, the last had the match's end {delivered}"
            " after it ended",
            flush=True,
        )
        alone_times.append(alone)
        watched_times.append(took)
    alone, took = statistics.median(alone_times), statistics.median(watched_times)
    print(
        f"  medians: {alone:.2f} s without subscribers, {took:.2f} s with them"
        f" ({took / alone:.1f} times as long)",
        flush=True,
    )
    assert found is not None
    print(f"  during: {found.describe()}")
    print(f"  arbiter: {arbiter.figures()} (descriptors of both at the start: {baseline})", flush=True)
    report.check("sse", found.ok, "bots connect and play within their clocks during the attack")
    report.check(
        "sse", took <= 1.5 * max(alone, 0.2), "the match takes at most 1.5 times as long with subscribers"
    )
    await recovery("sse", arbiter, baseline, args, report)


async def probe_when_subscribed(arbiter: Served, args: argparse.Namespace) -> Probe:
    """The probe, once most subscribers are connected (the descriptors have grown)."""
    start_fds, deadline = arbiter.all_fds(), time.monotonic() + 60
    while arbiter.all_fds() < start_fds + args.subscribers * 0.9 and time.monotonic() < deadline:  # noqa: ASYNC110
        await asyncio.sleep(0.1)
    return await probe(arbiter.grpc_address, args.probe_within)


# --- main -----------------------------------------------------------------------------------

ATTACKS = {"idle": attack_idle, "slowloris": attack_slowloris, "junk": attack_junk, "sse": attack_sse}


async def run(arbiter: Served, args: argparse.Namespace) -> Report:
    report = Report()
    first = await probe(arbiter.grpc_address)
    print(f"before any attack: {first.describe()}; arbiter: {arbiter.figures()}", flush=True)
    for name in args.attacks.split(","):
        await ATTACKS[name](arbiter, args, report)
    return report


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--attacks", default="idle,slowloris,junk,sse", help="which, in this order")
    parser.add_argument("--idle-connections", type=int, default=10_000)
    parser.add_argument("--slowloris", type=int, default=3_000)
    parser.add_argument("--junk-calls", type=int, default=20_000)
    parser.add_argument(
        "--metrics-partial", type=int, default=300, help="partial requests on the metrics port"
    )
    parser.add_argument("--subscribers", type=int, default=2_000)
    parser.add_argument(
        "--sse-rounds", type=int, default=1, help="sse: matches alone and watched (the medians are checked)"
    )
    parser.add_argument("--hold", type=float, default=60.0, help="seconds the slowloris lasts at most")
    parser.add_argument(
        "--trickle", type=float, default=10.0, help="seconds between a slowloris's header lines"
    )
    parser.add_argument(
        "--probe-within", type=float, default=60.0, help="seconds the bots may take to connect"
    )
    parser.add_argument("--recover-timeout", type=float, default=120.0)
    parser.add_argument("--serve-arg", action="append", default=[], help="one more argument of arbiter serve")
    args = parser.parse_args()
    unknown = set(args.attacks.split(",")) - set(ATTACKS)
    if unknown:
        parser.error(f"unknown attacks: {', '.join(sorted(unknown))} (choose from {', '.join(ATTACKS)})")
    raise_file_limit()
    with (
        tempfile.TemporaryDirectory(prefix="abuse-") as workdir,
        served(Path(workdir), args.serve_arg) as arbiter,
    ):
        report = asyncio.run(run(arbiter, args))
        print(f"\narbiter log: {arbiter.log_bytes()} bytes in all")
    if report.failures:
        print(f"\n{len(report.failures)} invariant(s) failed:")
        for failure in report.failures:
            print(f"  {failure}")
        sys.exit(1)
    print("\nevery invariant held")


if __name__ == "__main__":
    main()
