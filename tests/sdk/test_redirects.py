"""The SDK goes where a Redirect sends it, also after more redirects in a row than it follows at
once: then after the backoff, with its own token. Stand-in nodes (plain gRPC servers) answer each
Play call with a Redirect or refuse it.

Found by tests/cluster/test_takeover.py with 40 bots: while a killed node's lease ran, the bots'
reconnects were redirected to it again and again; once past the limit, the SDK dropped each
Redirect's address and went back to its seed node, which redirected it again, so after the
takeover it never reached the taker and the dead node's matches were aborted unrated.
"""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
import pytest
from arbiter_bot.client import REDIRECTS_IN_A_ROW, Backoff, Session
from arbiter_bot.errors import AuthenticationError
from arbiter_bot.examples.random_bot import RandomBot
from arbiter_wire.v1 import bot_service_pb2 as pb
from arbiter_wire.v1 import bot_service_pb2_grpc as pb_grpc


class StandIn(pb_grpc.BotServiceServicer):
    """A node that answers its first ``redirects`` calls with a Redirect to ``to`` (join tokens
    jt-1, jt-2, ...), then refuses the token; it keeps the authorization of each call."""

    def __init__(self, redirects: int) -> None:
        self.redirects = redirects
        self.to = ""
        self.seen: list[str] = []

    async def Play(self, request_iterator: Any, context: Any) -> None:  # noqa: N802 - the RPC's name
        self.seen.append(dict(context.invocation_metadata())["authorization"])
        if len(self.seen) > self.redirects:
            await context.abort(grpc.StatusCode.UNAUTHENTICATED, "stand-in: enough")
        redirect = pb.Redirect(address=self.to, join_token=f"jt-{len(self.seen)}")
        redirect.reason = pb.REDIRECT_REASON_MATCHES
        await context.write(pb.PlayResponse(redirect=redirect))


async def serve(servicer: StandIn) -> tuple[grpc.aio.Server, str]:
    server = grpc.aio.server()
    pb_grpc.add_BotServiceServicer_to_server(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    return server, f"127.0.0.1:{port}"


def test_past_the_limit_the_bot_still_goes_where_it_is_sent() -> None:
    async def scenario() -> tuple[StandIn, StandIn]:
        seed = StandIn(redirects=100)  # the node the bot knows: always sends it to the other one
        other = StandIn(redirects=REDIRECTS_IN_A_ROW + 2)  # sends it to itself, then refuses
        servers = [await serve(seed), await serve(other)]
        seed.to = other.to = servers[1][1]
        try:
            session = Session(
                RandomBot(1), servers[0][1], "own-token", ("torrent", {"size": 5}),
                backoff=Backoff(initial=0.01, maximum=0.05),
            )  # fmt: skip
            with pytest.raises(AuthenticationError):
                await asyncio.wait_for(session.run(), 10)
        finally:
            for server, _ in servers:
                await server.stop(None)
        return seed, other

    seed, other = asyncio.run(scenario())
    assert seed.seen == ["Bearer own-token"]  # never back to the seed: every Redirect was followed
    # The first redirects at once with their join tokens; past the limit, after the backoff, with
    # the bot's own token.
    assert other.seen == [
        "Bearer jt-1",  # the seed's join token
        *[f"Bearer jt-{i}" for i in range(1, REDIRECTS_IN_A_ROW)],  # its own, followed at once
        *["Bearer own-token"] * 3,  # past the limit
    ]
