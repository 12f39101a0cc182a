"""The web port's defences against slow and too many clients (``--web-header-timeout``,
``--web-max-connections``; docs/web.md "Slow and many clients").

uvicorn's HTTP/1.1 protocol (h11) times out only a connection that is idle between requests: one
that trickles the bytes of a request head, a header line every few seconds, is kept for ever
(a slowloris). ``GuardedH11`` is that protocol with two more rules:

- a connection has ``header_timeout`` seconds to send a whole request head, counted from its
  accept (for its first request) or from the end of the previous response (for the next one),
  however its bytes trickle in; then it is closed;
- beyond ``max_connections`` open at once, or ``max_per_address`` from one address (an IPv6
  /64), a new connection is answered ``503`` and closed as it is accepted (before it is read), so
  the descriptors never run out and one address cannot take every place: the process's
  open-files limit is raised to fit the cap, or the cap lowered to fit the limit.
"""

from __future__ import annotations

import asyncio
import dataclasses
from dataclasses import dataclass
from typing import Any, ClassVar

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from ..security.connections import WEB_HEADER_TIMEOUT as HEADER_TIMEOUT
from ..security.connections import WEB_MAX_CONNECTIONS as MAX_CONNECTIONS
from ..security.connections import WEB_MAX_CONNECTIONS_PER_ADDRESS as MAX_PER_ADDRESS
from ..security.connections import fit_file_limit
from ..security.ratelimit import address_key

_REFUSAL = b"too many connections: try again later\n"
#: The answer to a connection past the cap, written as it is accepted.
REFUSED = (
    b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain; charset=utf-8\r\n"
    b"retry-after: 10\r\nconnection: close\r\ncontent-length: %d\r\n\r\n%s" % (len(_REFUSAL), _REFUSAL)
)


@dataclass(frozen=True)
class WebLimits:
    """``None`` turns a limit off."""

    header_timeout: float | None = HEADER_TIMEOUT
    max_connections: int | None = MAX_CONNECTIONS
    max_per_address: int | None = MAX_PER_ADDRESS

    @classmethod
    def of(cls, header_timeout: float, max_connections: int, max_per_address: int) -> WebLimits:
        """From the command's options (0 turns a limit off)."""
        return cls(header_timeout or None, max_connections or None, max_per_address or None)

    def fitted(self, other_connections: int = 0) -> WebLimits:
        """These limits with the cap lowered, if need be, to the descriptors the process may
        open after ``other_connections`` (the gRPC port's cap, in ``serve``), the limit raised
        first as far as it goes."""
        if self.max_connections is None:
            return self
        fits = fit_file_limit(other_connections + self.max_connections) - other_connections
        return dataclasses.replace(self, max_connections=max(1, min(self.max_connections, fits)))


class GuardedH11(H11Protocol):
    """uvicorn's h11 protocol with a deadline for each request head and a cap at accept (the
    limits are class attributes: ``protocol_class`` makes a subclass with them)."""

    header_timeout: float | None = HEADER_TIMEOUT
    max_connections: int | None = MAX_CONNECTIONS
    max_per_address: int | None = MAX_PER_ADDRESS
    #: Open connections per address (one count per server: ``protocol_class`` gives each its own).
    per_address: ClassVar[dict[str, int]] = {}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._head_timer: asyncio.TimerHandle | None = None
        self._address: str | None = None  # counted in per_address while open

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        peer = transport.get_extra_info("peername")
        address = address_key(str(peer[0])) if isinstance(peer, tuple) and peer else ""
        if (self.max_connections is not None and len(self.connections) >= self.max_connections) or (
            self.max_per_address is not None and self.per_address.get(address, 0) >= self.max_per_address
        ):
            transport.write(REFUSED)
            transport.close()
            return
        self._address = address
        self.per_address[address] = self.per_address.get(address, 0) + 1
        super().connection_made(transport)
        self._watch_head()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_head_timer()
        if self._address is None:  # refused: never counted
            return
        left = self.per_address.get(self._address, 0) - 1
        if left > 0:
            self.per_address[self._address] = left
        else:
            self.per_address.pop(self._address, None)
        self._address = None
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._watch_head()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._watch_head()  # the next request's head has its own deadline

    # --- the head's deadline ---------------------------------------------------------------
    def _waiting_for_head(self) -> bool:
        return not self.transport.is_closing() and self.conn.their_state is h11.IDLE

    def _watch_head(self) -> None:
        if self.header_timeout is None:
            return
        if not self._waiting_for_head():
            self._cancel_head_timer()
        elif self._head_timer is None:  # never pushed back by more bytes
            self._head_timer = self.loop.call_later(self.header_timeout, self._head_late)

    def _cancel_head_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_late(self) -> None:
        self._head_timer = None
        if self._waiting_for_head():
            self.transport.close()


def protocol_class(limits: WebLimits) -> type[GuardedH11]:
    """``GuardedH11`` with ``limits`` (uvicorn makes one protocol per connection from a class)."""
    return type(
        "GuardedH11",
        (GuardedH11,),
        {
            "header_timeout": limits.header_timeout,
            "max_connections": limits.max_connections,
            "max_per_address": limits.max_per_address,
            "per_address": {},
        },
    )


__all__ = [
    "HEADER_TIMEOUT",
    "MAX_CONNECTIONS",
    "MAX_PER_ADDRESS",
    "GuardedH11",
    "WebLimits",
    "protocol_class",
]
