"""``arbiter serve --web`` serves its pages from a process of its own (issue 18 item 5;
docs/web.md "Two ways to serve them", docs/reliability.md "Many spectators of one match").

Over real HTTP against a real ``arbiter serve --web`` with SDK bots: a live match's frames come
through the pipe in order, the last ``over``, the same as an in-process hub's; the bot page says
"connected now" while a bot is connected (the set crosses the pipe) and not after; a SIGKILL of the
arbiter leaves no web process behind; a web port that cannot be bound is one line and a non-zero
exit; ``--web-in-process`` serves them with no such process. The spectator caps over the pages'
process: tests/web/test_spectator_caps.py. And without processes: a ``RelayHub``'s messages make
a ``MirrorHub`` show what a ``LiveHub`` shows."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
from arbiter.ladder.model import LadderConfig
from arbiter.store import SqlStore
from arbiter.web.live import Frame, LiveHub, Update
from arbiter.web.mirror import Message, MirrorHub
from arbiter.web.poller import StorePoller
from arbiter.web.relay import Relay, RelayHub
from arbiter_bot.client import Session
from arbiter_bot.examples.greedy_flank import GreedyFlankBot
from arbiter_bot.examples.random_bot import RandomBot
from arbiter_games import get_game
from arbiter_games.timecontrol import TimeControl

from tests.ladder_games import play_each

from .conftest import Slow, wait_for
from .test_processes import start, stop
from .test_store_frames import stream_frames

THINK = 0.05


class Served:
    def __init__(
        self, store: SqlStore, tokens: dict[str, str], process: subprocess.Popen[str], lines: list[str]
    ):
        self.store = store
        self.tokens = tokens
        self.process = process
        self.grpc = lines[0].removeprefix("listening on ").split()[0]
        self.web = lines[-1].removeprefix("web pages on ")

    def session(self, name: str, bot: Any) -> Session:
        return Session(
            bot, self.grpc, self.tokens[name], ("torrent", {"size": 5}), None, ladder="t5", version="v1"
        )


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    """A store with a ladder and two bots, and ``arbiter serve --web`` on it (the default mode)."""
    store = SqlStore(f"sqlite:///{tmp_path / 'arbiter.db'}")
    store.upgrade()
    store.add_ladder(LadderConfig("t5", "torrent", {"size": 5}, TimeControl(base=60.0, increment=1.0)))
    tokens = {name: store.add_bot(name, f"owner of {name}") for name in ("ann", "ben")}
    process, lines = start(
        ["serve", "--database", store.url, "--port", "0", "--web", "127.0.0.1:0", "--log-level", "warning"]
    )
    try:
        yield Served(store, tokens, process, lines)
    finally:
        if process.poll() is None:
            stop(process)
        store.close()


def children(pid: int) -> set[int]:
    """The processes ``pid`` started (every thread's children)."""
    found: set[int] = set()
    with contextlib.suppress(FileNotFoundError):
        for task in os.listdir(f"/proc/{pid}/task"):
            with contextlib.suppress(FileNotFoundError):
                found |= {
                    int(child) for child in Path(f"/proc/{pid}/task/{task}/children").read_text().split()
                }
    return found


def alive(pid: int) -> bool:
    """Running (a zombie, ended and not yet reaped by its new parent, is not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


def cmdline(pid: int) -> str:
    with contextlib.suppress(FileNotFoundError):
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    return ""


def sent(frame: Frame) -> Any:
    """A frame as its event stream sends it (its JSON)."""
    return json.loads(frame.event.partition("data: ")[2])


def test_a_live_match_comes_through_the_pipe_as_an_in_process_hub_shows_it(served: Served) -> None:
    sessions = {
        "ann": served.session("ann", Slow(GreedyFlankBot(1), THINK)),
        "ben": served.session("ben", Slow(RandomBot(2), THINK)),
    }
    reference = LiveHub()
    poller = StorePoller(served.store, reference)  # the in-process hub, fed from the same match
    done = threading.Event()
    with ThreadPoolExecutor(2) as threads:
        playing: Future[Any] = threads.submit(lambda: asyncio.run(play_each(sessions, 1, timeout=110)))
        playing.add_done_callback(lambda _: done.set())
        match_id = wait_for(
            lambda: (
                next((row.match_id for row in served.store.match_rows(status="running")), None)
                or done.is_set()
            ),
            60,
            "the match to start",
        )
        assert isinstance(match_id, str), f"no match started: {playing.result()}"
        poller.feed(poller.look())  # while it runs: its start and its moves so far
        status, frames = stream_frames(served.web, match_id)
        playing.result(90)
    wait_for(lambda: getattr(served.store.match_row(match_id), "status", "") != "running", 30, "its end")
    poller.feed(poller.look())  # its last moves and its end
    plies = len(served.store.moves_of(match_id))
    assert status == 200 and plies >= 5
    assert [frame["ply"] for frame in frames] == list(range(plies + 1))
    assert [frame["over"] for frame in frames] == [False] * plies + [True]
    followed = reference.get(match_id)
    assert followed is not None
    assert frames == [sent(frame) for frame in followed.visible()]


def test_the_bot_page_says_connected_now_while_the_bot_is_connected(served: Served) -> None:
    def connected() -> bool:
        page = httpx.get(f"{served.web}/bots/ann", timeout=10)
        assert page.status_code == 200
        return "connected now" in page.text

    assert not connected()
    session = served.session("ann", RandomBot(1))  # seeks a match no one else seeks: stays connected
    leave = threading.Event()

    async def connect_until_told() -> None:
        running = asyncio.create_task(session.run())
        await asyncio.to_thread(leave.wait)
        running.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await running

    with ThreadPoolExecutor(1) as thread:
        held = thread.submit(asyncio.run, connect_until_told())
        try:
            wait_for(connected, 20, "the bot page to say 'connected now'")
        finally:
            leave.set()
            held.result(20)
    wait_for(lambda: not connected(), 20, "the bot page to stop saying 'connected now'")


def test_a_killed_arbiter_leaves_no_web_process(served: Served) -> None:
    arbiter = served.process.pid
    web = {pid for pid in children(arbiter) if "spawn_main" in cmdline(pid)}
    assert len(web) == 1, f"the pages' process among the arbiter's children: {children(arbiter)}"
    assert httpx.get(f"{served.web}/", timeout=10).status_code == 200
    everyone = children(arbiter)  # the pages' process, and multiprocessing's resource tracker
    served.process.send_signal(signal.SIGKILL)
    served.process.wait(10)
    wait_for(lambda: not any(alive(pid) for pid in everyone), 30, f"the arbiter's children {everyone} to end")
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"{served.web}/", timeout=5)


def test_a_web_port_that_cannot_be_bound_is_one_line_and_a_failure(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        finished = subprocess.run(
            [sys.executable, "-m", "arbiter.cli", "serve", "--database", f"sqlite:///{tmp_path / 'a.db'}",
             "--port", "0", "--bot", "a=secret-a", "--web", f"127.0.0.1:{port}", "--log-level", "warning"],
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
    assert finished.returncode == 1
    assert finished.stderr.splitlines() == [
        f"error: cannot serve the web pages on 127.0.0.1:{port}: Address already in use"
    ]
    assert "web pages on" not in finished.stdout


class Recorded(Relay):
    """A relay that keeps its messages (no pipe, no thread)."""

    def __init__(self) -> None:
        super().__init__()
        self.messages: list[Message] = []

    def put(self, message: Message) -> None:
        self.messages.append(message)


def drain(queue: asyncio.Queue[Update]) -> list[tuple[str, int, bool] | None]:
    updates: list[tuple[str, int, bool] | None] = []
    while not queue.empty():
        match_id, frame = queue.get_nowait()
        updates.append(None if frame is None else (match_id, frame.ply, frame.over))
    return updates


def test_a_mirror_fed_by_a_relay_hub_shows_what_a_live_hub_shows() -> None:
    """Two matches on a ladder held back by 2 moves: one ends by the rules, one is aborted after
    its frames were all shown (its last frame is sent again as the final one)."""
    game = get_game("torrent")
    relay = Recorded()
    relayed, plain = RelayHub(relay, {"slow": 2}), LiveHub({"slow": 2})
    mirror = MirrorHub()
    seen, expected = mirror.subscribe(None), plain.subscribe(None)
    state = game.new_game({"size": 5})
    for hub in (relayed, plain):
        hub.start("held", game, "slow", {1: "a", 2: "b"}, 1.0, state, {"1": 60.0, "2": 60.0})
        hub.start("cut", game, None, {1: "c", 2: "d"}, 2.0, state, {"1": 60.0, "2": 60.0})
    ply = 0
    while game.outcome(state) is None:
        state = game.apply(state, game.legal_actions(state)[-1])
        ply += 1
        for hub in (relayed, plain):
            hub.applied("held", 1 + (ply - 1) % 2, "x", 0.1, {"1": 59.0, "2": 59.0}, None, state)
            if ply <= 3:
                hub.applied("cut", 1 + (ply - 1) % 2, "x", 0.1, {"1": 59.0, "2": 59.0}, None, state)
        if ply == 3:
            for hub in (relayed, plain):
                hub.ended("cut")
    for hub in (relayed, plain):
        hub.ended("held")
    for message in relay.messages:
        mirror.take(message)
    assert drain(seen) == drain(expected)
    for match_id in ("held", "cut"):
        mirrored, shown = mirror.get(match_id), plain.get(match_id)
        assert mirrored is not None and shown is not None
        assert mirrored.ended_at is not None
        assert [f.as_dict() for f in mirrored.visible()] == [f.as_dict() for f in shown.visible()]
        assert (mirrored.game, mirrored.ladder, mirrored.bots) == (shown.game, shown.ladder, shown.bots)
        last: Frame = mirrored.visible()[-1]
        assert last.over


def test_web_in_process_keeps_the_pages_in_the_arbiters_process(tmp_path: Path) -> None:
    process, lines = start(
        ["serve", "--database", f"sqlite:///{tmp_path / 'a.db'}", "--port", "0", "--bot", "a=secret-a",
         "--web", "127.0.0.1:0", "--web-in-process", "--log-level", "warning"]
    )  # fmt: skip
    try:
        address = lines[-1].removeprefix("web pages on ")
        assert "Ladders" in httpx.get(address + "/", timeout=10).text
        assert not [pid for pid in children(process.pid) if "spawn_main" in cmdline(pid)]
    finally:
        stop(process)
    assert process.returncode == 0
