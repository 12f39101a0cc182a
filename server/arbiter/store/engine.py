"""Database URLs and engines: SQLite (WAL, foreign keys, immediate write transactions) or PostgreSQL."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError

from .rows import MissingDatabase, StoreError

DEFAULT_URL = "sqlite:///arbiter.db"
#: The execution option that makes a SQLite transaction take the write lock when it begins.
BEGIN_MODE = "arbiter_sqlite_begin"


def default_url() -> str:
    """The store when none is named: ``arbiter.db`` in the working directory."""
    return DEFAULT_URL


def normalise_url(url: str) -> URL:
    """Parse ``url``; ``postgresql://`` (and ``postgres://``) mean the psycopg 3 driver."""
    try:
        parsed = make_url(url)
    except ArgumentError as exc:
        hint = ""
        if "://" not in url and url.strip():
            # A bare path: the user meant a SQLite file.
            hint = f"; for a SQLite file write sqlite:///{url}"
        raise StoreError(f"not a database URL: {url!r}{hint}") from exc
    if parsed.drivername in ("postgresql", "postgres"):
        parsed = parsed.set(drivername="postgresql+psycopg")
    if parsed.get_backend_name() not in ("sqlite", "postgresql"):
        raise StoreError(f"unsupported database {parsed.get_backend_name()!r}: use sqlite or postgresql")
    return parsed


def sqlite_file(url: str) -> Path | None:
    """The file of a ``sqlite:///FILE`` URL (None for PostgreSQL and an in-memory SQLite)."""
    parsed = normalise_url(url)
    database = parsed.database or ""
    if parsed.get_backend_name() != "sqlite" or database in ("", ":memory:") or database.startswith("file:"):
        return None
    return Path(database)


def make_engine(url: str, create: bool = True) -> Engine:
    """An engine for ``url``, with the SQLite settings the store relies on.

    ``create=False``: a SQLite file that does not exist is MissingDatabase, and is not created.
    """
    parsed = normalise_url(url)
    path = sqlite_file(url)
    if path is not None and not path.parent.is_dir():
        raise StoreError(f"cannot open the SQLite file {path}: its folder {path.parent} does not exist")
    if not create and path is not None and not path.exists():
        raise MissingDatabase(f"no database at {path}: `arbiter db upgrade --database {url}` creates one")
    if parsed.get_backend_name() != "sqlite":
        return create_engine(parsed, pool_pre_ping=True)
    engine = create_engine(parsed, connect_args={"check_same_thread": False, "timeout": 30})
    event.listen(engine, "connect", _sqlite_connected)
    event.listen(engine, "begin", _sqlite_begin)
    return engine


def _sqlite_connected(dbapi_connection: Any, _record: Any) -> None:
    """WAL and foreign keys on each connection; transactions are begun by ``_sqlite_begin``."""
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA foreign_keys=ON")
    finally:
        cursor.close()


def _sqlite_begin(connection: Connection) -> None:
    """``BEGIN`` (reads) or ``BEGIN IMMEDIATE`` (writes: no lock upgrade to fail half way)."""
    mode = connection.get_execution_options().get(BEGIN_MODE, "DEFERRED")
    connection.exec_driver_sql(f"BEGIN {mode}")
