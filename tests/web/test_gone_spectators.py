"""A spectator that goes away is not written to again (issue 19 item 6): ``arbiter web`` logged
"socket.send() raised exception." when the frames of a poll went out to an event stream whose
client had just gone (asyncio warns from the fifth write to a lost connection). A stream now gives
the loop a turn between its frames, so the loss is noticed after the first failed write."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import socket
import struct
import threading
from collections.abc import Iterator
from typing import Any, ClassVar

import pytest
from arbiter.store import SqlStore
from arbiter.web.app import WebServer, create_app
from arbiter.web.live import Frame, LiveHub
from arbiter_games import get_game


class Loop:
    """An asyncio loop in a thread of its own."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def run(self, coroutine: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(30)

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)


@pytest.fixture
def served(tmp_path: Any) -> Iterator[tuple[Loop, LiveHub, WebServer]]:
    store = SqlStore(f"sqlite:///{tmp_path / 'a.db'}")
    store.upgrade()
    hub = LiveHub()
    loop = Loop()

    async def start() -> WebServer:
        server = WebServer(create_app(store, hub), "127.0.0.1", 0)
        await server.start()
        return server

    server = loop.run(start())
    yield loop, hub, server
    loop.run(server.stop())
    loop.stop()
    store.close()


@dataclasses.dataclass(frozen=True, eq=False)
class Held(Frame):
    """A frame whose text waits for ``release`` (set as a class attribute) before it is given."""

    release: ClassVar[threading.Event] = threading.Event()

    @property
    def event(self) -> str:
        self.release.wait(10)
        return super().event


def test_frames_for_a_spectator_that_went_away_are_not_written_on_and_on(
    served: tuple[Loop, LiveHub, WebServer], caplog: pytest.LogCaptureFixture
) -> None:
    loop, hub, server = served
    game = get_game("torrent")
    state = game.new_game({"size": 5})

    def a_match() -> None:
        hub.start("m1", game, None, {1: "a", 2: "b"}, 0.0, state, {})
        moves = state
        for ply in range(1, 13):
            moves = game.apply(moves, game.legal_actions(moves)[0])
            hub.applied("m1", 1 + (ply - 1) % 2, "x", 0.1, {"1": 1.0, "2": 1.0}, None, moves)
        match = hub.get("m1")
        assert match is not None
        match.frames[1] = Held(
            **{f.name: getattr(match.frames[1], f.name) for f in dataclasses.fields(Frame)}
        )

    loop.loop.call_soon_threadsafe(a_match)
    caplog.set_level(logging.WARNING, logger="asyncio")
    spectator = socket.create_connection(("127.0.0.1", server.port))
    spectator.sendall(b"GET /matches/m1/events HTTP/1.1\r\nHost: test\r\n\r\n")
    head = b""
    while b"event: frame" not in head:  # the answer's head and the first frame of the backlog
        head += spectator.recv(65536)
    assert head.startswith(b"HTTP/1.1 200")
    # While the stream waits for its second frame, the spectator resets its connection (as a
    # closed tab's can end); then the other eleven frames of the backlog go out.
    spectator.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    spectator.close()
    threading.Event().wait(0.2)
    Held.release.set()

    async def settled() -> int:
        for _ in range(50):
            await asyncio.sleep(0.02)
        return hub.subscribed

    assert loop.run(settled()) == 0  # the stream ended
    said = [record.getMessage() for record in caplog.records if record.name == "asyncio"]
    assert not [line for line in said if "socket.send() raised exception" in line], said
