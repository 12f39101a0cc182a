"""Issue 23's bar: a guest plays a connected ``greedy_flank`` bot over the three JSON play routes of
a real ``arbiter serve --web ... --guests-play``, and the match is stored and replays."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from arbiter_games import IllegalAction, get_game

from tests.conftest import ROOT

ENV = dict(os.environ, PYTHONPATH=f"{ROOT / 'server'}:{ROOT / 'clients' / 'python'}", PYTHONUNBUFFERED="1")
ARBITER = [sys.executable, "-m", "arbiter.cli"]
#: Seconds the waits below allow (a turn of the bot, a bot's connection): generous, never tight.
PATIENCE = 60.0


def arbiter(cwd: Path, *args: str) -> str:
    done = subprocess.run([*ARBITER, *args], env=ENV, cwd=cwd, capture_output=True, text=True)
    assert done.returncode == 0, (args, done.stdout, done.stderr)
    return done.stdout


def wait_for(found: Callable[[], Any], what: str) -> Any:
    deadline = time.monotonic() + PATIENCE
    while time.monotonic() < deadline:
        value = found()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"no {what} within {PATIENCE:g} s")


class Served:
    def __init__(self, web: str, grpc: str, cwd: Path) -> None:
        self.web = web
        self.grpc = grpc
        self.cwd = cwd


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    """A store with a Torrent-5 ladder and a Surge ladder, each with one bot joined (alone on its
    ladder, so its slots are free for guests), served with --web and --guests-play."""
    arbiter(tmp_path, "db", "upgrade")
    arbiter(tmp_path, "ladders", "add", "t5", "--game", "torrent", "--size", "5")
    arbiter(tmp_path, "ladders", "add", "s1", "--game", "surge")
    tokens = {}
    for name in ("gus", "sam"):
        out = arbiter(tmp_path, "bots", "add", name)
        tokens[name] = out.strip().rsplit(" ", 1)[-1]
    command = [
        *ARBITER,
        "serve",
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        "--web",
        "127.0.0.1:0",
        "--guests-play",
    ]
    processes: list[subprocess.Popen[Any]] = []
    serve = subprocess.Popen(
        command, env=ENV, cwd=tmp_path, text=True, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    processes.append(serve)
    try:
        assert serve.stdout is not None
        grpc = web = None
        for line in serve.stdout:
            if line.startswith("listening on "):
                grpc = line.split()[-1]
            found = re.search(r"web pages on (http://\S+)", line)
            if found:
                web = found[1]
                break
        assert grpc is not None and web is not None
        bots = {
            "gus": ("greedy_flank", ["--game", "torrent", "--size", "5", "--ladder", "t5"]),
            "sam": ("random_bot", ["--game", "surge", "--ladder", "s1"]),
        }
        for name, (module, args) in bots.items():
            bot_command = [sys.executable, "-m", f"arbiter_bot.examples.{module}", "--server", grpc, *args]
            processes.append(
                subprocess.Popen(
                    [*bot_command, "--max-concurrent", "2", "--seed", "1"],
                    env=dict(ENV, ARBITER_TOKEN=tokens[name]),
                    cwd=tmp_path,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            )
        yield Served(web, grpc, tmp_path)
    finally:
        for process in reversed(processes):
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in reversed(processes):
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                process.kill()


def start_play(client: httpx.Client, body: dict[str, Any]) -> dict[str, Any]:
    """POST /api/play, again until the bot has connected and joined its ladder."""

    def started() -> dict[str, Any] | None:
        answer = client.post("/api/play", json=body)
        if answer.status_code == 409:  # BOT_NOT_CONNECTED or NO_FREE_SLOT: not joined yet
            return None
        assert answer.status_code == 200, answer.text
        return dict(answer.json())

    return dict(wait_for(started, f"match against {body['bot']}"))


def my_turn(client: httpx.Client, match_id: str, token: str) -> dict[str, Any]:
    """The seat's view once it has a turn to answer or the match is over."""

    def view() -> dict[str, Any] | None:
        answer = client.get(f"/api/play/{match_id}", headers={"X-Play-Token": token})
        assert answer.status_code == 200, answer.text
        seen = dict(answer.json())
        return seen if seen["over"] or seen["turn_id"] is not None else None

    return dict(wait_for(view, "turn"))


