"""The gRPC port's connections: idle ones are closed, and there are caps overall and per address
(docs/reliability.md, "Idle gRPC connections and connection caps")."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator

import grpc
from arbiter.node import ArbiterConfig
from arbiter.security.connections import ConnectionLimits
from arbiter.sessions.auth import BotDirectory
from arbiter.transport.server import RunningServer, create_server
from arbiter_wire.reasons import reason_of
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_status import rpc_status

from tests.server.raw_client import TOKENS, RawBot, connect

from .h2idle import GOAWAY, SETTINGS, IdleConnection
from .test_serve_options import port_of, start, stop


@contextlib.asynccontextmanager
async def serving(limits: ConnectionLimits) -> AsyncIterator[RunningServer]:
    bots = BotDirectory()
    for name, token in TOKENS.items():
        bots.add(name, token)
    server = await create_server(ArbiterConfig(bots=bots, connections=limits))
    try:
        yield server
    finally:
        await server.stop(grace=0.5)


async def opened(server: RunningServer) -> IdleConnection:
    connection = IdleConnection()
    await connection.open(server.host, server.port)
    return connection


def test_a_connection_without_a_call_is_closed_after_the_idle_time_but_a_bot_stays():
    async def scenario():
        async with serving(ConnectionLimits(idle_seconds=1.0)) as server:
            alice = await connect(server, "alice")
            idle = [await opened(server) for _ in range(5)]
            started = time.monotonic()
            await asyncio.wait_for(asyncio.gather(*(c.until_closed() for c in idle)), 30)
            took = time.monotonic() - started
            # alice's connection has her call: it stays, and she still plays.
            await alice.seek("torrent", {"size": 5})
            pending = await alice.next()
            await alice.close()
            return idle, took, pending.WhichOneof("kind")

    idle, took, alice_answer = asyncio.run(scenario())
    assert all(c.frames[0] == SETTINGS and GOAWAY in c.frames for c in idle)  # closed with a GOAWAY
    assert took >= 0.5  # not at once: after the idle time
    assert alice_answer == "seek_pending"


def test_connections_beyond_the_cap_are_closed_at_once():
    async def scenario():
        async with serving(ConnectionLimits(idle_seconds=None, max_connections=3)) as server:
            held = [await opened(server) for _ in range(3)]
            readers = [asyncio.ensure_future(c.until_closed()) for c in held]
            while not all(c.frames for c in held):  # the server has answered each of them
                await asyncio.sleep(0.02)
            extra = await opened(server)
            await asyncio.wait_for(extra.until_closed(), 30)
            still_open = sum(not r.done() for r in readers)
            for c in held:
                c.close()
            await asyncio.gather(*readers)
            return extra.frames, still_open

    extra_frames, still_open = asyncio.run(scenario())
    assert extra_frames == []  # closed before the server said anything
    assert still_open == 3


def test_calls_beyond_the_cap_per_address_are_refused_before_the_token():
    async def scenario():
        async with serving(ConnectionLimits(max_calls_per_address=2)) as server:
            alice, bob = await connect(server, "alice"), await connect(server, "bob")
            carol = RawBot(server.address, TOKENS["carol"])
            try:
                await carol.next()
                refused = None
            except grpc.aio.AioRpcError as err:
                refused = err.code(), reason_of(rpc_status.from_call(err)), err.details()
            await carol.close()
            wrong = RawBot(server.address, "wrong")  # refused before its token is checked
            try:
                await wrong.next()
            except grpc.aio.AioRpcError as err:
                wrong_code = err.code()
            await wrong.close()
            await bob.close()
            carol = await connect(server, "carol")  # bob's call ended: room again
            await carol.close()
            await alice.close()
            return refused, wrong_code

    refused, wrong_code = asyncio.run(scenario())
    assert refused == (
        grpc.StatusCode.RESOURCE_EXHAUSTED,
        "RESOURCE_EXHAUSTED",
        "too many open calls from 127.0.0.1 (at most 2 at once)",
    )
    assert wrong_code == grpc.StatusCode.RESOURCE_EXHAUSTED


def test_serve_takes_the_limits_from_its_options(tmp_path):
    process = start(tmp_path, "--idle-timeout", "1", "--max-calls-per-address", "1")
    try:
        port = port_of(process)

        async def scenario():
            idle = IdleConnection()
            await idle.open("127.0.0.1", port)
            await asyncio.wait_for(idle.until_closed(), 30)
            async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
                stub = health_pb2_grpc.HealthStub(channel)
                watch = stub.Watch(health_pb2.HealthCheckRequest())
                await watch.read()  # the one call this address may hold
                try:
                    await stub.Check(health_pb2.HealthCheckRequest(), timeout=10)
                    code = grpc.StatusCode.OK
                except grpc.aio.AioRpcError as err:
                    code = err.code()
                watch.cancel()
            return idle.frames, code

        frames, second_call = asyncio.run(scenario())
    finally:
        stop(process)
    assert GOAWAY in frames
    assert second_call == grpc.StatusCode.RESOURCE_EXHAUSTED
