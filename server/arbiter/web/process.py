"""The web pages' own process of ``arbiter serve --web`` (the child side; ``web/relay.py`` starts it).

``main`` runs in a process started with multiprocessing's "spawn" context. It opens the store
(it reads, and writes only what the owners' pages change: docs/accounts.md), binds the web
port and answers on the pipe with ``Bound(address)`` or ``Failed(one line)``; then a reader
thread takes the arbiter's messages (``web/mirror.py``) off the pipe and hands each to the
``MirrorHub`` on this process's event loop (``call_soon_threadsafe``), where the spectators'
streams read it. When the pipe closes (the arbiter stopped, or died) the pages stop and the
process ends. Ctrl-C is the arbiter's: this process ignores SIGINT and lasts until the arbiter
closes the pipe; SIGTERM stops it.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import threading
from dataclasses import dataclass
from multiprocessing.connection import Connection

from ..logging_setup import configure_logging
from ..store import SqlStore, StoreError, open_store
from .accounts import AccountSettings
from .app import WebServer, create_app
from .guard import WebLimits
from .live import MAX_SUBSCRIBERS, MAX_SUBSCRIBERS_PER_ADDRESS
from .mirror import MirrorHub


@dataclass(frozen=True)
class WebSettings:
    """What the pages' process needs (picklable: it crosses to the spawned process)."""

    store_url: str
    host: str
    port: int
    limits: WebLimits
    max_spectators: int = MAX_SUBSCRIBERS
    max_per_address: int = MAX_SUBSCRIBERS_PER_ADDRESS
    log_level: str = "warning"
    #: The owners' pages (docs/accounts.md): the sign-up policy and the cookies' key (None: the store's).
    signup: str = "invite"
    secret: bytes | None = None


@dataclass(frozen=True)
class Bound:
    """The pages are served at ``address`` (``http://HOST:PORT``)."""

    address: str


@dataclass(frozen=True)
class Failed:
    """The pages could not be served: ``message`` is one line."""

    message: str


def main(pipe: Connection, settings: WebSettings) -> None:
    """The process's body: serve the pages until the pipe closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    configure_logging(settings.log_level)
    try:
        store = open_store(settings.store_url)
    except StoreError as exc:
        pipe.send(Failed(str(exc).splitlines()[0]))
        return
    try:
        asyncio.run(_serve(pipe, store, settings))
    finally:
        store.close()
        pipe.close()


async def _serve(pipe: Connection, store: SqlStore, settings: WebSettings) -> None:
    hub = MirrorHub(settings.max_spectators, settings.max_per_address)
    try:
        server = WebServer(
            create_app(store, hub, hub.connected, accounts=AccountSettings(settings.signup, settings.secret)),
            settings.host,
            settings.port,
            settings.limits,
        )
        await server.start()
    except OSError as exc:
        pipe.send(Failed(str(exc).splitlines()[0]))
        return
    pipe.send(Bound(server.address))
    loop = asyncio.get_running_loop()
    closed = asyncio.Event()
    loop.add_signal_handler(signal.SIGTERM, closed.set)
    reader = threading.Thread(target=_read, args=(pipe, loop, hub, closed), name="arbiter-pipe", daemon=True)
    reader.start()
    await closed.wait()
    await server.stop()


def _read(pipe: Connection, loop: asyncio.AbstractEventLoop, hub: MirrorHub, closed: asyncio.Event) -> None:
    """The reader thread: every message to the hub, in order, on the loop; the end of the pipe
    sets ``closed``."""
    with contextlib.suppress(RuntimeError):  # the loop has closed meanwhile
        while True:
            try:
                message = pipe.recv()
            except (EOFError, OSError):
                break
            loop.call_soon_threadsafe(hub.take, message)
        loop.call_soon_threadsafe(closed.set)


__all__ = ["Bound", "Failed", "WebSettings", "main"]
