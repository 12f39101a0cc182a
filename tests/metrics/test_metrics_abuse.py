"""The metrics port under abuse: made-up gRPC methods share one label, partial HTTP requests time
out (docs/reliability.md, "The metrics port")."""

from __future__ import annotations

import asyncio
import socket
import threading
import time

import grpc
from arbiter.node import ArbiterConfig
from arbiter.sessions.auth import BotDirectory
from arbiter.transport.server import create_server

from .scrape import scrape, value

PLAY = "/arbiter.v1.BotService/Play"


def test_made_up_methods_are_counted_under_one_unknown_label():
    async def scenario():
        bots = BotDirectory()
        bots.add("alice", "alice-token")
        server = await create_server(ArbiterConfig(bots=bots))
        http = server.arbiter.metrics.serve("127.0.0.1", 0)
        try:
            async with grpc.aio.insecure_channel(server.address) as channel:
                for n in range(30):
                    call = channel.unary_unary(f"/made.up.Service{n}/Method{n}")
                    try:
                        await call(b"")
                    except grpc.aio.AioRpcError as err:
                        assert err.code() == grpc.StatusCode.UNIMPLEMENTED
            return await asyncio.to_thread(scrape, f"http://{http.address}/metrics")
        finally:
            await server.stop(grace=0.5)
            http.stop()

    samples = asyncio.run(scenario())
    methods = {dict(labels).get("method") for name, labels in samples if name.startswith("arbiter_rpcs_")}
    assert not any("made.up" in str(method) for method in methods)
    assert value(samples, "arbiter_rpcs_started_total", method="unknown") == 30
    assert value(samples, "arbiter_rpcs_handled_total", method="unknown", code="UNIMPLEMENTED") == 30


def _closed_by_peer(sock: socket.socket, deadline: float) -> bool:
    """Whether the server closes ``sock`` before ``deadline`` (it sends nothing before that)."""
    while time.monotonic() < deadline:
        sock.settimeout(max(0.1, deadline - time.monotonic()))
        try:
            if not sock.recv(4096):
                return True
        except TimeoutError:
            return False
        except ConnectionResetError:
            return True
    return False


def _trickled_until_closed(sock: socket.socket, deadline: float) -> bool:
    """Send a header byte every 0.2 s (each within the per-read timeout) until the server closes."""
    sock.sendall(b"GET /metrics HTTP/1.1\r\nX-Slow: ")
    while time.monotonic() < deadline:
        try:
            sock.sendall(b"a")
        except OSError:
            return True
        if _closed_by_peer(sock, time.monotonic() + 0.2):
            return True
    return False


def test_partial_requests_on_the_metrics_port_time_out():
    bots = BotDirectory()
    bots.add("alice", "alice-token")

    async def make() -> object:
        return await create_server(ArbiterConfig(bots=bots))

    loop = asyncio.new_event_loop()
    server = loop.run_until_complete(make())
    http = server.arbiter.metrics.serve("127.0.0.1", 0, request_timeout=1.0)  # type: ignore[attr-defined]
    threads_before = threading.active_count()
    host, port = "127.0.0.1", http.port
    partial = []
    try:
        for _ in range(20):
            sock = socket.create_connection((host, port), timeout=5)
            sock.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")  # never the blank line
            partial.append(sock)
        deadline = time.monotonic() + 20
        closed = [_closed_by_peer(sock, deadline) for sock in partial]
        assert all(closed), f"{closed.count(False)} of {len(closed)} partial requests still open"
        # A request that trickles in, a byte at a time, is cut at its deadline too.
        started = time.monotonic()
        trickle = socket.create_connection((host, port), timeout=5)
        partial.append(trickle)
        assert _trickled_until_closed(trickle, deadline)
        assert time.monotonic() - started < 15
        # Their threads are gone, and the port still answers.
        while threading.active_count() > threads_before and time.monotonic() < deadline:
            time.sleep(0.05)
        assert threading.active_count() == threads_before
        assert value(scrape(f"http://{http.address}/metrics"), "arbiter_sessions") == 0
    finally:
        for sock in partial:
            sock.close()
        http.stop()
        loop.run_until_complete(server.stop(grace=0.5))  # type: ignore[attr-defined]
        loop.close()
