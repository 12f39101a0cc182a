"""A raw HTTP/2 client that connects, answers the server's SETTINGS and PINGs, and never opens a
stream: the idle connection of docs/reliability.md, "Idle gRPC connections"."""

from __future__ import annotations

import asyncio
import struct

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
SETTINGS, PING, GOAWAY = 4, 6, 7
ACK = 1


def frame(kind: int, flags: int = 0, payload: bytes = b"") -> bytes:
    """An HTTP/2 frame on stream 0."""
    return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(">I", 0) + payload


class IdleConnection:
    """One TCP connection; ``frames`` lists the kinds of frame the server sent."""

    def __init__(self) -> None:
        self.frames: list[int] = []
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def open(self, host: str, port: int) -> None:
        self.reader, self.writer = await asyncio.open_connection(host, port)
        self.writer.write(PREFACE + frame(SETTINGS))
        await self.writer.drain()

    async def until_closed(self) -> None:
        """Answer the server until it closes the connection."""
        assert self.reader is not None and self.writer is not None
        try:
            while True:
                head = await self.reader.readexactly(9)
                payload = await self.reader.readexactly(int.from_bytes(head[:3], "big"))
                kind, flags = head[3], head[4]
                self.frames.append(kind)
                if kind == SETTINGS and not flags & ACK:
                    self.writer.write(frame(SETTINGS, ACK))
                elif kind == PING and not flags & ACK:
                    self.writer.write(frame(PING, ACK, payload))
                await self.writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            return

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
