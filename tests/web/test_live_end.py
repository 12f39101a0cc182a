"""The end of a live match (issue 18 item 16): the final frame says ``over``, ``arbiter web``'s
store poller delivers every move before the end, and a match's event stream opened before the
hub has the match waits for it (404 only for a match the store does not know)."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import httpx
from arbiter.ladder.model import BotVersion, Termination
from arbiter.store import MatchResult, MatchStart, MoveRow, SqlStore
from arbiter.web.app import WebServer, create_app
from arbiter.web.live import LiveHub, Update
from arbiter.web.poller import StorePoller
from arbiter_games import get_game
from arbiter_games.policy import MatchPolicy
from arbiter_games.timecontrol import TimeControl

T = TypeVar("T")
GAME = get_game("torrent")
OPTIONS = {"size": 5}


def run_apart(scenario: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run`` in a thread of its own (the browser tests' Playwright holds this one's loop)."""
    with ThreadPoolExecutor(1) as thread:
        return thread.submit(asyncio.run, scenario).result(120)


def drain(queue: asyncio.Queue[Update]) -> list[tuple[int, bool] | None]:
    """The updates waiting in ``queue``: (ply, over) per frame, None for the end."""
    out: list[tuple[int, bool] | None] = []
    while not queue.empty():
        _, frame = queue.get_nowait()
        out.append(None if frame is None else (frame.ply, frame.over))
    return out


def whole_game() -> list[tuple[str, object]]:
    """A Torrent-5 game played to its end by its rules: (action, state after it) per move."""
    state = GAME.new_game(OPTIONS)
    played = []
    while GAME.outcome(state) is None:
        action = GAME.legal_actions(state)[0]
        state = GAME.apply(state, action)
        played.append((GAME.format_action(action), state))
    return played


def test_the_move_that_ends_the_game_is_the_final_frame_and_is_not_sent_twice() -> None:
    hub = LiveHub()
    queue = hub.subscribe("m1")
    hub.start("m1", GAME, None, {1: "a", 2: "b"}, 0.0, GAME.new_game(OPTIONS), {})
    played = whole_game()
    for ply, (action, state) in enumerate(played, 1):
        hub.applied("m1", 1 + (ply - 1) % 2, action, 0.1, {"1": 1.0, "2": 1.0}, None, state)
    hub.ended("m1")
    last = len(played)
    assert drain(queue) == [(ply, ply == last) for ply in range(last + 1)] + [None]


def test_a_match_ended_off_the_rules_sends_its_last_frame_again_as_the_final_one() -> None:
    hub = LiveHub()
    hub.start("m1", GAME, None, {1: "a", 2: "b"}, 0.0, GAME.new_game(OPTIONS), {})
    queue = hub.subscribe("m1")
    for ply, (action, state) in enumerate(whole_game()[:3], 1):
        hub.applied("m1", 1 + (ply - 1) % 2, action, 0.1, {"1": 1.0, "2": 1.0}, None, state)
    hub.ended("m1")  # aborted, a timeout or a forfeit: no move ended the game
    assert drain(queue) == [(1, False), (2, False), (3, False), (3, True), None]
    match = hub.get("m1")
    assert match is not None
    assert [(frame.ply, frame.over) for frame in match.visible()] == [
        (0, False),
        (1, False),
        (2, False),
        (3, True),
    ]


def a_store(folder: Path) -> SqlStore:
    store = SqlStore(f"sqlite:///{folder / 'arbiter.db'}")
    store.upgrade()
    return store


def started(store: SqlStore, match_id: str) -> MatchStart:
    start = MatchStart(
        match_id=match_id,
        game="torrent",
        options=OPTIONS,
        seat_1=BotVersion("ann", "v1"),
        seat_2=BotVersion("ben", "v1"),
        seed=(b"\0" * 32).hex(),
        seed_commitment="",
        control=TimeControl(base=30.0, increment=1.0),
        policy=MatchPolicy(),
        started_at=time.time(),
    )
    store.match_started(start)
    return start


