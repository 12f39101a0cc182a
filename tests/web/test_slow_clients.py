"""The web port against slow and many clients (issue 18 item 3), over real sockets on a real
``arbiter web``: partial request heads are closed after ``--web-header-timeout`` however their
bytes trickle in, while requests are served; beyond ``--web-max-connections`` a connection is
answered 503 and closed at once; a flood of bad requests logs one line, not one per request."""

from __future__ import annotations

import selectors
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import httpx
import pytest
from arbiter.store import SqlStore

from .test_spectator_caps import stream

#: Partial requests of the slowloris test, and its header timeout.
PARTIAL = 40
TIMEOUT = 2.0


class Web:
    """A running ``arbiter web`` on a new store; its standard error goes to ``log``."""

    def __init__(self, folder: Path, *options: str) -> None:
        store = SqlStore(f"sqlite:///{folder / 'arbiter.db'}")
        store.upgrade()
        store.close()
        self.log = folder / "web.log"
        with self.log.open("wb") as err:
            self.process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "arbiter.cli",
                    "web",
                    "--database",
                    store.url,
                    "--port",
                    "0",
                    *options,
                ],
                stdout=subprocess.PIPE,
                stderr=err,
                text=True,
            )
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        assert line.startswith("web pages on "), f"{line!r}; {self.log.read_text()}"
        self.url = line.strip().removeprefix("web pages on ")
        host, port = self.url.removeprefix("http://").rsplit(":", 1)
        self.address = (host, int(port))

    def stop(self) -> None:
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            raise


@pytest.fixture
def web(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Web]:
    served = Web(tmp_path, *request.param)
    yield served
    served.stop()


def closed(sock: socket.socket) -> bool:
    """Whether the server has closed ``sock`` (anything it sent first is read and dropped)."""
    try:
        while True:
            data = sock.recv(65536)
            if not data:
                return True
    except BlockingIOError:
        return False
    except ConnectionError:
        return True


@pytest.mark.parametrize("web", [("--web-header-timeout", str(TIMEOUT))], indirect=True)
def test_partial_request_heads_are_closed_after_the_timeout_while_requests_are_served(web: Web) -> None:
    opened: dict[socket.socket, float] = {}
    closed_after: dict[socket.socket, float] = {}
    # One connection has a whole request answered first: its next request's head has a deadline too.
    again = socket.create_connection(web.address)
    again.sendall(b"GET /api/live HTTP/1.1\r\nHost: test\r\n\r\n")
    answer = b""
    while not answer.endswith(b"[]"):
        answer += again.recv(65536)
    assert answer.startswith(b"HTTP/1.1 200")
    for _ in range(PARTIAL):
        sock = socket.create_connection(web.address)
        sock.sendall(b"GET / HTTP/1.1\r\nHost: test\r\n")  # no blank line: the head never ends
        opened[sock] = time.monotonic()
    again.sendall(b"GET / HTTP/1.1\r\n")
    opened[again] = time.monotonic()
    for sock in opened:
        sock.setblocking(False)
    served: list[int] = []

    def a_reader() -> None:  # an ordinary client, during the attack
        with httpx.Client(base_url=web.url, timeout=10) as client:
            served.append(client.get("/").status_code)
            served.append(client.get("/api/live").status_code)

    reader = threading.Thread(target=a_reader)
    reader.start()
    deadline = time.monotonic() + TIMEOUT + 20
    while len(closed_after) < len(opened) and time.monotonic() < deadline:
        for sock, since in opened.items():
            if sock in closed_after:
                continue
            if closed(sock):
                closed_after[sock] = time.monotonic() - since
            else:
                # One more header line every 0.2 s: a timeout that more bytes put off never comes.
                try:
                    sock.send(b"X-Slow: a\r\n")
                except OSError:
                    closed_after[sock] = time.monotonic() - since
        time.sleep(0.2)
    reader.join(20)
    for sock in opened:
        sock.close()
    assert served == [200, 200]
    assert len(closed_after) == len(opened), f"{len(opened) - len(closed_after)} partial requests still open"
    assert min(closed_after.values()) >= TIMEOUT - 0.1  # none before its time


def refused(web: Web, local: str) -> bool:
    """Whether a connection from ``local`` is answered 503 and closed without a request."""
    sock = socket.create_connection(web.address, timeout=10, source_address=(local, 0))
    said = b""
    try:
        while chunk := sock.recv(65536):
            said += chunk
    except TimeoutError:
        return False  # kept open: accepted
    finally:
        sock.close()
    assert said.startswith(b"HTTP/1.1 503 Service Unavailable\r\n"), said
    assert b"retry-after: 10" in said and said.endswith(b"too many connections: try again later\n")
    return True


CAPS = ("--web-max-connections", "3", "--web-max-connections-per-address", "2", "--web-header-timeout", "5")


@pytest.mark.parametrize("web", [CAPS], indirect=True)
def test_connections_past_the_caps_are_answered_503_and_closed_at_once(web: Web) -> None:
    with ExitStack() as streams:
        # Open connections: the live event streams of spectators, two from one address.
        for local in ("127.0.0.1", "127.0.0.1"):
            assert streams.enter_context(stream(web.url, "/live/events", local)).status_code == 200
        assert refused(web, "127.0.0.1")  # the address has its two
        assert streams.enter_context(stream(web.url, "/live/events", "127.0.0.2")).status_code == 200
        assert refused(web, "127.0.0.3")  # the port has its three
    # The streams closed, their places are free again (the server sees them go soon after).
    deadline = time.monotonic() + 10
    while True:
        try:
            assert httpx.get(web.url + "/api/live", timeout=10).status_code == 200
            break
        except httpx.HTTPError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


@pytest.mark.parametrize("web", [()], indirect=True)
def test_a_flood_of_bad_requests_logs_one_line_not_one_each(web: Web) -> None:
    selector = selectors.DefaultSelector()
    for _ in range(200):
        sock = socket.create_connection(web.address)
        sock.sendall(b"NOT HTTP AT ALL\r\n\r\n")
        selector.register(sock, selectors.EVENT_READ)
    answered = 0
    while answered < 200:  # each gets its 400 and its close
        events = selector.select(10)
        assert events, f"{answered} of 200 answered"
        for key, _ in events:
            answering = key.fileobj
            assert isinstance(answering, socket.socket)
            if not answering.recv(65536):
                selector.unregister(answering)
                answering.close()
                answered += 1
    assert httpx.get(web.url + "/api/live", timeout=10).status_code == 200
    lines = web.log.read_text().splitlines()
    bad = [line for line in lines if "Invalid HTTP request received" in line]
    assert len(bad) == 1, lines[:5]
