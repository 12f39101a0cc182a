"""The supervisor of ``arbiter serve --processes N``: it starts N workers, each an ``arbiter
serve`` process of its own with the same options, watches them and stops them.

Worker 0 starts first (it rebuilds the store's unfinished matches and hosts the ladders); the
others start once it listens. Every worker binds the public address with SO_REUSEPORT, so the
kernel spreads new connections over them, and a private port of its own. If a worker exits
while the others serve, the supervisor stops the others and exits with status 1; SIGTERM or
SIGINT stops every worker gracefully (each gives its running matches ``--grace`` seconds).
"""

from __future__ import annotations

import contextlib
import ctypes
import signal
import socket
import subprocess
import sys
import tempfile
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .directory import WorkerDirectory

#: The line a worker prints once it serves and is in the directory: ``worker I at HOST:PORT``.
READY_PREFIX = "worker "
#: Seconds a stopping worker gets beyond its grace before it is killed.
STOP_MARGIN = 30.0


class SupervisorError(Exception):
    """The workers could not be started (a one-line reason; ``status`` to exit with)."""

    def __init__(self, message: str, status: int = 1) -> None:
        super().__init__(message)
        self.status = status


def say(line: str, err: bool = False) -> None:
    stream = sys.stderr if err else sys.stdout
    print(line, file=stream, flush=True)


def reserve_port(host: str, port: int) -> tuple[int, socket.socket]:
    """The public port, checked free of any other listener; with ``port`` 0 a free one.

    A socket bound without SO_REUSEPORT fails if anything holds the port, so a port in use by
    another program is refused here. The port is then held, until the workers listen, by a
    socket bound with SO_REUSEPORT (never listening: it takes no connection).
    """
    family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    with socket.socket(family, kind, proto) as probe:
        try:
            probe.bind(address)
        except OSError as exc:
            raise SupervisorError(
                f"cannot listen on {host}:{port}: the address is in use or not available"
            ) from exc
        chosen = int(probe.getsockname()[1])
    hold = socket.socket(family, kind, proto)
    hold.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    hold.bind((address[0], chosen, *address[2:]))
    return chosen, hold


def _die_with_parent() -> None:  # pragma: no cover - runs in the child before exec
    """Linux: the worker gets SIGTERM if the supervisor dies (PR_SET_PDEATHSIG), never orphaned."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)


@dataclass
class Worker:
    index: int
    process: subprocess.Popen[str]
    ready: threading.Event = field(default_factory=threading.Event)
    address: str = ""
    lines: list[str] = field(default_factory=list)

    def read(self, changed: threading.Event) -> None:
        """Read the worker's standard output: its ready line, then pass the rest on."""
        assert self.process.stdout is not None
        for raw in self.process.stdout:
            line = raw.rstrip("\n")
            if not self.ready.is_set():
                if line.startswith(READY_PREFIX) and " at " in line:
                    self.address = line.rsplit(" at ", 1)[1]
                    self.ready.set()
                    changed.set()
                # Its "listening on" line is the supervisor's to print (once for all).
                elif not line.startswith("listening on "):
                    self.lines.append(line)
                continue
            say(line)
        self.process.wait()
        changed.set()


