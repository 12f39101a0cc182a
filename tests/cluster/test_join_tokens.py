"""Join tokens are used once and die with a rotate; a rotate ends a session a join token opened
(docs/reliability.md, "Disable and rotate end open calls"). Two nodes of a cluster in this
process, on a throwaway PostgreSQL database, over the real protocol."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import grpc
from arbiter.cluster import ClusterMember, ClusterSettings
from arbiter.ladder.model import LadderConfig
from arbiter.node import Arbiter, ArbiterConfig
from arbiter.sessions.auth import BotDirectory
from arbiter.store import SqlStore
from arbiter.transport.server import RunningServer, create_server
from arbiter_games.timecontrol import TimeControl
from arbiter_wire.reasons import reason_of
from arbiter_wire.v1 import bot_service_pb2 as pb
from grpc_status import rpc_status

from tests.cluster.harness import HEARTBEAT, LEASE, free_port
from tests.server.raw_client import RawBot

LADDER = LadderConfig("t5", "torrent", {"size": 5}, TimeControl(base=60.0, increment=1.0))


@contextlib.asynccontextmanager
async def node(url: str) -> AsyncIterator[RunningServer]:
    """One node of the cluster, serving in this process (credentials checked every 0.2 s)."""
    async with node_and_member(url) as (server, _):
        yield server


@contextlib.asynccontextmanager
async def node_and_member(url: str) -> AsyncIterator[tuple[RunningServer, ClusterMember]]:
    """``node``, and its part in the cluster (which makes join tokens for it)."""
    store = SqlStore(url)
    port = free_port()
    member = ClusterMember(store, ClusterSettings(f"127.0.0.1:{port}", LEASE, HEARTBEAT))
    member.register()
    config = ArbiterConfig(bots=BotDirectory(), credential_check=0.2)
    arbiter = Arbiter(config, store=store)
    arbiter.join_cluster(member, lambda: None)
    arbiter.start_cluster()
    server = await create_server(config, port=port, arbiter=arbiter)
    try:
        yield server, member
    finally:
        await server.stop(0.5)
        store.close()


async def refused(address: str, token: str) -> tuple[grpc.StatusCode, str | None]:
    bot = RawBot(address, token)
    try:
        message = await bot.next()
        raise AssertionError(f"the token was accepted: {message}")
    except grpc.aio.AioRpcError as exc:
        return exc.code(), reason_of(rpc_status.from_call(exc))
    finally:
        await bot.close()


async def redirected(address: str, token: str) -> pb.Redirect:
    """A join of ben's on ``address``, whose ladder another node hosts: the Redirect's join token."""
    bot = RawBot(address, token)
    try:
        await bot.expect("welcome")
        await bot.call.write(pb.PlayRequest(join_ladder=pb.JoinLadder(ladder=LADDER.name)))
        redirect: pb.Redirect = await bot.expect("redirect")
        assert redirect.join_token
        return redirect
    finally:
        await bot.close()


def test_a_join_token_is_used_once_and_dies_with_a_rotate(postgres_cluster):
    url = postgres_cluster.new_database("join_tokens")
    store = SqlStore(url)
    store.upgrade()
    tokens = {name: store.add_bot(name, f"owner of {name}") for name in ("ann", "ben")}
    store.add_ladder(LADDER)
    bad = (grpc.StatusCode.UNAUTHENTICATED, "BAD_TOKEN")

    async def scenario() -> None:
        async with node(url) as one, node(url) as two:
            ann = RawBot(one.address, tokens["ann"])  # her join claims the ladder for node one
            await ann.expect("welcome")
            await ann.call.write(pb.PlayRequest(join_ladder=pb.JoinLadder(ladder=LADDER.name)))
            await ann.expect("ladder_joined")
            # Used once: a second call with the same join token is refused.
            sent = await redirected(two.address, tokens["ben"])
            assert sent.address == one.address
            first = RawBot(sent.address, sent.join_token)
            assert (await first.expect("welcome")).bot_name == "ben"
            await first.close()
            assert await refused(sent.address, sent.join_token) == bad
            # Dies with a rotate: a join token made before it is refused.
            sent = await redirected(two.address, tokens["ben"])
            tokens["ben"] = store.rotate_token("ben")
            assert await refused(sent.address, sent.join_token) == bad
            # A session a join token opened ends with the next rotate, on the node it is on.
            sent = await redirected(two.address, tokens["ben"])
            ben = RawBot(sent.address, sent.join_token)
            await ben.expect("welcome")
            store.rotate_token("ben")
            with_error = None
            try:
                while True:
                    await ben.next(timeout=15.0)
            except grpc.aio.AioRpcError as exc:
                with_error = (exc.code(), reason_of(rpc_status.from_call(exc)))
            assert with_error == bad
            await ben.close()
            await ann.close()

    try:
        asyncio.run(scenario())
    finally:
        store.close()


def test_a_join_token_of_a_bot_disabled_after_it_was_made_is_refused_as_disabled(postgres_cluster):
    """Issue 20, item 14: the token is good (the same kind, made the same way, is welcomed), but
    the bot was disabled since: BOT_DISABLED, not a session and not a mere BAD_TOKEN."""
    url = postgres_cluster.new_database("join_token_disabled")
    store = SqlStore(url)
    store.upgrade()
    store.add_bot("ben", "owner of ben")

    async def scenario() -> tuple[str, tuple[grpc.StatusCode, str | None]]:
        async with node_and_member(url) as (server, member):
            good, later = (member.join_token("ben", member.epoch) for _ in range(2))
            bot = RawBot(server.address, good)
            welcomed = (await bot.expect("welcome")).bot_name
            await bot.close()
            store.set_bot_enabled("ben", False)
            return welcomed, await refused(server.address, later)

    try:
        welcomed, refusal = asyncio.run(scenario())
    finally:
        store.close()
    assert welcomed == "ben"
    assert refusal == (grpc.StatusCode.PERMISSION_DENIED, "BOT_DISABLED")
