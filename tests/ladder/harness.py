"""An in-process arbiter on a real store and real sockets, for the ladder tests.

``ladder_lab`` starts an ``Arbiter(config, store=SqlStore)`` behind a gRPC server with registered
bots and ladders; ``Watch`` is a bus listener that counts each bot's running matches; ``LadderBot``
is a raw protocol client (no SDK logic) that can name a version and join, leave and challenge.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import Counter
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import grpc
from arbiter.ladder.adapters import BotsFromFlagsThenStore, StoreBots
from arbiter.ladder.model import LadderConfig
from arbiter.match.events import MatchEnded, MatchEvent, MatchStarted
from arbiter.node import Arbiter, ArbiterConfig
from arbiter.sessions.auth import BotDirectory
from arbiter.store import SqlStore
from arbiter.transport.server import RunningServer, create_server
from arbiter_games.timecontrol import TimeControl
from arbiter_wire import convert
from arbiter_wire.limits import BOT_VERSION_METADATA
from arbiter_wire.v1 import bot_service_pb2 as pb
from arbiter_wire.v1 import bot_service_pb2_grpc as pb_grpc

#: Quick Torrent: a 5 board, clocks long enough for instant bots on a busy test machine.
TORRENT_5 = LadderConfig("t5", "torrent", {"size": 5}, TimeControl(base=30.0, increment=1.0))
SURGE = LadderConfig("surge", "surge", {}, TimeControl(base=30.0, increment=1.0))


async def eventually(check: Callable[[], Any], timeout: float = 5.0) -> Any:
    """Poll ``check`` until it returns something true (the store writer writes on its own
    thread, a little after the events); that value."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        value = check()
        if value:
            return value
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"still {value!r} after {timeout} s")
        await asyncio.sleep(0.02)


class Watch:
    """A bus listener: every MatchStarted and MatchEnded, and each bot's running matches."""

    def __init__(self) -> None:
        self.started: list[MatchStarted] = []
        self.ended: list[MatchEnded] = []
        self.running: Counter[str] = Counter()
        self.peak: Counter[str] = Counter()
        self._waiters: list[tuple[Callable[[Watch], bool], asyncio.Future[None]]] = []

    def __call__(self, event: MatchEvent) -> None:
        if isinstance(event, MatchStarted):
            self.started.append(event)
            for bot in set(event.facts.bots.values()):
                self.running[bot] += 1
                self.peak[bot] = max(self.peak[bot], self.running[bot])
        elif isinstance(event, MatchEnded):
            self.ended.append(event)
            for bot in set(event.facts.bots.values()):
                self.running[bot] -= 1
        else:
            return
        for waiter in list(self._waiters):
            condition, future = waiter
            if not future.done() and condition(self):
                future.set_result(None)
                self._waiters.remove(waiter)

    async def until(self, condition: Callable[[Watch], bool], timeout: float = 20.0) -> None:
        """Wait until ``condition(watch)`` holds (checked after each start and end)."""
        if condition(self):
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append((condition, future))
        await asyncio.wait_for(future, timeout)

    def started_for(self, bot: str) -> list[MatchStarted]:
        return [e for e in self.started if bot in e.facts.bots.values()]

    def ended_ids(self) -> set[str]:
        return {e.facts.match_id for e in self.ended}


@dataclass
class Lab:
    server: RunningServer
    store: SqlStore
    tokens: dict[str, str]
    watch: Watch
    stopped: bool = False
    bots: list[LadderBot] = field(default_factory=list)

    @property
    def arbiter(self) -> Arbiter:
        return self.server.arbiter

    @property
    def address(self) -> str:
        return self.server.address

    async def stop(self, grace: float = 5.0) -> None:
        if not self.stopped:
            self.stopped = True
            await self.server.stop(grace)

    async def connect(self, name: str, version: str | None = None, welcome: bool = True) -> LadderBot:
        bot = LadderBot(self.address, self.tokens[name], version)
        self.bots.append(bot)
        if welcome:
            bot.welcome = await bot.expect("welcome")
        return bot


@contextlib.asynccontextmanager
async def serving(
    store_url: str,
    tokens: dict[str, str] | None = None,
    flag_bots: dict[str, str] | None = None,
    configure: Callable[[ArbiterConfig], None] | None = None,
) -> AsyncIterator[Lab]:
    """An arbiter serving on the store at ``store_url`` as it is (``tokens``: the bots' tokens).
    ``flag_bots``: bots as ``serve --bot NAME=TOKEN`` gives them (tried before the store's).
    ``configure``: changes the arbiter's configuration before it is built (a serve option)."""
    store = SqlStore(store_url)
    config = ArbiterConfig(bots=BotDirectory())
    if configure is not None:
        configure(config)
    if flag_bots:
        for name, token in flag_bots.items():
            config.bots.add(name, token)
        config.bot_store = BotsFromFlagsThenStore(config.bots, StoreBots(store))
    arbiter = Arbiter(config, store=store)
    watch = Watch()
    arbiter.bus.subscribe(watch)
    server = await create_server(config, arbiter=arbiter)
    lab = Lab(server, store, {**(tokens or {}), **(flag_bots or {})}, watch)
    try:
        yield lab
    finally:
        for bot in lab.bots:
            await bot.close()
        await lab.stop(0.1)  # what still runs is aborted
        store.close()


