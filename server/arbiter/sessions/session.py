"""One open Play stream of a bot: an outbox bounded in bytes, closed with a reason."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable

from arbiter_wire import reasons
from arbiter_wire.limits import OUTBOX_BYTES_LIMIT, UNVERSIONED
from arbiter_wire.v1 import bot_service_pb2 as pb


class Closing:
    """Put in a session's outbox to end its stream with a status."""

    __slots__ = ("message", "reason")

    def __init__(self, reason: str, message: str) -> None:
        self.reason = reason
        self.message = message


class Delivery:
    """A message and what to do once it is handed to the transport (a Turn starts its clock)."""

    __slots__ = ("message", "on_sent")

    def __init__(self, message: pb.PlayResponse, on_sent: Callable[[], None]) -> None:
        self.message = message
        self.on_sent = on_sent


#: What the stream writer takes from an outbox: a message, a message with a hand-off callback,
#: a Closing (end the stream with that status) or None (end it quietly: the reader stopped).
OutboxItem = pb.PlayResponse | Delivery | Closing | None


class BotSession:
    """One open Play stream of a bot. ``send`` never blocks; a bot that leaves more than
    ``limit_bytes`` of replies unread loses the session (RESOURCE_EXHAUSTED)."""

    def __init__(
        self, bot_name: str, version: str = UNVERSIONED, limit_bytes: int = OUTBOX_BYTES_LIMIT
    ) -> None:
        self.bot_name = bot_name
        self.version = version
        self.id = uuid.uuid4().hex[:12]
        self.limit_bytes = limit_bytes
        self.queued_bytes = 0
        # Unbounded as a queue; ``send`` enforces the limit (the end markers always fit).
        self._outbox: asyncio.Queue[tuple[OutboxItem, int]] = asyncio.Queue()
        self.closed = False

    def send(self, message: pb.PlayResponse, on_sent: Callable[[], None] | None = None) -> None:
        if self.closed:
            return
        size = message.ByteSize()
        if self.queued_bytes + size > self.limit_bytes:
            # The bot sends faster than it reads its replies: drop them and close the session.
            while not self._outbox.empty():
                self._outbox.get_nowait()
            self.queued_bytes = 0
            self.close(
                reasons.RESOURCE_EXHAUSTED,
                f"more than {self.limit_bytes:,} bytes of replies were waiting unread",
            )
            return
        self.queued_bytes += size
        self._outbox.put_nowait((message if on_sent is None else Delivery(message, on_sent), size))

    def close(self, reason: str, message: str) -> None:
        if not self.closed:
            self.closed = True
            self._outbox.put_nowait((Closing(reason, message), 0))

    def end(self) -> None:
        """End the stream quietly (its reader has stopped)."""
        self._outbox.put_nowait((None, 0))

    async def next_item(self) -> OutboxItem:
        item, size = await self._outbox.get()
        self.queued_bytes -= size
        return item

    def pending(self) -> int:
        """How many items wait in the outbox."""
        return self._outbox.qsize()
