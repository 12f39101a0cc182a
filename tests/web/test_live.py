"""Live spectating: the page of a running match follows it, and shows nothing hidden."""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterator
from concurrent.futures import Future
from typing import Any, cast

import httpx
import pytest
from arbiter.match.replay import replay
from arbiter_bot.examples.surge_tips import SurgeTipsBot
from arbiter_games import get_game

from .conftest import SLOW_BOTS, Site, Slow, screenshot, until, wait_for


@pytest.fixture
def running(site: Site) -> Iterator[str]:
    """A Surge match between slow bots on the ladder slow-surge, started now; its id."""
    before = set(site.hub.matches)
    bots = {name: Slow(SurgeTipsBot(i), 0.06) for i, name in enumerate(SLOW_BOTS)}
    playing: Future[Any] = site.submit(site.play("slow-surge", "surge", bots, 1))  # type: ignore[arg-type]
    match_id = wait_for(
        lambda: next((m for m in site.hub.matches if m not in before), None), 30, "the slow match to start"
    )
    yield match_id
    playing.result(120)


def test_the_live_page_of_a_running_match_updates_without_reloading(
    site: Site, page: Any, running: str
) -> None:
    page.goto(f"{site.url}/matches/{running}")
    page.evaluate("window.notReloaded = true")
    first = int(page.locator("#board").get_attribute("data-step"))
    until(page, f"Number(document.getElementById('board').dataset.step) >= {first + 3}", timeout=20)
    assert page.evaluate("window.notReloaded") is True
    assert page.locator("#moves tbody tr").count() >= 3
    screenshot(page, "live-match")
    live = page.context.new_page()
    live.goto(f"{site.url}/live")
    card = live.locator(f'section.live-match[data-match="{running}"]')
    before = card.locator(".ply").inner_text()
    selector = f'section.live-match[data-match="{running}"] .ply'
    until(
        live,
        "([selector, before]) => document.querySelector(selector).textContent !== before",
        arg=[selector, before],
    )
    screenshot(live, "live")
    # When the match ends, its page turns into the replay.
    page.wait_for_selector("#controls", timeout=60_000)


FACE_DOWN = re.compile(r'<g class="stone face-down"([^>]*)>(.*?)</g>', re.S)


def check_frame_svg(svg: str, hidden: dict[str, int]) -> None:
    """No face-down stone of ``svg`` shows a value; ``hidden`` are the engine's face-down values."""
    for attributes, body in FACE_DOWN.findall(svg):
        assert "data-value" not in attributes
        assert re.sub(r"<[^>]+>", "", body) == "?"
    for square, value in hidden.items():
        match = re.search(rf'data-square="{square}"[^>]*>(.*?)</g>', svg, re.S)
        assert match is not None, f"the face-down stone on {square} is not drawn"
        assert f">{value}<" not in match.group(1)


def hidden_values(state: object) -> dict[str, int]:
    game = get_game("surge")
    return {sq: v for seat in (1, 2) for sq, _, v in game.observe(state, seat).face_down if v is not None}  # type: ignore[attr-defined]


