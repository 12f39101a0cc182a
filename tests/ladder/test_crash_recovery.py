"""``kill -9`` of a real ``arbiter serve`` during a ladder, then a restart on the same store.

Every result finished before the kill is there afterwards, unchanged; every match in flight is
resumed from its move log (when both bots come back) or aborted unrated; and the live ratings
equal a recompute from the stored results.
"""

from __future__ import annotations

import asyncio
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from arbiter.ladder.model import LadderConfig
from arbiter.ladder.ratings import recompute
from arbiter.store import SqlStore
from arbiter_bot.client import Backoff, Session
from arbiter_bot.examples.greedy_flank import GreedyFlankBot
from arbiter_bot.examples.random_bot import RandomBot
from arbiter_games.timecontrol import TimeControl

from tests.ladder_games import play_each

BOTS = ("ann", "ben", "cat", "dan")
GAMES_EACH = 8


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_server(url: str, port: int, log: Path) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "arbiter.cli", "serve", "--database", url, "--port", str(port)]
    command += ["--records", str(log.parent / "records"), "--log-level", "info"]
    with open(log, "ab") as out:
        return subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)


async def wait_until(condition, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.05)


def in_the_middle(store: SqlStore) -> bool:
    running = [row.match_id for row in store.matches("t5", limit=10_000) if row.status == "running"]
    return any(len(store.moves_of(match_id)) >= 8 for match_id in running)


def finished(store: SqlStore) -> dict[str, tuple]:
    return {
        row.match_id: (row.status, row.seat_1, row.seat_2)
        for row in store.matches("t5", limit=10_000)
        if row.status != "running"
    }


def test_kill_9_during_a_ladder_loses_no_finished_result(store_url, tmp_path):
    store = SqlStore(store_url)
    store.upgrade()
    tokens = {name: store.add_bot(name, f"owner of {name}") for name in BOTS}
    # Slow enough that matches are in flight when the arbiter dies.
    store.add_ladder(LadderConfig("t5", "torrent", {"size": 5}, TimeControl(base=60.0, increment=1.0)))
    port = free_port()
    address = f"127.0.0.1:{port}"
    log = tmp_path / "serve.log"
    server = start_server(store_url, port, log)

    class Slow(RandomBot):
        def choose(self, observation, legal, context):
            time.sleep(0.01)
            return super().choose(observation, legal, context)

    async def scenario():
        backoff = Backoff(initial=0.1, maximum=0.5)
        sessions = {
            name: Session(
                (GreedyFlankBot(i) if i % 2 else Slow(i)),
                address,
                tokens[name],
                ("torrent", {"size": 5}),
                ladder="t5",
                version="v1",
                backoff=backoff,
                connect_timeout=120,  # the server may still be starting (no wait for it to listen)
            )
            for i, name in enumerate(BOTS)
        }
        # Each plays GAMES_EACH or more: nobody leaves before all have theirs (no odd bot out).
        playing = asyncio.create_task(play_each(sessions, GAMES_EACH, timeout=240))
        nonlocal server
        await wait_until(lambda: len(finished(store)) >= 4, 60, "4 finished matches")
        # Kill it in the middle of a match: one whose moves the store already holds.
        await wait_until(lambda: in_the_middle(store), 60, "a running match with logged moves")
        server.send_signal(signal.SIGKILL)
        server.wait(10)
        before = finished(store)
        in_flight = {row.match_id for row in store.matches("t5", limit=10_000) if row.status == "running"}
        server = start_server(store_url, port, log)
        summaries = list((await asyncio.wait_for(playing, 150)).values())
        return before, in_flight, summaries

    try:
        before, in_flight, summaries = asyncio.run(scenario())
    finally:
        if server.poll() is None:
            server.send_signal(signal.SIGTERM)
            try:
                server.wait(20)
            except subprocess.TimeoutExpired:
                server.kill()
    after = finished(store)
    # Nothing finished before the kill was lost or changed.
    assert {match_id: after.get(match_id) for match_id in before} == before
    # Every match in flight at the kill was resumed to its end or aborted; none is still running.
    assert all(after.get(match_id, ("running",))[0] in ("finished", "aborted") for match_id in in_flight)
    assert all(row.status != "running" for row in store.matches("t5", limit=10_000))
    # Ratings after the restart equal a recompute from the stored results.
    live = {row.version: row.tally for row in store.ratings("t5")}
    assert recompute(store.finished_results("t5")) == live
    assert sum(len(s) for s in summaries) >= len(BOTS) * GAMES_EACH
    assert in_flight, "the kill should have caught matches in flight"
    # The bots came back at once, so every match in flight was resumed from its move log and
    # played to its end (an abort would have been unrated: see test_ladder_play).
    assert {after[match_id][0] for match_id in in_flight} == {"finished"}
    assert "match_restored" in log.read_text(errors="replace")
    store.close()
