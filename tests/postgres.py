"""A throwaway PostgreSQL cluster for the tests, from the machine's PostgreSQL binaries.

The cluster lives in a fresh directory under /tmp, listens on a unix socket in that directory only
(no TCP port), trusts local connections and runs without fsync. As root (initdb refuses root) its
programs run as the user ``postgres`` through ``runuser``.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import psycopg

INSTALL = "apt-get install postgresql"
PORT = 5432  # only names the socket file: the socket's directory is the cluster's own


class ClusterError(RuntimeError):
    """The cluster cannot be made; the message is one line, with what to do."""


def binaries() -> Path:
    """The newest /usr/lib/postgresql/*/bin holding initdb (or initdb's directory on PATH)."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=_version)
    if found:
        return Path(found[-1]).parent
    on_path = shutil.which("initdb")
    if on_path:
        return Path(on_path).parent
    raise ClusterError(f"PostgreSQL is needed for the store tests and is not installed: {INSTALL}")


def _version(initdb: str) -> tuple[int, ...]:
    name = Path(initdb).parent.parent.name
    return tuple(int(part) for part in name.split(".") if part.isdigit())


class Cluster:
    """initdb, pg_ctl start/stop and createdb in a temporary directory."""

    def __init__(self) -> None:
        self.bin = binaries()
        self.user = _unprivileged_user()
        self.dir = Path(tempfile.mkdtemp(prefix="arbiter-pg-"))
        self.data = self.dir / "data"
        if self.user is not None:
            os.chown(self.dir, self.user.pw_uid, self.user.pw_gid)

    def _options(self) -> str:
        """The server's settings, the same at ``start`` and ``restart``.

        fsync and full-page writes are off: they guard against the machine losing power, which a
        test never does, and cost time. ``synchronous_commit`` stays on (PostgreSQL's default):
        off, a commit is acknowledged before its WAL leaves the server's memory, so ``halt`` (a
        crash) would lose the last commits the arbiter was told were done, as a real crash would.
        """
        return f"-c listen_addresses='' -k {self.dir} -p {PORT} -c fsync=off -c full_page_writes=off"

    def _run(self, program: str, *args: str) -> None:
        command = [str(self.bin / program), *args]
        if self.user is not None:
            command = ["runuser", "-u", self.user.pw_name, "--", *command]
        done = subprocess.run(command, capture_output=True, text=True, cwd=self.dir, check=False)
        if done.returncode != 0:
            lines = (done.stderr or done.stdout).strip().splitlines() or ["no output"]
            raise ClusterError(f"{program} failed: {lines[-1]}")

    def start(self) -> None:
        self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync")
        log = self.dir / "log"
        try:
            self._run("pg_ctl", "-D", str(self.data), "-l", str(log), "-w", "-o", self._options(), "start")
        except ClusterError as exc:
            said = log.read_text(errors="replace").strip().splitlines() if log.exists() else []
            raise ClusterError(f"{exc} ({said[-1] if said else 'no log'})") from None

    def createdb(self, name: str) -> str:
        """A new database; returns its URL (plain ``postgresql://``, as a user would write it)."""
        self._run("createdb", "-h", str(self.dir), "-p", str(PORT), "-U", "postgres", name)
        return self.url(name)

    def connect_args(self, database: str) -> dict[str, Any]:
        """``psycopg.connect`` keywords for ``database`` as the superuser."""
        return {"host": str(self.dir), "port": PORT, "user": "postgres", "dbname": database}

    def new_database(self, name: str) -> str:
        """Like ``createdb``, without a process: for a fresh database per test."""
        with psycopg.connect(**self.connect_args("postgres")) as admin:
            admin.autocommit = True
            admin.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def url(self, database: str) -> str:
        return f"postgresql://postgres@/{database}?host={self.dir}&port={PORT}"

    def halt(self) -> None:
        """Stop the server at once (as a crash would), keeping its data for ``restart``."""
        self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")

    def restart(self) -> None:
        """Start a halted server again on the same data."""
        self._run(
            "pg_ctl", "-D", str(self.data), "-l", str(self.dir / "log"), "-w", "-o", self._options(), "start"
        )

    def stop(self) -> None:
        try:
            if (self.data / "postmaster.pid").exists():
                self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)


def _unprivileged_user() -> pwd.struct_passwd | None:
    """None when not root; else the user ``postgres`` (the postgresql package creates it)."""
    if os.geteuid() != 0:
        return None
    try:
        return pwd.getpwnam("postgres")
    except KeyError:
        raise ClusterError(
            f"as root the tests run PostgreSQL as the user postgres, which does not exist: {INSTALL}"
        ) from None