@contextlib.asynccontextmanager
async def ladder_lab(
    store_url: str,
    bots: Sequence[str],
    ladders: Sequence[LadderConfig] = (TORRENT_5,),
    flag_bots: dict[str, str] | None = None,
    configure: Callable[[ArbiterConfig], None] | None = None,
) -> AsyncIterator[Lab]:
    """A store with ``bots`` registered and ``ladders`` added, and an arbiter serving on it."""
    store = SqlStore(store_url)
    store.upgrade()
    tokens = {name: store.add_bot(name, f"owner of {name}") for name in bots}
    for ladder in ladders:
        store.add_ladder(ladder)
    store.close()
    async with serving(store_url, tokens, flag_bots, configure) as lab:
        yield lab


class LadderBot:
    """One Play stream with an optional arbiter-bot-version; every received message is kept."""

    def __init__(self, address: str, token: str, version: str | None = None) -> None:
        self.channel = grpc.aio.insecure_channel(address)
        self.stub = pb_grpc.BotServiceStub(self.channel)
        metadata = [("authorization", f"Bearer {token}")]
        if version is not None:
            metadata.append((BOT_VERSION_METADATA, version))
        self.call = self.stub.Play(metadata=tuple(metadata))
        self.received: list[pb.PlayResponse] = []
        self.welcome: pb.Welcome | None = None
        self.ended: list[pb.MatchEnded] = []

    async def next(self, timeout: float = 10.0) -> pb.PlayResponse:
        message = await asyncio.wait_for(self.call.read(), timeout)
        if message is grpc.aio.EOF:
            raise EOFError("stream ended")
        self.received.append(message)
        return message

    async def expect(self, kind: str, timeout: float = 10.0, skip: Sequence[str] = ()) -> Any:
        """The next message not of a kind in ``skip``, which must be of ``kind``; its payload."""
        while True:
            message = await self.next(timeout)
            got = message.WhichOneof("kind")
            if got in skip and got != kind:
                continue
            assert got == kind, f"expected {kind}, got {got}: {message}"
            return getattr(message, kind)

    async def send(self, **request: Any) -> None:
        await self.call.write(pb.PlayRequest(**request))

    async def join(self, ladder: str, max_concurrent: int = 1) -> None:
        await self.send(join_ladder=pb.JoinLadder(ladder=ladder, max_concurrent=max_concurrent))

    async def leave(self, ladder: str) -> None:
        await self.send(leave_ladder=pb.LeaveLadder(ladder=ladder))

    async def challenge(self, ladder: str, opponent: str, challenge_id: str = "") -> None:
        await self.send(challenge=pb.Challenge(ladder=ladder, opponent=opponent, challenge_id=challenge_id))

    async def move(self, match_id: str, turn_id: int, action: Any) -> None:
        move = pb.Move(match_id=match_id, turn_id=turn_id, action=convert.action_to_pb(action))
        await self.send(move=move)

    async def play(
        self, matches: int = 1, timeout: float = 10.0, known: Sequence[str] = ()
    ) -> list[pb.MatchEnded]:
        """Play the next ``matches`` matches this bot is told of (the first legal action for each
        turn) until they ended; turns of later matches are left unanswered. Their ends, in order.
        ``known``: matches already announced (their MatchStarted was read) that count first."""
        mine: list[str] = list(known)
        ended: dict[str, pb.MatchEnded] = {}
        while len(ended) < matches:
            message = await self.next(timeout)
            kind = message.WhichOneof("kind")
            if kind == "match_started" and len(mine) < matches:
                mine.append(message.match_started.match_id)
            elif kind == "turn" and message.turn.match_id in mine[:matches]:
                legal = convert.legal_from_pb(message.turn.legal)
                await self.move(message.turn.match_id, message.turn.turn_id, legal[0])
            elif kind == "match_ended" and message.match_ended.match_id in mine:
                ended[message.match_ended.match_id] = message.match_ended
        return list(ended.values())

    async def autoplay(self, answer: Callable[[int], bool] = lambda _: True) -> None:
        """Until cancelled: answer the turns of the n-th match this bot is told of (n from 0)
        when ``answer(n)``; the rest time out. Every MatchEnded is kept in ``self.ended``."""
        index: dict[str, int] = {}
        while True:
            message = await self.next(timeout=60.0)
            kind = message.WhichOneof("kind")
            if kind == "match_started":
                index.setdefault(message.match_started.match_id, len(index))
            elif kind == "turn" and answer(index.get(message.turn.match_id, -1)):
                legal = convert.legal_from_pb(message.turn.legal)
                await self.move(message.turn.match_id, message.turn.turn_id, legal[0])
            elif kind == "match_ended":
                self.ended.append(message.match_ended)

    async def status_at_end(self, timeout: float = 10.0) -> grpc.aio.AioRpcError:
        """Read until the call fails; the error."""
        try:
            while True:
                await self.next(timeout)
        except grpc.aio.AioRpcError as exc:
            return exc
        raise AssertionError("the call ended without an error")

    async def close(self) -> None:
        self.call.cancel()
        await self.channel.close()
