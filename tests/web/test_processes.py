"""``arbiter serve --web`` and ``arbiter web`` (a separate process that only reads the store)."""

from __future__ import annotations

import signal
import subprocess
import sys
from collections.abc import Iterator
from typing import Any, cast

import httpx
import pytest
from arbiter.web.live import LiveHub
from arbiter_games import get_game

from .conftest import Site, wait_for
from .test_live import running  # noqa: F401 - the fixture


def start(command: list[str]) -> tuple[subprocess.Popen[str], list[str]]:
    process = subprocess.Popen(
        [sys.executable, "-m", "arbiter.cli", *command],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert process.stdout is not None
    lines: list[str] = []
    while not any(line.startswith("web pages on ") for line in lines):
        line = process.stdout.readline()
        if not line:
            process.wait(5)
            raise AssertionError(f"the process ended ({process.returncode}) after {lines}")
        lines.append(line.strip())
    return process, lines


def stop(process: subprocess.Popen[str]) -> None:
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(15)
    except subprocess.TimeoutExpired:
        process.kill()
        raise


@pytest.fixture
def web_process(site: Site) -> Iterator[str]:
    process, lines = start(["web", "--database", site.store.url, "--port", "0", "--poll", "0.1"])
    yield lines[-1].removeprefix("web pages on ")
    stop(process)


def test_arbiter_web_serves_the_store_and_follows_live_matches_by_polling(
    site: Site,
    web_process: str,
    running: str,  # noqa: F811 - the fixture
) -> None:
    with httpx.Client(base_url=web_process, timeout=20) as client:
        assert client.get("/api/ladders/t5").json() == httpx.get(f"{site.url}/api/ladders/t5").json()
        assert "t5" in client.get("/").text

        def live_frame() -> Any:
            found = [m for m in client.get("/api/live").json() if m["match_id"] == running]
            return found and found[0]["frame"] and found[0]

        seen = wait_for(live_frame, 20, "the polled live match")
        frame = seen["frame"]
        assert seen["bots"] == {"1": "uma", "2": "vic"} or seen["bots"] == {"1": "vic", "2": "uma"}
        assert frame["action"] is None  # Surge: an action's text tells a face-down value
        page = client.get(f"/matches/{running}").text
        assert 'id="live-status"' in page or 'id="controls"' in page
    # The polled frame is the engine's public view (replayed from the store's moves).
    record = wait_for(lambda: site.store.match_record(running), 30, "the record")
    import dataclasses
    import json

    from arbiter.match.replay import replay

    state = replay(record).states[frame["ply"]]
    assert frame["view"] == json.loads(
        json.dumps(dataclasses.asdict(cast(Any, get_game("surge").public_view(state))))
    )


def test_serve_with_web_prints_both_addresses_and_serves_the_pages(tmp_path: Any) -> None:
    database = f"sqlite:///{tmp_path / 'a.db'}"
    process, lines = start(
        ["serve", "--database", database, "--port", "0", "--web", "127.0.0.1:0", "--bot", "a=secret-a",
         "--records", str(tmp_path / "records"), "--log-level", "warning"]
    )  # fmt: skip
    try:
        assert lines[0].startswith("listening on 127.0.0.1:")
        address = lines[-1].removeprefix("web pages on ")
        assert "Ladders" in httpx.get(address + "/", timeout=10).text
        assert httpx.get(address + "/api/live", timeout=10).json() == []
    finally:
        stop(process)
    assert process.returncode == 0


def test_a_ladder_delay_holds_the_live_view_back_until_the_end() -> None:
    game = get_game("torrent")
    hub = LiveHub({"slow": 2})
    state = game.new_game({"size": 5})
    hub.start("m1", game, "slow", {1: "a", 2: "b"}, 0.0, state, {})
    hub.start("m2", game, "other", {1: "a", 2: "b"}, 0.0, state, {})
    queue = hub.subscribe("m1")
    for ply in range(1, 6):
        state = game.apply(state, game.legal_actions(state)[0])
        for match_id in ("m1", "m2"):
            hub.applied(match_id, 1 + (ply - 1) % 2, "x", 0.1, {"1": 1.0, "2": 1.0}, None, state)
    slow, other = hub.get("m1"), hub.get("m2")
    assert slow is not None and other is not None
    assert [frame.ply for frame in slow.visible()] == [0, 1, 2, 3]  # 5 played, 2 held back
    assert [frame.ply for frame in other.visible()] == [0, 1, 2, 3, 4, 5]
    assert [queue.get_nowait()[1].ply for _ in range(queue.qsize())] == [1, 2, 3]
    hub.ended("m1")
    assert [frame.ply for frame in slow.visible()] == [0, 1, 2, 3, 4, 5]
    updates = [queue.get_nowait()[1] for _ in range(queue.qsize())]
    assert [(u.ply, u.over) if u is not None else None for u in updates] == [(4, False), (5, True), None]
