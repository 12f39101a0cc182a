"""Many spectators (docs/reliability.md, "Many spectators of one match"): a frame is encoded once
for all its spectators, and the live event streams are capped per address and in all. The caps
over real HTTP, on `arbiter serve --web` (whose pages' process holds the streams)."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from typing import Any

import httpx
from arbiter.web.live import LiveHub
from arbiter_games import get_game

from .test_processes import start, stop


def test_a_frame_is_encoded_once_for_every_spectator(monkeypatch: Any) -> None:
    encoded: list[object] = []
    real_dumps = json.dumps

    def counting(value: object, **kwargs: Any) -> str:
        encoded.append(value)
        return real_dumps(value, **kwargs)

    monkeypatch.setattr(json, "dumps", counting)  # what the hub calls (arbiter.web.live uses json.dumps)
    game = get_game("torrent")
    hub = LiveHub(max_per_address=1000)
    state = game.new_game({"size": 5})
    hub.start("m1", game, None, {1: "a", 2: "b"}, 0.0, state, {})
    queues = [hub.subscribe("m1", "10.0.0.1") for _ in range(200)]
    for ply in range(1, 4):
        state = game.apply(state, game.legal_actions(state)[0])
        hub.applied("m1", 1 + (ply - 1) % 2, "x", 0.1, {"1": 1.0, "2": 1.0}, None, state)
    assert encoded == []  # nothing encoded until a stream asks
    texts = set()
    for queue in queues:
        while not queue.empty():
            _, frame = queue.get_nowait()
            assert frame is not None
            texts.add(id(frame.event))
    assert len(texts) == 3  # one text per frame, the same object for all 200 spectators
    assert len(encoded) == 3
    match = hub.get("m1")
    assert match is not None
    for frame in match.visible():  # the backlog a new spectator gets: the same texts
        assert frame.event.startswith("event: frame\ndata: {")
    assert len(encoded) == 4  # ply 0 to 3, once each, however many spectators


@contextlib.contextmanager
def stream(base: str, path: str, local: str) -> Iterator[httpx.Response]:
    transport = httpx.HTTPTransport(local_address=local)
    client = httpx.Client(base_url=base, transport=transport, timeout=10)
    with client, client.stream("GET", path) as response:
        yield response


def test_live_streams_are_capped_per_address_and_in_all(tmp_path: Any) -> None:
    database = f"sqlite:///{tmp_path / 'a.db'}"
    process, lines = start(
        ["serve", "--database", database, "--port", "0", "--bot", "ann=t0ken", "--web", "127.0.0.1:0",
         "--log-level", "warning", "--web-max-spectators", "3", "--web-max-spectators-per-address", "2"]
    )  # fmt: skip
    try:
        base = lines[-1].removeprefix("web pages on ")
        with contextlib.ExitStack() as open_streams:
            for local in ("127.0.0.1", "127.0.0.1", "127.0.0.2"):
                response = open_streams.enter_context(stream(base, "/live/events", local))
                assert response.status_code == 200
            with stream(base, "/live/events", "127.0.0.1") as third_here:
                assert third_here.status_code == 429  # the address has its two
                assert third_here.headers["retry-after"] == "10"
            with stream(base, "/live/events", "127.0.0.2") as fourth:
                assert fourth.status_code == 503  # the node has its three
                assert "spectator streams are open" in fourth.read().decode()
        # Closed streams free their places.
        with stream(base, "/live/events", "127.0.0.1") as again:
            assert again.status_code == 200
    finally:
        stop(process)
    assert process.returncode == 0
