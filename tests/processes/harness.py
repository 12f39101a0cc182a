"""``arbiter serve --processes N`` as a real process: its workers' addresses and their logs."""

from __future__ import annotations

import contextlib
import json
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.cluster.harness import wait_sync

#: Tokens given with --bot (every bot of these tests).
TOKENS = {f"bot{i}": f"token-{i}" for i in range(20)}


@dataclass
class Served:
    """A running ``arbiter serve --processes N``: the supervisor and what its output said."""

    process: subprocess.Popen[str]
    log: Path
    address: str = ""
    #: Worker index -> (pid, private address), from the supervisor's lines.
    workers: dict[int, tuple[int, str]] = field(default_factory=dict)
    lines: list[str] = field(default_factory=list)

    def read(self) -> None:
        assert self.process.stdout is not None
        for raw in self.process.stdout:
            line = raw.rstrip("\n")
            self.lines.append(line)
            if line.startswith("listening on ") and not self.address:
                self.address = line.removeprefix("listening on ")
            elif line.startswith("worker ") and " (pid " in line:
                index, rest = line.removeprefix("worker ").split(" (pid ", 1)
                pid, address = rest.split(") at ", 1)
                self.workers[int(index)] = (int(pid), address)

    def private(self, index: int) -> str:
        return self.workers[index][1]

    def events(self, event: str | None = None) -> list[dict[str, Any]]:
        """The JSON log lines of every process (optionally only those of ``event``)."""
        found = []
        for line in self.log.read_text(errors="replace").splitlines():
            if line.startswith("{"):
                with contextlib.suppress(ValueError):
                    entry = json.loads(line)
                    if event is None or entry.get("event") == event:
                        found.append(entry)
        return found

    def stderr(self) -> str:
        return self.log.read_text(errors="replace")

    def signal(self, sig: int) -> None:
        self.process.send_signal(sig)


def start(
    tmp_path: Path, *args: str, processes: int = 2, bots: int = len(TOKENS), ready: bool = True
) -> Served:
    """Start the supervisor on a free port (``--port 0``); with ``ready``, wait for its workers."""
    command = [sys.executable, "-m", "arbiter.cli", "serve", "--port", "0", "--processes", str(processes)]
    command += ["--records", str(tmp_path / "records"), "--log-level", "info", "--grace", "5"]
    for name, token in list(TOKENS.items())[:bots]:
        command += ["--bot", f"{name}={token}"]
    log = tmp_path / "serve.log"
    with open(log, "w") as err:
        process = subprocess.Popen(
            [*command, *args], stdout=subprocess.PIPE, stderr=err, text=True, cwd=tmp_path
        )
    served = Served(process, log)
    threading.Thread(target=served.read, daemon=True).start()
    if ready:
        wait_sync(lambda: len(served.workers) == processes or process.poll() is not None, 120, "the workers")
        assert len(served.workers) == processes, served.stderr()[-3000:]
    return served


@contextlib.contextmanager
def serving(tmp_path: Path, *args: str, processes: int = 2) -> Iterator[Served]:
    served = start(tmp_path, *args, processes=processes)
    try:
        yield served
    finally:
        stop(served)


def stop(served: Served) -> int:
    """SIGTERM to the supervisor; its exit status."""
    if served.process.poll() is None:
        served.process.send_signal(signal.SIGTERM)
    try:
        return served.process.wait(60)
    except subprocess.TimeoutExpired:
        served.process.kill()
        return served.process.wait(10)


def alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie does not count)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"
