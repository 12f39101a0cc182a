"""Alembic's environment for the store: run by ``SqlStore.upgrade()`` with its own connection.

Online migrations take the connection from ``config.attributes["connection"]``; offline ones (SQL
scripts) take ``sqlalchemy.url`` from the configuration.
"""

from __future__ import annotations

from alembic import context
from arbiter.store.schema import Base


def run_offline() -> None:
    """Write the migrations as SQL for the configured URL's dialect."""
    context.configure(
        url=context.config.get_main_option("sqlalchemy.url"),
        target_metadata=Base.metadata,
        literal_binds=True,
        render_as_batch=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_online() -> None:
    """Migrate through the connection the store hands over."""
    connection = context.config.attributes.get("connection")
    if connection is None:
        raise RuntimeError("run the store's migrations through SqlStore.upgrade() (arbiter db upgrade)")
    context.configure(connection=connection, target_metadata=Base.metadata, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()


if context.is_offline_mode():
    run_offline()
else:
    run_online()
