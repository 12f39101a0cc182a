"""The TypeScript SDK on a real cluster: a throwaway PostgreSQL, two ``arbiter serve --advertise``
nodes, and a JavaScript bot (clients/js/test/cluster_bot.ts, run with ``node``) connecting to the
node that does not host its ladder. It is sent on by the node's Redirect, plays there with the
join token, and when its connection breaks in the middle of a match it reconnects to the wrong
node again, which sends it to the match's node, where the match goes on to its end.

The JavaScript is the SDK's build (``npm run build`` in clients/js, which ``deploy/dev test`` runs
before pytest); the test fails with what to do when ``node`` or the build is missing.
"""

from __future__ import annotations

import asyncio
import base64
import json
import shutil
from pathlib import Path
from typing import Any, BinaryIO

import pytest
from arbiter.ladder.model import LadderConfig
from arbiter.store import SqlStore
from arbiter_bot.client import Backoff, run_bot
from arbiter_bot.examples.random_bot import RandomBot
from arbiter_games.timecontrol import TimeControl
from arbiter_wire.v1 import bot_service_pb2 as pb
from sqlalchemy import text

from tests.cluster.checks import log_events, most_at_once
from tests.cluster.harness import epochs, nodes, owners, wait_until

JS = Path(__file__).resolve().parents[2] / "clients" / "js"
DRIVER = JS / "dist" / "test" / "cluster_bot.js"
SPEC = ("torrent", {"size": 5})
NO_NODE = "this test runs the TypeScript SDK: install Node.js 18+ (apt-get install nodejs)"
HOLD_AT = 3  # the JavaScript bot's decision of its second match at which its connection drops


def node_program() -> str:
    found = shutil.which("node")
    if found is None:
        pytest.fail(NO_NODE, pytrace=False)
    return found


def built_driver() -> Path:
    """The compiled bot, no older than any TypeScript source of the SDK or its tests."""
    sources = [*JS.glob("src/**/*.ts"), *JS.glob("test/**/*.ts")]
    if not DRIVER.exists() or any(p.stat().st_mtime > DRIVER.stat().st_mtime for p in sources):
        pytest.fail(
            "the TypeScript SDK's build is missing or stale: cd clients/js && npm ci && npm run build",
            pytrace=False,
        )
    return DRIVER


def ladder_epoch(store: SqlStore) -> int | None:
    with store.transaction() as session:
        return session.scalar(text("SELECT epoch FROM ladder_hosts WHERE ladder = 't5'"))


def moves_logged(store: SqlStore, match_id: str) -> int:
    return len(store.moves_of(match_id))


def join_token(epoch: int, bot: str) -> str:
    """The start of a join token for ``bot`` on the node of ``epoch``, as the driver records it."""
    name = base64.urlsafe_b64encode(bot.encode()).decode().rstrip("=")
    return f"jt1.{epoch}.*.{name}"


def same_token(recorded: str, expected: str) -> bool:
    """``expected`` with ``*`` for the expiry (which the test cannot know)."""
    got, want = recorded.split("."), expected.split(".")
    return len(got) == len(want) and all(w in ("*", g) for g, w in zip(got, want, strict=True))


async def drive(program: str, address: str, token: str, log: BinaryIO, store: SqlStore) -> dict[str, Any]:
    """Run the JavaScript bot for two matches (its log to ``log``); drop its connection in the
    second once the match's row is written (the bot holds its move until then, so the match
    cannot end first)."""
    bot = await asyncio.create_subprocess_exec(
        program, str(built_driver()), address, token, "t5", "2", str(HOLD_AT),
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=log,
    )  # fmt: skip
    try:
        said = await follow(bot, store)
        said["status"] = await bot.wait()
    finally:
        if bot.returncode is None:
            bot.kill()
            await bot.wait()
    return said


async def follow(bot: asyncio.subprocess.Process, store: SqlStore) -> dict[str, Any]:
    """What the bot says on standard output, until it exits; answers its "holding"."""
    assert bot.stdin is not None and bot.stdout is not None
    said: dict[str, Any] = {"ended": []}
    async for line in bot.stdout:
        event = json.loads(line)
        if event["event"] == "holding":
            said["held"] = str(event["match_id"])
            await wait_until(lambda: said["held"] in owners(store), 60, "the held match's row")
            said["moves_at_drop"] = moves_logged(store, said["held"])
            bot.stdin.write(b"drop\n")
            await bot.stdin.drain()
        elif event["event"] == "ended":
            said["ended"].append(event)
        else:
            said[event["event"]] = event
    return said


