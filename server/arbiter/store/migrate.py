"""The store's schema versions: alembic, configured in code (no alembic.ini at run time)."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from alembic.util import CommandError
from sqlalchemy import Connection, Engine

from .rows import OutdatedSchema, StoreError

MIGRATIONS = Path(__file__).resolve().parent / "migrations"


def alembic_config(connection: Connection | None = None, url: str | None = None) -> Config:
    """An alembic configuration for the store's migrations, bound to ``connection`` if given."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    if url is not None:
        config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    if connection is not None:
        config.attributes["connection"] = connection
    return config


def head_revision() -> str:
    """The schema revision this arbiter needs."""
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert head is not None, "the store has no migrations"
    return head


def current_revision(connection: Connection) -> str | None:
    """The database's schema revision (None: no schema yet)."""
    return MigrationContext.configure(connection).get_current_revision()


def upgrade(engine: Engine) -> None:
    """Migrate the database to the head revision, in one transaction."""
    try:
        with engine.begin() as connection:
            command.upgrade(alembic_config(connection), "head")
    except CommandError as exc:  # e.g. a database at a revision this arbiter does not know
        raise StoreError(f"cannot upgrade the database: {exc}") from exc


def check(engine: Engine) -> None:
    """Raise OutdatedSchema unless the database is at the head revision."""
    with engine.connect() as connection:
        current = current_revision(connection)
    needed = head_revision()
    if current != needed:
        shown = current or "none (an empty database)"
        raise OutdatedSchema(
            f"the database schema is at revision {shown}, this arbiter needs {needed}:"
            " run `arbiter db upgrade`"
        )