def test_a_live_surge_match_never_shows_a_face_down_value_before_its_reveal(site: Site, running: str) -> None:
    frames: list[dict[str, Any]] = []
    pages: list[tuple[int, str]] = []
    api: list[dict[str, Any]] = []
    api_live: list[dict[str, Any]] = []
    with (
        httpx.Client(base_url=site.url, timeout=60) as client,
        client.stream("GET", f"/matches/{running}/events") as stream,
    ):
        kind = ""
        for line in stream.iter_lines():
            if line.startswith("event: "):
                kind = line[len("event: ") :]
            elif line.startswith("data: ") and kind == "frame":
                frames.append(json.loads(line[len("data: ") :]))
                if len(frames) % 7 == 2:  # the page too, now and then, while the match runs
                    html = client.get(f"/matches/{running}").text
                    if 'id="live-status"' in html:
                        step = int(re.search(r'<div id="board" data-step="(\d+)"', html).group(1))
                        pages.append((step, html))
                    answer = client.get(f"/api/matches/{running}").json()
                    if answer["live"]:
                        api.append(answer)
                        record_answer = client.get(f"/api/matches/{running}/record")
                        # 404 while it runs (unless it ended between the two questions).
                        row = site.store.match_row(running)
                        assert record_answer.status_code == 404 or (row and row.status != "running")
                    api_live.extend(m for m in client.get("/api/live").json() if m["match_id"] == running)
            elif kind == "end":
                break
    record = wait_for(lambda: site.store.match_record(running), 20, "the record")
    states = replay(record).states
    game = get_game("surge")
    assert [frame["ply"] for frame in frames] == list(range(len(states)))
    hidden_seen = 0
    for frame in frames[:-1]:  # the last frame is the final position (the match is over)
        state = states[frame["ply"]]
        assert frame["view"] == json.loads(json.dumps(dataclasses.asdict(cast(Any, game.public_view(state)))))
        assert set(frame) == {
            "match_id",
            "ply",
            "seat",
            "action",
            "charged",
            "clocks",
            "auto",
            "view",
            "status",
            "revealed",
            "svg",
            "over",
        }
        hidden = hidden_values(state)
        # A move told by this frame (Surge: once its round's stones are face up) names no stone
        # that is still face-down, and says what the record says.
        for ply, text in frame["revealed"].items():
            assert text == record["actions"][int(ply) - 1]["action"]
            assert "@" not in text or text.split("@")[1] not in hidden
        hidden_seen += len(hidden)
        check_frame_svg(frame["svg"], hidden)
        # The action's text would tell the value (7@c2): it is not sent while the match runs.
        assert frame["action"] is None
        text = json.dumps(frame)
        assert not [f"{v}@{sq}" for sq, v in hidden.items() if f"{v}@{sq}" in text]
        assert "hand" not in frame["view"] and "supply" not in frame["view"]
    assert hidden_seen > 0, "the match never had a face-down stone: the check proved nothing"
    assert pages, "the live page was never fetched while the match ran"
    for step, html in pages:
        board = html.split('<div id="board"', 1)[1].split("</svg>", 1)[0]
        check_frame_svg(board, hidden_values(states[step]))
        # A face-down stone's text appears only as told moves of earlier rounds that were the
        # same value on the same square (told once their round was face up), never for itself.
        played = [entry["action"] for entry in record["actions"][:step]]
        for sq, v in hidden_values(states[step]).items():
            text = f"{v}@{sq}"
            assert html.count(f">{text}<") <= played.count(text) - 1, text
        # The page lists the moves played so far, and no later one.
        assert f'data-ply="{step + 1}"' not in html
    # The API, while the match runs: public views only, no action's text.
    assert api and api_live, "the API was never asked while the match ran"
    api_frames = [frame for answer in api for frame in answer["frames"]]
    api_frames += [match["frame"] for match in api_live if match["frame"] is not None]
    for frame in api_frames:
        state = states[frame["ply"]]
        assert frame["view"] == json.loads(json.dumps(dataclasses.asdict(cast(Any, game.public_view(state)))))
        assert frame["action"] is None
    for answer in api:
        # A move reads "(hidden)" until its round's stones are face up, then what it was.
        shown_up_to = max(frame["ply"] for frame in answer["frames"])
        still_hidden = hidden_values(states[shown_up_to])
        texts = [entry["action"] for entry in record["actions"]]
        for move in answer["moves"]:
            if move["action"] != "(hidden)":
                assert move["action"] == texts[move["ply"] - 1]
        # The move that put each still face-down stone (the last placement on its square) is hidden.
        by_ply = {move["ply"]: move["action"] for move in answer["moves"]}
        for square in still_hidden:
            placed = max(p for p in range(1, shown_up_to + 1) if texts[p - 1].endswith(f"@{square}"))
            assert by_ply.get(placed, "(hidden)") == "(hidden)", (placed, square)
        assert answer["record_url"] is None
