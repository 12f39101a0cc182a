"""Several ``arbiter serve --advertise`` processes on one throwaway PostgreSQL database."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arbiter.store import SqlStore

#: Short timings, so that a takeover comes quickly in the tests (docs/cluster.md: the defaults).
LEASE = 4.0
HEARTBEAT = 0.5


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Node:
    url: str
    log: Path
    port: int = field(default_factory=free_port)
    process: subprocess.Popen[bytes] | None = None
    grace: float = 10.0
    lease: float = LEASE

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self) -> None:
        command = [sys.executable, "-m", "arbiter.cli", "serve", "--database", self.url]
        command += ["--port", str(self.port), "--advertise", self.address]
        command += ["--lease", str(self.lease), "--heartbeat", str(HEARTBEAT), "--grace", str(self.grace)]
        command += ["--records", str(self.log.parent / f"records-{self.port}"), "--log-level", "info"]
        with open(self.log, "ab") as out:
            self.process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)

    def serving(self) -> bool:
        return self.log.exists() and '"serving"' in self.log.read_text(errors="replace")

    def text(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def kill(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)

    def terminate(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGTERM)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)


@contextlib.contextmanager
def nodes(url: str, directory: Path, count: int, lease: float = LEASE) -> Iterator[list[Node]]:
    """``count`` nodes started one after the other (each serving before the next starts)."""
    started = [Node(url, directory / f"node-{i + 1}.log", lease=lease) for i in range(count)]
    try:
        for node in started:
            node.start()
            wait_sync(node.serving, 120, f"{node.address} serving")
        yield started
    finally:
        for node in started:
            node.stop()


def wait_sync(condition: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


async def wait_until(condition: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.1)


def owners(store: SqlStore) -> dict[str, int | None]:
    """Each match's owner epoch, read directly from the store."""
    from sqlalchemy import text

    with store.transaction() as session:
        rows = session.execute(text("SELECT id, owner_epoch FROM matches")).all()
    return {str(row[0]): row[1] for row in rows}


def epochs(store: SqlStore) -> dict[str, int]:
    """The latest epoch of each address."""
    from sqlalchemy import text

    with store.transaction() as session:
        rows = session.execute(text("SELECT address, epoch FROM cluster_nodes ORDER BY epoch")).all()
    return {str(row[0]): int(row[1]) for row in rows}


async def play_until(sessions: list[Any], condition: Callable[[], bool], timeout: float) -> None:
    """Run SDK sessions (no game limit) until ``condition``; then each one plays out the matches
    it has (a ladder bot wanting a fixed number of games could be left with no opponent)."""
    tasks = [asyncio.create_task(session.run()) for session in sessions]
    await wind_down(sessions, tasks, condition, timeout)


async def wind_down(
    sessions: list[Any], tasks: list[asyncio.Task[Any]], condition: Callable[[], bool], timeout: float
) -> None:
    """Once ``condition`` holds, the running ``sessions`` leave their ladder, finish the matches
    they have, and stop."""
    try:
        await wait_until(lambda: condition() or any(t.done() for t in tasks), timeout, "the condition")
        for task in tasks:
            if task.done():
                task.result()  # a session that stopped early: its error
        for session in sessions:
            session.games = len(session.summaries) + session._active()
            session._top_up_seeks()  # leaves the ladder: it has all the matches it wants now
        await wait_until(lambda: all(s._active() == 0 for s in sessions), timeout, "the last matches")
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