def moves(first: int, count: int) -> list[MoveRow]:
    played = whole_game()
    return [
        MoveRow(ply, 1 + ply % 2, played[ply][0], ply + 1, 0.25, {"1": 29.0 - ply, "2": 30.0 - ply})
        for ply in range(first, first + count)
    ]


def aborted() -> MatchResult:
    return MatchResult(None, {}, "aborted", Termination.ABORTED, time.time(), detail="a test")


def test_the_store_poller_feeds_every_move_before_the_end(tmp_path: Path) -> None:
    store = a_store(tmp_path)
    hub = LiveHub()
    poller = StorePoller(store, hub, interval=60.0)

    async def scenario() -> list[Any]:
        queue = hub.subscribe("m1")  # before the hub has it, as a stream that waited for it
        started(store, "m1")
        store.append_moves("m1", moves(0, 2))
        await poller.poll()
        # Three more moves and the end, all between two polls.
        store.append_moves("m1", moves(2, 3))
        store.finish_match("m1", aborted())
        await poller.poll()
        return drain(queue)

    try:
        updates = run_apart(scenario())
    finally:
        store.close()
    assert updates == [
        (0, False),
        (1, False),
        (2, False),
        (3, False),
        (4, False),
        (5, False),
        (5, True),
        None,
    ]
    match = hub.get("m1")
    assert match is not None
    assert match.frames[0].clocks == {"1": 30.0, "2": 30.0}  # as the arbiter tells them at the start
    assert match.frames[-1].clocks == {"1": 25.0, "2": 26.0}


def frames_of(text: str) -> list[tuple[str, Any]]:
    """(event, data) of each server-sent event in ``text``."""
    events = []
    for block in text.strip().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in block.splitlines() if not line.startswith(":"))
        events.append((lines["event"], json.loads(lines["data"])))
    return events


def test_a_match_stream_waits_for_a_match_the_store_knows_and_404_is_for_unknown_ones(tmp_path: Path) -> None:
    store = a_store(tmp_path)
    hub = LiveHub()
    poller = StorePoller(store, hub, interval=60.0)

    async def scenario() -> dict[str, Any]:
        server = WebServer(create_app(store, hub, live_wait=30.0), "127.0.0.1", 0)
        await server.start()
        try:
            async with httpx.AsyncClient(base_url=server.address, timeout=30) as client:
                unknown = await client.get("/matches/nosuch/events")
                started(store, "m1")  # in the store, not yet in the hub: the poller has not looked
                store.append_moves("m1", moves(0, 1))
                received: list[str] = []

                async def follow() -> int:
                    async with client.stream("GET", "/matches/m1/events") as response:
                        async for line in response.aiter_lines():
                            received.append(line)
                    return response.status_code

                stream = asyncio.create_task(follow())
                await asyncio.sleep(0.5)
                assert not stream.done() and not received  # waiting, not 404
                await poller.poll()
                while sum(line.startswith("event: frame") for line in received) < 2:
                    await asyncio.sleep(0.01)
                store.append_moves("m1", moves(1, 1))
                store.finish_match("m1", aborted())
                await poller.poll()
                answer = (await stream, "\n".join(received))
                started(store, "m2")
                store.finish_match("m2", aborted())  # ended before the hub ever saw it
                ended = await client.get("/matches/m2/events")
                return {"unknown": unknown, "answer": answer, "ended": ended}
        finally:
            await server.stop()

    try:
        got = run_apart(scenario())
    finally:
        store.close()
    assert got["unknown"].status_code == 404
    assert got["answer"][0] == 200
    events = frames_of(got["answer"][1])
    assert [(kind, data.get("ply"), data.get("over")) for kind, data in events] == [
        ("frame", 0, False), ("frame", 1, False), ("frame", 2, False), ("frame", 2, True), ("end", None, None)
    ]  # fmt: skip
    assert got["ended"].status_code == 200
    assert frames_of(got["ended"].text) == [("end", {"match_id": "m2"})]
