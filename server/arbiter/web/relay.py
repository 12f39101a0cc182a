"""The arbiter's side of ``arbiter serve --web`` with the pages in a process of their own.

``RelayHub`` is the arbiter's ``LiveHub`` (a bus listener: it makes the public frames, applies the
ladders' delays and marks the final frames as before) whose released frames, instead of going to
spectators' queues, go to a ``Relay``: an unbounded queue that a writer thread empties into the
pipe to the pages' process, so the arbiter's event loop never waits on the pipe (nor on the
spectators behind it). ``WebProcess`` starts that process (multiprocessing's "spawn" context,
``web/process.py``), waits for the address it bound or its one-line error, sends the set of
connected bots when it changes (looked at every second), and on ``stop`` closes the pipe, which
ends the process (so does the arbiter's death: the pipe closes with it).
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import queue
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess

import structlog
from arbiter_games import GameDef

from ..store import SqlStore
from ..store.engine import sqlite_file
from . import process
from .live import Frame, LiveHub, LiveMatch
from .mirror import Began, Ended, Message, Present, Shown

log = structlog.get_logger("arbiter.web")

#: Seconds between looks at the connected bots.
PRESENT_EVERY = 1.0
#: Seconds the pages' process has to bind its port and say so.
START_TIMEOUT = 120.0
#: Seconds the pages' process has to end once its pipe is closed (then it is terminated).
STOP_TIMEOUT = 10.0


def shareable(store: SqlStore | None) -> bool:
    """Whether another process can open ``store`` (PostgreSQL, or a SQLite file; not an
    in-memory SQLite)."""
    return store is not None and (store.postgres or sqlite_file(store.url) is not None)


class Relay:
    """Messages for the pages' process, written to its pipe by a thread of their own."""

    def __init__(self) -> None:
        self._queue: queue.SimpleQueue[Message | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._broken = False

    def put(self, message: Message) -> None:
        """Queue ``message`` (never blocks); dropped once the pipe has broken."""
        if not self._broken:
            self._queue.put(message)

    def attach(self, pipe: Connection) -> None:
        """Start writing the queued messages, and every later one, to ``pipe``."""
        self._thread = threading.Thread(
            target=self._write, args=(pipe,), name="arbiter-web-relay", daemon=True
        )
        self._thread.start()

    def close(self, timeout: float = STOP_TIMEOUT) -> None:
        """Write what is queued, then close the pipe (blocks: call it from a thread)."""
        self._queue.put(None)
        if self._thread is not None:
            self._thread.join(timeout)

    def _write(self, pipe: Connection) -> None:
        try:
            while (message := self._queue.get()) is not None:
                try:
                    pipe.send(message)
                except OSError as exc:  # the pages' process has gone
                    self._broken = True
                    log.error("web_process_gone", error=str(exc) or type(exc).__name__)
                    break
        finally:
            pipe.close()


class RelayHub(LiveHub):
    """The arbiter's hub when the pages run in their own process: frames go to ``relay``."""

    def __init__(self, relay: Relay, delays: Mapping[str, int] | None = None, default_delay: int = 0) -> None:
        super().__init__(delays, default_delay)
        self.relay = relay

    def start(
        self,
        match_id: str,
        game: GameDef,
        ladder: str | None,
        bots: dict[int, str],
        started_at: float,
        state: object | None,
        clocks: Mapping[str, float | None],
    ) -> None:
        self.relay.put(Began(match_id, game.name, ladder, dict(bots), started_at))  # before its frames
        super().start(match_id, game, ladder, bots, started_at, state, clocks)

    def _send(self, match: LiveMatch, frame: Frame | None) -> None:
        self.relay.put(Shown(frame) if frame is not None else Ended(match.match_id))


class WebProcess:
    """The pages' process: ``start`` (the address, or OSError with its one line), ``stop``."""

    def __init__(
        self, settings: process.WebSettings, relay: Relay, present: Callable[[], Iterable[str]]
    ) -> None:
        self.settings = settings
        self.relay = relay
        self._present = present
        self._process: BaseProcess | None = None
        self._watch: asyncio.Task[None] | None = None
        self.address = ""

    async def start(self) -> str:
        context = multiprocessing.get_context("spawn")
        ours, theirs = context.Pipe()
        child = context.Process(
            target=process.main, args=(theirs, self.settings), name="arbiter-web", daemon=True
        )
        self._process = child
        child.start()
        theirs.close()  # the process holds its end: when the arbiter's closes, it sees the end
        answer = await asyncio.to_thread(self._handshake, child, ours)
        if isinstance(answer, process.Failed):
            ours.close()
            await asyncio.to_thread(self._join)
            raise OSError(answer.message)
        self.address = answer.address
        self.relay.attach(ours)
        self._watch = asyncio.create_task(self._watch_present())
        return self.address

    @staticmethod
    def _handshake(child: BaseProcess, pipe: Connection) -> process.Bound | process.Failed:
        deadline = time.monotonic() + START_TIMEOUT
        while not pipe.poll(0.1):
            if not child.is_alive():
                return process.Failed(f"the web pages' process ended (exit code {child.exitcode})")
            if time.monotonic() > deadline:
                child.terminate()
                return process.Failed(f"the web pages' process did not start within {START_TIMEOUT:.0f} s")
        try:
            answer = pipe.recv()
        except (EOFError, OSError):
            return process.Failed(f"the web pages' process ended (exit code {child.exitcode})")
        assert isinstance(answer, process.Bound | process.Failed)
        return answer

    async def _watch_present(self) -> None:
        last: frozenset[str] | None = None
        while True:
            now = frozenset(self._present())
            if now != last:
                self.relay.put(Present(now))
                last = now
            await asyncio.sleep(PRESENT_EVERY)

    async def stop(self) -> None:
        if self._watch is not None:
            self._watch.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._watch
        await asyncio.to_thread(self.relay.close)
        await asyncio.to_thread(self._join)

    def _join(self) -> None:
        child = self._process
        if child is None:
            return
        child.join(STOP_TIMEOUT)
        if child.is_alive():
            child.terminate()
            child.join(5)
        if child.is_alive():
            child.kill()
            child.join()


__all__ = ["Relay", "RelayHub", "WebProcess", "shareable"]
