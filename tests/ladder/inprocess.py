"""An arbiter on a real store with no sockets, its clocks in the test's hands.

For the ladder's rules that need no wire: ``in_process`` builds ``Arbiter(config, store=SqlStore)``
with registered bots and ladders; bots are sessions opened on it directly (``Bot``), whose outbox
the test reads. Match timers run only when the test says (``Node.expire``, after moving the
monotonic clock), and the ladder host's wall clock (the daily limits read it) is set by the test.
No pairing luck, no sleeps: a turn times out because the test moved the clock past its limit.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from arbiter.ladder.host import LadderHost, LadderRefused
from arbiter.ladder.model import LadderConfig
from arbiter.match.match import Match, Timer
from arbiter.node import Arbiter, ArbiterConfig
from arbiter.sessions.auth import BotDirectory
from arbiter.sessions.session import EMPTY, BotSession, Closing, Delivery
from arbiter.store import SqlStore
from arbiter_games.timecontrol import TimeControl
from arbiter_wire import convert
from arbiter_wire.v1 import bot_service_pb2 as pb

from .harness import Watch

#: Torrent on a 5 board with a 1 s cap per decision: a turn left unanswered times out once the
#: test moves the clock on by more than that.
CAPPED = LadderConfig("capped", "torrent", {"size": 5}, TimeControl(base=30.0, per_decision=1.0))
#: The ladder host's wall clock at the start of a test (any fixed moment).
WALL_START = 1_900_000_000.0


class Clock:
    """A clock that moves only when told."""

    def __init__(self, start: float) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@dataclass
class _Timer:
    due: float
    callback: Callable[[], None]
    cancelled: bool = False

    def cancel(self) -> None:
        self.cancelled = True


class ManualTimers:
    """The matches' scheduler: a timer runs in ``run_due`` once the clock has reached its time."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.timers: list[_Timer] = []

    def call_later(self, delay: float, callback: Callable[[], None]) -> Timer:
        timer = _Timer(self.clock.now + delay, callback)
        self.timers.append(timer)
        return timer

    def run_due(self) -> int:
        """Run every timer due by now (those they set too, if due); how many ran."""
        ran = 0
        while True:
            due = [t for t in self.timers if not t.cancelled and t.due <= self.clock.now]
            if not due:
                return ran
            timer = min(due, key=lambda t: t.due)
            self.timers.remove(timer)
            timer.callback()
            ran += 1


class Bot:
    """A bot's session on the node: what the arbiter sent it, decoded, and its requests."""

    def __init__(self, node: Node, name: str, version: str) -> None:
        self.node = node
        self.name = name
        self.version = version
        self.session: BotSession = node.arbiter.attach(name, version)
        self.received: list[pb.PlayResponse] = []

    def read(self) -> list[pb.PlayResponse]:
        """The messages sent to the bot since the last read (a Turn's delivery starts its clock)."""
        new: list[pb.PlayResponse] = []
        while True:
            item = self.session.take()
            if item is EMPTY or item is None or isinstance(item, Closing):
                break
            if isinstance(item, Delivery):
                item.on_sent()
                item = item.message
            message = item if isinstance(item, pb.PlayResponse) else pb.PlayResponse.FromString(item.data)
            new.append(message)
        self.received.extend(new)
        return new

    def of_kind(self, kind: str) -> list[pb.PlayResponse]:
        self.read()
        return [m for m in self.received if m.WhichOneof("kind") == kind]

    def join(self, ladder: str, max_concurrent: int = 1) -> None:
        accepted = self.node.arbiter.join_ladder(self.session, ladder, max_concurrent)
        assert accepted is not None

    def challenge(self, ladder: str, opponent: str) -> LadderRefused | None:
        """None when the challenge is taken; the refusal otherwise."""
        try:
            self.node.arbiter.challenge(self.session, ladder, opponent)
        except LadderRefused as exc:
            return exc
        return None

    def answer_turns(self) -> int:
        """Answer every turn waiting for this bot (its first legal action); how many."""
        answered = 0
        for message in self.read():
            if message.WhichOneof("kind") == "turn":
                turn = message.turn
                action = convert.legal_from_pb(turn.legal)[0]
                self.node.arbiter.move(self.name, turn.match_id, turn.turn_id, action)
                answered += 1
        return answered

    def disconnect(self) -> None:
        self.read()
        self.node.arbiter.detach(self.session)


@dataclass
class Node:
    arbiter: Arbiter
    store: SqlStore
    clock: Clock
    wall: Clock
    timers: ManualTimers
    watch: Watch
    bots: dict[str, Bot] = field(default_factory=dict)

    @property
    def ladders(self) -> LadderHost:
        assert self.arbiter.ladders is not None
        return self.arbiter.ladders

    def connect(self, name: str, version: str = "v1") -> Bot:
        bot = Bot(self, name, version)
        self.bots[name] = bot
        return bot

    def running(self) -> list[Match]:
        return list(self.arbiter.hosting.matches.values())

    async def settle(self) -> None:
        """Let what the last step set going finish: scheduling (soon on the loop), the store
        writer's commits (on its thread) and the MatchEnded messages they release."""
        writer = self.arbiter.writer
        assert writer is not None
        for _ in range(200):
            for _ in range(5):
                await asyncio.sleep(0)
            if not writer.pending and not writer.waiting_release:
                for _ in range(5):
                    await asyncio.sleep(0)
                if not writer.pending and not writer.waiting_release:
                    return
            await writer.settle(10.0)
        raise AssertionError("the store writer never settled")

    async def expire(self, seconds: float = 1.5, settle: bool = True) -> None:
        """Move the monotonic clock on by ``seconds`` and run the timers that came due; then
        ``settle`` (else only let the loop run what they set going)."""
        self.clock.advance(seconds)
        self.timers.run_due()
        if settle:
            await self.settle()
        else:
            for _ in range(10):
                await asyncio.sleep(0)

    @contextlib.contextmanager
    def commits_held(self) -> Iterator[threading.Event]:
        """Hold each result's commit (``finish_match``, on the writer's thread) until the event
        yielded is set; set on leaving too."""
        release = threading.Event()
        finish = self.store.finish_match

        def held(*args: Any, **kwargs: Any) -> Any:
            assert release.wait(60.0), "the test never let the commit go"
            return finish(*args, **kwargs)

        self.store.finish_match = held  # type: ignore[method-assign]
        try:
            yield release
        finally:
            release.set()
            self.store.finish_match = finish  # type: ignore[method-assign]


@contextlib.asynccontextmanager
async def in_process(
    store_url: str, bots: Sequence[str], ladders: Sequence[LadderConfig] = (CAPPED,)
) -> AsyncIterator[Node]:
    """A store with ``bots`` registered and ``ladders`` added, and an arbiter on it (no server)."""
    store = SqlStore(store_url)
    store.upgrade()
    for name in bots:
        store.add_bot(name, f"owner of {name}")
    for ladder in ladders:
        store.add_ladder(ladder)
    clock = Clock(1000.0)
    arbiter = Arbiter(ArbiterConfig(bots=BotDirectory()), now=clock, store=store)
    timers = ManualTimers(clock)
    arbiter.hosting.scheduler = timers
    wall = Clock(WALL_START)
    assert arbiter.ladders is not None
    arbiter.ladders.wall = wall
    watch = Watch()
    arbiter.bus.subscribe(watch)
    node = Node(arbiter, store, clock, wall, timers, watch)
    try:
        yield node
    finally:
        await arbiter.shutdown(0.0)
        store.close()
