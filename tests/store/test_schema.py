"""The schema: migrations from empty, the migrations equal the models, the schema check, URLs."""

from __future__ import annotations

import subprocess
import sys
import zipfile

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from arbiter.store import OutdatedSchema, SqlStore, StoreError, default_url, open_store
from arbiter.store.engine import normalise_url
from arbiter.store.migrate import head_revision
from arbiter.store.schema import Base
from sqlalchemy import Engine, create_engine, inspect, text

from tests.conftest import ROOT

TABLES = {
    "alembic_version",
    "bots",
    "ladders",
    "matches",
    "moves",
    "ratings",
    "rating_updates",
    "mailbox",
    "ladder_status",
    "cluster_nodes",
    "ladder_hosts",
    "cluster_secret",
    "cluster_seeks",
    "ladder_challenges",
    "bot_versions",
    "events",
    "event_entries",
    "event_rounds",
    "event_pairings",
    "event_results",
    "event_games",
    "accounts",
    "invites",
    "web_secret",
}


def _engine(url: str) -> Engine:
    return create_engine(normalise_url(url))


def test_upgrade_from_empty_creates_every_table_and_is_idempotent(store_url):
    store = SqlStore(store_url)
    store.upgrade()
    store.upgrade()
    store.check_schema()
    store.close()
    engine = _engine(store_url)
    assert set(inspect(engine).get_table_names()) == TABLES
    with engine.connect() as connection:
        versions = connection.execute(text("SELECT version_num FROM alembic_version")).scalars().all()
        assert versions == [head_revision()]
    engine.dispose()


def test_the_migrations_produce_exactly_the_models_schema(store):
    engine = _engine(store.url)
    with engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        assert compare_metadata(context, Base.metadata) == []
    engine.dispose()


def test_check_schema_on_an_empty_database_says_what_to_run(store_url):
    store = SqlStore(store_url)
    with pytest.raises(OutdatedSchema) as raised:
        store.check_schema()
    store.close()
    message = str(raised.value)
    assert message == (
        f"the database schema is at revision none (an empty database), this arbiter needs {head_revision()}:"
        " run `arbiter db upgrade`"
    )
    assert "\n" not in message


@pytest.mark.parametrize("revision", ["0000", "9999"])
def test_check_schema_on_another_revision_names_both(store, revision):
    engine = _engine(store.url)
    with engine.begin() as connection:
        connection.execute(text("UPDATE alembic_version SET version_num = :r"), {"r": revision})
    engine.dispose()
    with pytest.raises(
        OutdatedSchema, match=f"at revision {revision}, this arbiter needs {head_revision()}: run `arbiter db"
    ):
        store.check_schema()
    with pytest.raises(StoreError, match=f"cannot upgrade the database: Can't locate revision.*{revision}"):
        store.upgrade()  # a revision this arbiter does not know (a newer arbiter's)


def test_open_store_checks_the_schema(store_url):
    with pytest.raises(OutdatedSchema):
        open_store(store_url)
    SqlStore(store_url).upgrade()
    opened = open_store(store_url)
    assert opened.list_bots() == []
    opened.close()


def test_default_url_is_a_sqlite_file_in_the_working_directory():
    assert default_url() == "sqlite:///arbiter.db"


def test_postgresql_urls_use_psycopg_3():
    assert normalise_url("postgresql://u@h/db").drivername == "postgresql+psycopg"
    assert normalise_url("postgres://u@h/db").drivername == "postgresql+psycopg"
    assert normalise_url("postgresql+psycopg://u@h/db").drivername == "postgresql+psycopg"
    with pytest.raises(StoreError, match="unsupported database 'mysql'"):
        normalise_url("mysql://u@h/db")
    with pytest.raises(StoreError, match="not a database URL"):
        normalise_url("arbiter.db")


def test_sqlite_runs_in_wal_mode_with_foreign_keys(tmp_path):
    store = SqlStore(f"sqlite:///{tmp_path / 'a.db'}")
    store.upgrade()
    with store._engine.connect() as connection:  # the store's own connections
        assert connection.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert connection.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
    store.close()


def test_the_distribution_ships_the_migrations(tmp_path):
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(tmp_path),
            str(ROOT),
        ],
        check=True,
        capture_output=True,
    )
    (wheel,) = tmp_path.glob("arbiter-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for name in (
        "env.py",
        "script.py.mako",
        "versions/0001_initial.py",
        "versions/0002_web_indexes.py",
        "versions/0003_cluster.py",
        "versions/0008_bot_page_indexes.py",
    ):
        assert f"arbiter/store/migrations/{name}" in names


def _seat_indexes(url: str) -> set[str]:
    engine = _engine(url)
    names = {index["name"] for index in inspect(engine).get_indexes("matches")}
    engine.dispose()
    return {name for name in names if name and name.startswith("ix_matches_seat_")}


def test_migration_0008_replaces_the_single_seat_indexes_and_goes_back(store_url):
    from alembic import command
    from arbiter.store.migrate import alembic_config

    engine = _engine(store_url)
    with engine.begin() as connection:
        command.upgrade(alembic_config(connection), "0007")
    engine.dispose()
    assert _seat_indexes(store_url) == {"ix_matches_seat_1_bot", "ix_matches_seat_2_bot"}
    store = SqlStore(store_url)
    store.upgrade()  # 0007 -> head
    store.close()
    new = {
        f"ix_matches_seat_{seat}_{kind}" for seat in (1, 2) for kind in ("bot_sequence", "results", "rated")
    }
    assert _seat_indexes(store_url) == new
    engine = _engine(store_url)
    with engine.begin() as connection:
        command.downgrade(alembic_config(connection), "0007")
    engine.dispose()
    assert _seat_indexes(store_url) == {"ix_matches_seat_1_bot", "ix_matches_seat_2_bot"}
