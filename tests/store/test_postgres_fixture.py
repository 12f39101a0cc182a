"""The throwaway PostgreSQL: without the binaries it fails with what to install (it never skips)."""

from __future__ import annotations

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