def test_a_guest_plays_a_whole_torrent_game_over_json_and_it_is_stored_and_replays(served: Served) -> None:
    with httpx.Client(base_url=served.web, timeout=30) as client:
        assert "/api/play/{match_id}/moves" in client.get("/openapi.json").json()["paths"]
        body = {
            "bot": "gus",
            "game": "torrent",
            "options": {"size": 5},
            "base": 300,
            "increment": 5,
            "seat": 1,
        }
        started = start_play(client, body)
        match_id, token = started["match_id"], started["token"]
        assert started["seat"] == 1 and started["bot"] == "gus" and not started["over"]
        headers = {"X-Play-Token": token}
        view = my_turn(client, match_id, token)
        assert view["observation"]["seat"] == 1 and view["observation"]["size"] == 5

        # An illegal action is refused with the engine's reason, and the turn stays open.
        game = get_game("torrent")
        state = game.new_game(game.normalise_options({"size": 5}), b"\0" * 32)
        with pytest.raises(IllegalAction) as engine:
            game.apply(state, game.parse_action("swap"))
        refused = client.post(f"/api/play/{match_id}/moves", json={"action": "swap"}, headers=headers)
        assert refused.status_code == 400
        assert refused.json() == {"detail": str(engine.value), "reason": "ILLEGAL_ACTION"}
        malformed = client.post(f"/api/play/{match_id}/moves", json={"action": "zz99"}, headers=headers)
        assert malformed.status_code == 400 and malformed.json()["reason"] == "MALFORMED_ACTION"

        # Another guest's token (of a match of their own) neither reads nor moves in this one.
        other = start_play(client, body)
        assert other["match_id"] != match_id
        for wrong in ({"X-Play-Token": other["token"]}, {}):
            assert client.get(f"/api/play/{match_id}", headers=wrong).status_code == 404
            move = client.post(
                f"/api/play/{match_id}/moves", json={"action": view["legal"][0]}, headers=wrong
            )
            assert move.status_code == 404
        assert my_turn(client, match_id, token)["turn_id"] == view["turn_id"]  # nothing was played

        # The whole game: the first legal placement each turn (a pass only when nothing else is legal).
        moves = 0
        while True:
            view = my_turn(client, match_id, token)
            if view["over"]:
                break
            assert set(view["clocks"]) == {"1", "2"} and view["to_move"] == 1
            choice = next((a for a in view["legal"] if a not in ("pass", "swap")), "pass")
            answer = client.post(
                f"/api/play/{match_id}/moves",
                json={"action": choice, "turn_id": view["turn_id"]},
                headers=headers,
            )
            assert answer.status_code == 200, answer.text
            moves += 1
        result = view["result"]
        assert result is not None
        assert result["reason"] not in ("timeout", "aborted", "illegal_action", "malformed_action"), result
        assert moves > 3
        late = client.post(f"/api/play/{match_id}/moves", json={"action": "pass"}, headers=headers)
        assert late.status_code == 409

    # Stored (its result is committed before the seats hear of it), listed, exported, replayed.
    listed = wait_for(lambda: match_id in arbiter(served.cwd, "matches", "list"), "listed match")
    assert listed
    out = served.cwd / "records"
    arbiter(served.cwd, "matches", "export", match_id, "--out", str(out))
    (path,) = out.glob(f"*{match_id}.json")  # named game-id.json
    record = json.loads(path.read_text())
    assert record["seats"]["2"] == "gus" and record["seats"]["1"].startswith("_guest-")
    assert record["result"]["reason"] == result["reason"]
    replayed = subprocess.run([*ARBITER, "replay", str(path)], env=ENV, capture_output=True, text=True)
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr


def test_a_guests_surge_view_never_holds_the_bots_face_down_values(served: Served) -> None:
    with httpx.Client(base_url=served.web, timeout=30) as client:
        body = {"bot": "sam", "game": "surge", "base": 300, "increment": 5, "seat": 2}
        started = start_play(client, body)
        match_id, token = started["match_id"], started["token"]
        headers = {"X-Play-Token": token}
        hidden_seen = 0
        for _ in range(12):
            view = my_turn(client, match_id, token)
            if view["over"]:
                break
            observation = view["observation"]
            mine = observation["colour"]
            theirs = [entry for entry in observation["face_down"] if entry[1] != mine]
            assert all(entry[2] is None for entry in theirs), observation
            hidden_seen += len(theirs)
            answer = client.post(
                f"/api/play/{match_id}/moves", json={"action": view["legal"][0]}, headers=headers
            )
            assert answer.status_code == 200, answer.text
        # Seat 2 places second in the first round: it has seen the bot's face-down stones.
        assert hidden_seen > 0
