"""A burst of calls arriving while the arbiter's event loop is busy waits; none is refused.

grpc.aio takes incoming calls one at a time on the event loop; the calls that arrive meanwhile
wait in gRPC's core. With gRPC's own limits on that queue (1,000, then a growing share refused
at random, all of them from 3,000) a burst of bots was cut off before the servicer saw it
(bench/streams.py); the server factory raises them (transport/server.py, MAX_PENDING_CALLS).
"""

from __future__ import annotations

import asyncio
import collections
import threading
import time

import grpc
from arbiter.transport.server import MAX_PENDING_CALLS
from grpc_health.v1 import health_pb2, health_pb2_grpc

from .raw_client import running_server

CALLS = 3_200  # beyond gRPC's default hard limit of 3,000: each one past it would be refused
CHANNELS = 8


async def _burst(address: str, connected: threading.Event, sent: threading.Event) -> collections.Counter[str]:
    options = [("grpc.use_local_subchannel_pool", 1)]
    channels = [grpc.aio.insecure_channel(address, options=options) for _ in range(CHANNELS)]
    await asyncio.gather(*(asyncio.wait_for(c.channel_ready(), 60) for c in channels))
    connected.set()
    stubs = [health_pb2_grpc.HealthStub(c) for c in channels]
    outcomes: collections.Counter[str] = collections.Counter()

    async def check(i: int) -> None:
        try:
            await stubs[i % CHANNELS].Check(health_pb2.HealthCheckRequest(service=""), timeout=120)
            outcomes["OK"] += 1
        except grpc.aio.AioRpcError as exc:
            outcomes[exc.code().name] += 1

    calls = [asyncio.ensure_future(check(i)) for i in range(CALLS)]
    await asyncio.sleep(1.0)  # every call started and sent (this loop is free; the server's is not)
    sent.set()
    await asyncio.gather(*calls)
    for channel in channels:
        await channel.close()
    return outcomes


def _hold_the_loop(sent: threading.Event) -> None:
    """Block the caller's event loop until every call has been sent, and a moment longer: the
    calls queue in gRPC's core, which hands none of them to the loop meanwhile."""
    assert sent.wait(60)
    time.sleep(1.0)


def test_a_burst_of_calls_while_the_loop_is_busy_is_served_in_full() -> None:
    assert MAX_PENDING_CALLS > CALLS

    async def scenario() -> collections.Counter[str]:
        async with running_server() as server:
            connected, sent = threading.Event(), threading.Event()
            result: list[collections.Counter[str]] = []

            def client() -> None:
                result.append(asyncio.run(_burst(server.address, connected, sent)))

            thread = threading.Thread(target=client)
            thread.start()
            assert await asyncio.to_thread(connected.wait, 60)
            _hold_the_loop(sent)
            await asyncio.to_thread(thread.join, 180)
            return result[0]

    outcomes = asyncio.run(scenario())
    assert outcomes == {"OK": CALLS}
