"""`arbiter serve --advertise` refuses what cannot form a cluster, with a one-line error."""

from __future__ import annotations

import subprocess
import sys


def serve(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "arbiter.cli", "serve", "--port", "0", "--bot", "a=token-a", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)


def test_a_cluster_needs_postgresql(tmp_path):
    done = serve("--advertise", "127.0.0.1:50999", "--database", f"sqlite:///{tmp_path / 'a.db'}")
    assert done.returncode == 2
    assert "error: a cluster of nodes needs a PostgreSQL database" in done.stderr


def test_a_cluster_needs_a_database(tmp_path):
    done = serve("--advertise", "127.0.0.1:50999", "--database", "none")
    assert done.returncode == 2
    assert "--advertise needs the cluster's PostgreSQL database" in done.stderr


def test_the_heartbeat_must_be_shorter_than_the_lease(postgres_cluster):
    url = postgres_cluster.new_database("serve_options")
    done = serve("--advertise", "127.0.0.1:50999", "--database", url, "--lease", "1", "--heartbeat", "2")
    assert done.returncode == 2
    assert "the heartbeat interval must be positive and shorter than the lease" in done.stderr
