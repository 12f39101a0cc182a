"""Who is where among the workers of one ``arbiter serve --processes N``: a small SQLite file.

The supervisor makes it in a temporary folder of its own and removes it when it stops; nothing
in it outlives the workers, so it is written without waiting for the disk (WAL, synchronous=OFF).
It holds two tables:

- ``workers``: each worker's index, its private address and its process id;
- ``bots``: the worker that holds each bot, while the bot has a live session there or matches
  running there (or, without a store, results waiting there for it).

A worker claims a bot with one ``INSERT ... ON CONFLICT DO NOTHING`` and then reads who holds it:
of two workers claiming the same bot at once exactly one wins, and the other sends the bot there.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

#: The directory's file name inside the supervisor's folder.
FILE_NAME = "workers.sqlite"

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS workers"
    " (idx INTEGER PRIMARY KEY, address TEXT NOT NULL, pid INTEGER NOT NULL)",
    "CREATE TABLE IF NOT EXISTS bots (bot TEXT PRIMARY KEY, worker INTEGER NOT NULL)",
)


class WorkerDirectory:
    """One worker's connection to the shared directory (``index``: this worker's)."""

    def __init__(self, folder: Path, index: int) -> None:
        self.index = index
        self.path = Path(folder) / FILE_NAME
        # Autocommit: every statement is its own transaction; a writer waits up to 5 s for another.
        self.db = sqlite3.connect(self.path, timeout=5.0, isolation_level=None, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=OFF")
        for statement in _SCHEMA:
            self.db.execute(statement)
        self._addresses: dict[int, str] = {}

    @classmethod
    def create(cls, folder: Path) -> None:
        """Make the (empty) directory in ``folder``: the supervisor does, before any worker starts."""
        WorkerDirectory(folder, -1).close()

    def register(self, address: str) -> None:
        """This worker listens at ``address`` (its private ``HOST:PORT``)."""
        self.db.execute(
            "INSERT OR REPLACE INTO workers (idx, address, pid) VALUES (?, ?, ?)",
            (self.index, address, os.getpid()),
        )

    def address_of(self, index: int) -> str | None:
        """The private address of worker ``index`` (None before it registered)."""
        known = self._addresses.get(index)
        if known is None:
            row = self.db.execute("SELECT address FROM workers WHERE idx = ?", (index,)).fetchone()
            if row is None:
                return None
            known = self._addresses[index] = str(row[0])
        return known

    def claim(self, bot: str) -> int:
        """Hold ``bot`` here unless another worker does: the index of the worker holding it."""
        self.db.execute(
            "INSERT INTO bots (bot, worker) VALUES (?, ?) ON CONFLICT (bot) DO NOTHING", (bot, self.index)
        )
        row = self.db.execute("SELECT worker FROM bots WHERE bot = ?", (bot,)).fetchone()
        return self.index if row is None else int(row[0])

    def release(self, bot: str) -> None:
        """This worker holds ``bot`` no longer (a claim of another worker is left alone)."""
        self.db.execute("DELETE FROM bots WHERE bot = ? AND worker = ?", (bot, self.index))

    def holder(self, bot: str) -> int | None:
        """The worker holding ``bot`` now, or None."""
        row = self.db.execute("SELECT worker FROM bots WHERE bot = ?", (bot,)).fetchone()
        return None if row is None else int(row[0])

    def close(self) -> None:
        self.db.close()
