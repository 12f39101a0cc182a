"""One open Play stream of a bot: an outbox bounded in bytes, closed with a reason."""

from __future__ import annotations

import asyncio
import enum
import uuid
from collections import deque
from collections.abc import Callable

from arbiter_wire import reasons
from arbiter_wire.limits import OUTBOX_BYTES_LIMIT, UNVERSIONED
from arbiter_wire.v1 import bot_service_pb2 as pb
from arbiter_wire.wire import EncodedResponse

#: What a session sends: a message, or one the transport has serialised already (a Turn).
Response = pb.PlayResponse | EncodedResponse


class Closing:
    """Put in a session's outbox to end its stream with a status."""

    __slots__ = ("message", "reason")

    def __init__(self, reason: str, message: str) -> None:
        self.reason = reason
        self.message = message


class Delivery:
    """A message and what to do once it is handed to the transport (a Turn starts its clock)."""

    __slots__ = ("message", "on_sent")

    def __init__(self, message: Response, on_sent: Callable[[], None]) -> None:
        self.message = message
        self.on_sent = on_sent


#: What the stream writer takes from an outbox: a message, a message with a hand-off callback,
#: a Closing (end the stream with that status) or None (end it quietly: the reader stopped).
OutboxItem = Response | Delivery | Closing | None


class Empty(enum.Enum):
    """What ``BotSession.take`` returns when the outbox is empty."""

    EMPTY = "empty"


EMPTY = Empty.EMPTY


#: Messages freed per loop callback when a full outbox is dropped.
DROP_CHUNK = 200


def drop_gradually(items: deque[tuple[OutboxItem, int]]) -> None:
    """Free ``items`` a chunk per loop callback. A full outbox holds tens of thousands of small
    replies; freeing them in one go held the event loop up for 50 ms or more."""
    for _ in range(min(DROP_CHUNK, len(items))):
        items.pop()
    if items:
        try:
            asyncio.get_running_loop().call_soon(drop_gradually, items)
        except RuntimeError:  # no loop running (a test's session): free them now
            items.clear()


def _is_result(item: OutboxItem) -> bool:
    message = item.message if type(item) is Delivery else item
    return type(message) is pb.PlayResponse and message.HasField("match_ended")


def _results(items: deque[tuple[OutboxItem, int]]) -> list[pb.PlayResponse]:
    """The MatchEnded messages among ``items``, in order."""
    found: list[pb.PlayResponse] = []
    for item, _ in items:
        if _is_result(item):
            message = item.message if type(item) is Delivery else item
            assert type(message) is pb.PlayResponse
            found.append(message)
    return found


class BotSession:
    """One open Play stream of a bot. ``send`` never blocks; a bot that leaves more than
    ``limit_bytes`` of replies unread loses the session (RESOURCE_EXHAUSTED)."""

    def __init__(
        self,
        bot_name: str,
        version: str = UNVERSIONED,
        limit_bytes: int = OUTBOX_BYTES_LIMIT,
        credential: str | None = None,
    ) -> None:
        self.bot_name = bot_name
        self.version = version
        #: The store's token hash this session was opened with (``identity.BotIdentity``): the
        #: session ends once the store has another (a rotate). None: not checked.
        self.credential = credential
        self.id = uuid.uuid4().hex[:12]
        self.limit_bytes = limit_bytes
        self.queued_bytes = 0
        # Unbounded as a queue; ``send`` enforces the limit (the end markers always fit). A deque,
        # not an asyncio.Queue, so that a full outbox can be dropped at once (``drop_gradually``).
        self._outbox: deque[tuple[OutboxItem, int]] = deque()
        self._waiter: asyncio.Future[None] | None = None
        self.closed = False
        #: MatchEnded messages taken out of a dropped outbox.
        self._kept: list[pb.PlayResponse] = []

    def send(self, message: Response, on_sent: Callable[[], None] | None = None) -> None:
        if self.closed:
            return
        size = message.ByteSize()
        if self.queued_bytes + size > self.limit_bytes:
            # The bot sends faster than it reads its replies: drop them and close the session.
            # Its results are kept (``results_left``): they wait in its mailbox.
            self._kept.extend(_results(self._outbox))
            drop_gradually(self._outbox)
            self._outbox = deque()
            self.queued_bytes = 0
            self.close(
                reasons.RESOURCE_EXHAUSTED,
                f"more than {self.limit_bytes:,} bytes of replies were waiting unread",
            )
            return
        self.queued_bytes += size
        self._put(message if on_sent is None else Delivery(message, on_sent), size)

    def close(self, reason: str, message: str) -> None:
        if not self.closed:
            self.closed = True
            self._put(Closing(reason, message), 0)

    def end(self) -> None:
        """End the stream quietly (its reader has stopped)."""
        self._put(None, 0)

    def _put(self, item: OutboxItem, size: int) -> None:
        self._outbox.append((item, size))
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def next_item(self) -> OutboxItem:
        while True:
            item = self.take()
            if item is not EMPTY:
                return item
            await self.wait()

    def take(self) -> OutboxItem | Empty:
        """The next item of the outbox, taken out of it; ``EMPTY`` when there is none (then
        await ``wait()``). The stream's writer uses these two rather than ``next_item``: no
        coroutine per item."""
        outbox = self._outbox
        if not outbox:
            return EMPTY
        item, size = outbox.popleft()
        self.queued_bytes -= size
        return item

    def put_back(self, item: OutboxItem | Empty) -> None:
        """Return ``item`` to the front of the outbox (the transport could not write it)."""
        if item is not None and item is not EMPTY and not isinstance(item, Closing):
            self._outbox.appendleft((item, 0))

    def results_left(self) -> list[pb.PlayResponse]:
        """The MatchEnded messages never written to the stream, taken out of the outbox (the
        session is over: they go to the bot's next session or its mailbox)."""
        kept = self._kept + _results(self._outbox)
        self._kept = []
        self._outbox = deque((item, size) for item, size in self._outbox if not _is_result(item))
        return kept

    def wait(self) -> asyncio.Future[None]:
        """A future that is done once something is put in the outbox."""
        waiter = self._waiter = asyncio.Future(loop=asyncio.get_running_loop())
        return waiter

    def pending(self) -> int:
        """How many items wait in the outbox."""
        return len(self._outbox)
