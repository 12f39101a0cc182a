"""Shared test setup: make the server package importable without installing; the store's databases."""

import itertools
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.postgres import Cluster, ClusterError

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "server"))
sys.path.insert(0, str(ROOT / "clients" / "python"))
VECTORS = ROOT / "tests" / "vectors"


# --- the store's databases: SQLite and a throwaway PostgreSQL ----------------------------------
_databases = itertools.count(1)


@pytest.fixture(scope="session")
def postgres_cluster() -> Iterator[Cluster]:
    """A PostgreSQL cluster for this test session (fails, never skips, without PostgreSQL)."""
    try:
        cluster = Cluster()
    except ClusterError as exc:
        pytest.fail(str(exc), pytrace=False)
    try:
        cluster.start()
    except ClusterError as exc:
        cluster.stop()
        pytest.fail(str(exc), pytrace=False)
    yield cluster
    cluster.stop()


@pytest.fixture(scope="session")
def postgres_url(postgres_cluster: Cluster) -> str:
    """The URL of a database (``arbiter_test``) in the session's PostgreSQL cluster."""
    return postgres_cluster.createdb("arbiter_test")


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """An empty database for one test: a SQLite file in tmp_path, or a new PostgreSQL database."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'arbiter.db'}"
    cluster: Cluster = request.getfixturevalue("postgres_cluster")
    return cluster.new_database(f"arbiter_{next(_databases)}")
