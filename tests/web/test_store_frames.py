"""``arbiter web`` (a separate process that only reads the store) sends the same frames as
``arbiter serve --web`` (issue 18 item 16), over real HTTP: a real ``arbiter serve`` with its
pages plays a match between real SDK bots, and a real ``arbiter web`` follows it from the store.
A stream opened as soon as the store has the match is answered 200 (the poller has not seen it
yet), every ply's frame arrives in order, the last says ``over``, then ``end``."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
from arbiter.ladder.model import LadderConfig
from arbiter.store import SqlStore
from arbiter_bot.client import Session
from arbiter_bot.examples.greedy_flank import GreedyFlankBot
from arbiter_bot.examples.random_bot import RandomBot
from arbiter_games.timecontrol import TimeControl

from tests.ladder_games import play_each

from .conftest import Slow, wait_for
from .test_processes import start, stop

#: Seconds between ``arbiter web``'s looks at the store: long, so that a stream opened when the
#: match appears in the store comes before the poller has seen it.
POLL = 2.0
#: Seconds each bot thinks per move: the match runs over several polls.
THINK = 0.1


def stream_frames(base: str, match_id: str) -> tuple[int, list[dict[str, Any]]]:
    """The status of a match's event stream and its frames, until ``end``."""
    frames: list[dict[str, Any]] = []
    with (
        httpx.Client(base_url=base, timeout=60) as client,
        client.stream("GET", f"/matches/{match_id}/events") as response,
    ):
        if response.status_code != 200:
            return response.status_code, frames
        kind = ""
        for line in response.iter_lines():
            if line.startswith("event: "):
                kind = line.removeprefix("event: ")
                if kind == "end":
                    break
            elif line.startswith("data: ") and kind == "frame":
                frames.append(json.loads(line.removeprefix("data: ")))
    return response.status_code, frames


@pytest.fixture
def processes(tmp_path: Path) -> Iterator[tuple[SqlStore, dict[str, str], str, str, str]]:
    """A store with a ladder and two bots, ``arbiter serve --web`` and ``arbiter web`` on it:
    (store, tokens, gRPC address, serve's pages, web's pages)."""
    store = SqlStore(f"sqlite:///{tmp_path / 'arbiter.db'}")
    store.upgrade()
    store.add_ladder(LadderConfig("t5", "torrent", {"size": 5}, TimeControl(base=60.0, increment=1.0)))
    tokens = {name: store.add_bot(name, f"owner of {name}") for name in ("ann", "ben")}
    serve, serve_lines = start(
        ["serve", "--database", store.url, "--port", "0", "--web", "127.0.0.1:0", "--log-level", "warning"]
    )
    try:
        web, web_lines = start(["web", "--database", store.url, "--port", "0", "--poll", str(POLL)])
        try:
            grpc = serve_lines[0].removeprefix("listening on ").split()[0]
            yield (
                store,
                tokens,
                grpc,
                serve_lines[-1].removeprefix("web pages on "),
                web_lines[-1].removeprefix("web pages on "),
            )
        finally:
            stop(web)
    finally:
        stop(serve)
        store.close()


def test_arbiter_web_sends_every_frame_of_a_match_as_serve_web_does(
    processes: tuple[SqlStore, dict[str, str], str, str, str],
) -> None:
    store, tokens, grpc, served, polled = processes
    bots = {"ann": Slow(GreedyFlankBot(1), THINK), "ben": Slow(RandomBot(2), THINK)}
    sessions = {
        name: Session(bot, grpc, tokens[name], ("torrent", {"size": 5}), None, ladder="t5", version="v1")
        for name, bot in bots.items()
    }
    done = threading.Event()
    with ThreadPoolExecutor(3) as threads:
        playing: Future[Any] = threads.submit(lambda: asyncio.run(play_each(sessions, 1, timeout=110)))
        playing.add_done_callback(lambda _: done.set())
        match_id = wait_for(
            lambda: next((row.match_id for row in store.match_rows(status="running")), None) or done.is_set(),
            60,
            "the match to start",
        )
        assert isinstance(match_id, str), f"no match started: {playing.result()}"
        from_web = threads.submit(stream_frames, polled, match_id)  # right away: the poller has not looked
        from_serve = threads.submit(stream_frames, served, match_id)
        web_status, web_frames = from_web.result(90)
        serve_status, serve_frames = from_serve.result(90)
        playing.result(90)
    assert (web_status, serve_status) == (200, 200)
    plies = len(store.moves_of(match_id))
    assert plies >= 5
    assert [frame["ply"] for frame in web_frames] == list(range(plies + 1))
    assert [frame["over"] for frame in web_frames] == [False] * plies + [True]
    assert web_frames == serve_frames