def test_a_js_bot_plays_through_the_redirect_and_is_sent_back_after_a_drop(postgres_cluster, tmp_path):
    program = node_program()
    built_driver()
    url = postgres_cluster.new_database("redirect_js")
    store = SqlStore(url)
    store.upgrade()
    tokens = {name: store.add_bot(name, f"owner of {name}") for name in ("ann", "jess")}
    store.add_ladder(LadderConfig("t5", "torrent", {"size": 5}, TimeControl(base=60.0, increment=1.0)))
    js_log = tmp_path / "jess.log"
    with nodes(url, tmp_path, 2) as (one, two), js_log.open("wb") as js_err:

        async def scenario() -> dict[str, Any]:
            backoff = Backoff(initial=0.1, maximum=0.5)
            ann = asyncio.create_task(
                run_bot(RandomBot(1), one.address, tokens["ann"], SPEC, games=2, ladder="t5", backoff=backoff)
            )
            await wait_until(lambda: ladder_epoch(store) is not None, 60, "ann's join to claim the ladder")
            said = await asyncio.wait_for(drive(program, two.address, tokens["jess"], js_err, store), 240)
            js_err.flush()
            assert said["status"] == 0, js_log.read_text()[-3000:]
            try:
                await asyncio.wait_for(ann, 60)
            except TimeoutError:
                ends = one.text()[-4000:]
                said_text = f"ann did not finish its 2 games; jess said {said}; node one:\n{ends}"
                raise AssertionError(said_text) from None
            return said

        said = asyncio.run(scenario())
        first = epochs(store)[one.address]
        assert ladder_epoch(store) == first  # (at the end the nodes drain and free the ladder)
        logs = (one.text(), two.text())
    journal = [json.loads(line) for line in js_log.read_text().splitlines() if line.startswith("{")]
    assert said["status"] == 0, js_log.read_text()[-3000:]
    # Both matches were hosted and written by the ladder's node, and finished with a result.
    played = said["done"]["matches"]
    assert len(played) == 2 and set(owners(store)) == set(played)
    assert set(owners(store).values()) == {first}
    for ended in said["ended"]:
        assert ended["outcome"] in ("win", "loss", "draw") and ended["opponent"] == "ann", ended
        row = store.match_row(ended["match_id"])
        assert row is not None and row.status == "finished" and row.rated
    assert set(most_at_once(store).values()) == {1}  # one match at a time, as both bots asked
    # The wrong node sent jess on twice: for the ladder at first (answering its JoinLadder), for
    # its match after the drop (at connect time, instead of a Welcome). Only the first is in the
    # node's log: the servicer sends the connect-time Redirect without a log line.
    sent = [e for e in log_events([logs[1]], "bot_redirected") if e["bot"] == "jess"]
    assert [(e["why"], e["to"]) for e in sent] == [("ladder", one.address)]
    assert not [e for e in log_events([logs[0]], "bot_redirected") if e["bot"] == "jess"]
    redirected = [(e["to"], e["reason"]) for e in journal if e["event"] == "redirected"]
    assert redirected == [(one.address, pb.REDIRECT_REASON_LADDER), (one.address, pb.REDIRECT_REASON_MATCHES)]
    # Four calls: the wrong node with its own token, the right one with a join token made for it
    # (jt1.<the right node's epoch>...), and again after the drop.
    calls = said["done"]["authorizations"]
    assert len(calls) == 4 and calls[0] == calls[2] == "own", calls
    assert all(same_token(calls[i], join_token(first, "jess")) for i in (1, 3)), calls
    # The held match went on after the reconnect: resumed on the right node, and finished there.
    held = said.get("held")
    assert held == played[1]
    opened = [e for e in log_events([logs[0]], "session_opened") if e["bot"] == "jess"]
    assert [e["resumed"] for e in opened] == [0, 1]
    stats = said["done"]["stats"]
    assert stats["connections"] == 4 and stats["reconnects"] == 1 and stats["resumedMatches"] >= 1, stats
    assert moves_logged(store, held) > said["moves_at_drop"]
    store.close()
