"""A bare protocol client for server tests: no SDK logic, every message visible."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import grpc
from arbiter.node import ArbiterConfig
from arbiter.sessions.auth import BotDirectory
from arbiter.transport.server import RunningServer, create_server
from arbiter_games.policy import MatchPolicy
from arbiter_games.timecontrol import TimeControl
from arbiter_wire import convert
from arbiter_wire.v1 import bot_service_pb2 as pb
from arbiter_wire.v1 import bot_service_pb2_grpc as pb_grpc

TOKENS = {"alice": "token-alice", "bob": "token-bob", "carol": "token-carol"}


@contextlib.asynccontextmanager
async def running_server(
    control: TimeControl | None = None, policy: MatchPolicy | None = None, records_dir: Any = None
) -> AsyncIterator[RunningServer]:
    bots = BotDirectory()
    for name, token in TOKENS.items():
        bots.add(name, token)
    config = ArbiterConfig(
        bots=bots,
        default_control=control or TimeControl(base=30.0, increment=1.0),
        policy=policy or MatchPolicy(),
        records_dir=records_dir,
    )
    server = await create_server(config)
    try:
        yield server
    finally:
        await server.stop(grace=0.5)


class RawBot:
    """One Play stream; received messages are queued for the test to inspect."""

    def __init__(self, address: str, token: str | None) -> None:
        self.channel = grpc.aio.insecure_channel(address)
        self.stub = pb_grpc.BotServiceStub(self.channel)
        metadata = (("authorization", f"Bearer {token}"),) if token is not None else ()
        self.call = self.stub.Play(metadata=metadata)
        self.received: list[pb.PlayResponse] = []

    async def next(self, timeout: float = 10.0) -> pb.PlayResponse:
        message = await asyncio.wait_for(self.call.read(), timeout)
        if message is grpc.aio.EOF:
            raise EOFError("stream ended")
        self.received.append(message)
        return message

    async def expect(self, kind: str, timeout: float = 10.0) -> Any:
        """The next message, which must be of ``kind``; returns its payload. A SeekPending (a seek
        waiting for its opponent) is passed over unless it is what the test expects."""
        message = await self.next(timeout)
        got = message.WhichOneof("kind")
        while got == "seek_pending" and kind != "seek_pending":
            message = await self.next(timeout)
            got = message.WhichOneof("kind")
        assert got == kind, f"expected {kind}, got {got}: {message}"
        return getattr(message, kind)

    async def seek(self, game: str, options: dict[str, Any] | None = None, control: Any = None) -> None:
        seek = pb.Seek(spec=convert.spec_to_pb(game, options or {}))
        if control is not None:
            seek.time_control.CopyFrom(control)
        await self.call.write(pb.PlayRequest(seek=seek))

    async def move(self, match_id: str, turn_id: int, action: Any) -> None:
        message = action if isinstance(action, pb.Action) else convert.action_to_pb(action)
        await self.call.write(
            pb.PlayRequest(move=pb.Move(match_id=match_id, turn_id=turn_id, action=message))
        )

    async def close(self) -> None:
        self.call.cancel()
        await self.channel.close()


async def connect(server: RunningServer, name: str) -> RawBot:
    bot = RawBot(server.address, TOKENS[name])
    await bot.expect("welcome")
    return bot


async def play_out(bot: RawBot, choose: Any = None, think: float = 0.0) -> pb.MatchEnded:
    """Answer every turn (first legal action by default, after ``think`` seconds) until MatchEnded."""
    while True:
        message = await bot.next()
        kind = message.WhichOneof("kind")
        if kind == "turn":
            legal = convert.legal_from_pb(message.turn.legal)
            if think:
                await asyncio.sleep(think)
            action = choose(message.turn, legal) if choose else legal[0]
            await bot.move(message.turn.match_id, message.turn.turn_id, action)
        elif kind == "match_ended":
            return message.match_ended
