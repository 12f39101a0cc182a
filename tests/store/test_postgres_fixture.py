"""The throwaway PostgreSQL: without the binaries it fails with what to install (it never skips)."""

from __future__ import annotations

import psycopg
import pytest
from arbiter.store import SqlStore

from tests import postgres


def test_missing_binaries_say_what_to_install(monkeypatch):
    monkeypatch.setattr("tests.postgres.glob.glob", lambda pattern: [])
    monkeypatch.setattr("tests.postgres.shutil.which", lambda name: None)
    with pytest.raises(postgres.ClusterError) as raised:
        postgres.binaries()
    assert str(raised.value).endswith(": apt-get install postgresql")


def test_the_newest_installed_version_is_used(monkeypatch):
    found = ["/usr/lib/postgresql/9.6/bin/initdb", "/usr/lib/postgresql/15/bin/initdb"]
    monkeypatch.setattr("tests.postgres.glob.glob", lambda pattern: found)
    assert str(postgres.binaries()) == "/usr/lib/postgresql/15/bin"


def test_the_session_database_is_a_plain_postgresql_url_the_store_opens(postgres_url):
    assert postgres_url.startswith("postgresql://postgres@/arbiter_test?host=/")
    store = SqlStore(postgres_url)
    store.upgrade()
    store.check_schema()
    store.close()


def test_a_commit_the_store_acknowledged_survives_a_halt_and_restart():
    # The ladder outage test halts PostgreSQL (a crash) right after results are committed; with
    # asynchronous commit the cluster itself would drop them, whatever the arbiter does.
    cluster = postgres.Cluster()
    cluster.start()
    try:
        store = SqlStore(cluster.new_database("durable"))
        store.upgrade()
        for round_ in range(3):
            with psycopg.connect(**cluster.connect_args("durable")) as db:
                assert db.execute("SHOW synchronous_commit").fetchone() == ("on",)
            name = f"bot{round_}"
            store.add_bot(name, f"owner of {name}")  # committed: the store returned
            cluster.halt()
            cluster.restart()
            # The store's pooled connection died with the server; the next call reconnects.
            assert store.get_bot(name) is not None, f"round {round_}: an acknowledged commit was lost"
        store.close()
    finally:
        cluster.stop()