class Supervisor:
    """Runs ``count`` workers of ``arbiter serve ARGUMENTS`` on ``host:port``."""

    def __init__(self, count: int, host: str, port: int, grace: float, arguments: Sequence[str]) -> None:
        self.count = count
        self.host = host
        self.port = port
        self.grace = grace
        self.arguments = list(arguments)
        self.workers: list[Worker] = []
        self.changed = threading.Event()
        self.stop_asked: signal.Signals | None = None

    def command(self, index: int, port: int, folder: str) -> list[str]:
        # Options given twice: click takes the last, so these override the user's.
        return [
            sys.executable,
            "-m",
            "arbiter.cli",
            "serve",
            *self.arguments,
            "--processes",
            "1",
            "--port",
            str(port),
            "--worker-index",
            str(index),
            "--worker-state",
            folder,
        ]

    def spawn(self, index: int, port: int, folder: str) -> Worker:
        process = subprocess.Popen(
            self.command(index, port, folder),
            stdout=subprocess.PIPE,
            text=True,
            preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None,
        )
        worker = Worker(index, process)
        self.workers.append(worker)
        threading.Thread(target=worker.read, args=(self.changed,), daemon=True).start()
        return worker

    def wait_ready(self, workers: Sequence[Worker]) -> None:
        """Until each of ``workers`` is ready; raises SupervisorError if one exits first."""
        while True:
            for worker in workers:
                status = worker.process.poll()
                if status is not None and not worker.ready.is_set():
                    for line in worker.lines:
                        say(line)
                    raise SupervisorError(
                        f"worker {worker.index} exited with status {status} before it served",
                        status if status > 0 else 1,
                    )
            if all(worker.ready.is_set() for worker in workers) or self.stop_asked is not None:
                return
            self.changed.wait(0.5)
            self.changed.clear()

    def on_signal(self, signum: int, _frame: object) -> None:
        self.stop_asked = signal.Signals(signum)
        self.changed.set()

    def run(self) -> int:
        """Start, watch, stop; the exit status (0: stopped by a signal, every worker cleanly)."""
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, self.on_signal)
        with tempfile.TemporaryDirectory(prefix="arbiter-workers-") as folder:
            try:
                return self._run(folder)
            except SupervisorError as exc:
                say(f"error: {exc}", err=True)
                self.stop_all()
                return exc.status
            finally:
                self.stop_all()

    def _run(self, folder: str) -> int:
        WorkerDirectory.create(Path(folder))
        port, hold = reserve_port(self.host, self.port)
        try:
            self.wait_ready([self.spawn(0, port, folder)])
            if self.stop_asked is None:
                self.wait_ready([self.spawn(i, port, folder) for i in range(1, self.count)])
        finally:
            hold.close()
        if self.stop_asked is not None:
            return 0
        # As one `arbiter serve` says it (tests and `deploy/dev demo` read the first line).
        say(f"listening on {self.host}:{port}")
        for worker in self.workers:
            say(f"worker {worker.index} (pid {worker.process.pid}) at {worker.address}")
            for line in worker.lines:
                say(line)
        return self.watch()

    def watch(self) -> int:
        """Until a signal (0 once every worker stopped cleanly) or a worker's exit (1)."""
        while self.stop_asked is None:
            for worker in self.workers:
                status = worker.process.poll()
                if status is not None:
                    say(
                        f"worker {worker.index} (pid {worker.process.pid}) exited with status {status}:"
                        " stopping the other workers",
                        err=True,
                    )
                    self.stop_all()
                    return 1
            self.changed.wait(0.5)
            self.changed.clear()
        say(f"stopping {len(self.workers)} workers ({self.stop_asked.name})", err=True)
        statuses = self.stop_all()
        failed = [f"worker {i}: {s}" for i, s in statuses.items() if s != 0]
        if failed:
            say("workers stopped with a non-zero status: " + ", ".join(failed), err=True)
            return 1
        say("every worker stopped", err=True)
        return 0

    def stop_all(self) -> dict[int, int]:
        """SIGTERM to each live worker, then wait (``grace`` plus ``STOP_MARGIN``, then SIGKILL)."""
        for worker in self.workers:
            if worker.process.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    worker.process.send_signal(signal.SIGTERM)
        statuses = {}
        for worker in self.workers:
            try:
                statuses[worker.index] = worker.process.wait(self.grace + STOP_MARGIN)
            except subprocess.TimeoutExpired:
                worker.process.kill()
                statuses[worker.index] = worker.process.wait()
        return statuses


def serve_arguments(argv: Sequence[str]) -> list[str]:
    """The options given to ``arbiter serve`` on this command line (what follows ``serve``)."""
    if "serve" not in argv:
        raise SupervisorError("--processes: cannot find the serve command's options", 2)
    return list(argv[list(argv).index("serve") + 1 :])


def supervise(count: int, host: str, port: int, grace: float) -> int:
    """``arbiter serve --processes COUNT``: the exit status."""
    try:
        arguments = serve_arguments(sys.argv)
    except SupervisorError as exc:
        say(f"error: {exc}", err=True)
        return exc.status
    return Supervisor(count, host, port, grace, arguments).run()


__all__ = ["Supervisor", "SupervisorError", "supervise"]
