"""Failures on a ladder (issue 20, properties 4 and 5): a run of failures survives a reconnect,
and a bot that is gone when its clock runs out has failed with termination ``disconnected``.

On an in-process arbiter (tests/ladder/inprocess.py): a turn times out because the test moves
the clock past its cap, so each match fails exactly when the test says.
"""

from __future__ import annotations

import asyncio

import pytest
from arbiter.ladder import host as ladder_host
from arbiter.ladder.model import Termination
from arbiter.ladder.standings import standings
from arbiter.match.events import MatchEnded
from arbiter.web.app import create_app
from fastapi.testclient import TestClient

from .inprocess import CAPPED, Bot, Node, in_process

LADDER = CAPPED.name


async def fail_one(
    node: Node, sleepy: Bot | None, steady: Bot, away: Bot | None = None, settle: bool = True
) -> MatchEnded:
    """Play the running match: ``steady`` answers its turns, the sleepy one none, until its turn
    times out. ``away``: the sleepy bot, to disconnect once its turn is pending. ``settle``:
    wait for the result's commit (not while commits are held)."""
    (match,) = node.running()
    ended = len(node.watch.ended)
    for _ in range(10):
        steady.answer_turns()
        if sleepy is not None:
            sleepy.read()
        if away is not None and match.pending is not None and match.bots[match.pending.seat] == away.name:
            away.disconnect()
            away = None
        await node.expire(settle=settle)
        if len(node.watch.ended) > ended:
            event = node.watch.ended[-1]
            assert event.facts.match_id == match.id and event.end.reason == "timeout"
            return event
    raise AssertionError("the match did not time out")


def failures(node: Node, bot: str) -> int:
    return node.store.failures_in_a_row(LADDER, bot)


@pytest.mark.parametrize("commit", ["committed", "held"])
def test_a_run_of_failures_survives_a_reconnect(store_url, commit):
    """Property 4: k failures, a disconnect, a rejoin, limit - k more: paused (not one before).
    ``held``: the bot is back and joined while the k-th failure's result is still being
    committed (a slow or absent database); the host counted it already, the store not yet."""
    limit = ladder_host.FAILURE_LIMIT
    k = 2

    async def scenario() -> None:
        async with in_process(store_url, ["sleepy", "steady"]) as node:
            sleepy, steady = node.connect("sleepy"), node.connect("steady")
            sleepy.join(LADDER)
            steady.join(LADDER)
            await node.settle()
            for _ in range(k - 1):
                await fail_one(node, sleepy, steady)
            # The k-th: the sleepy bot's connection drops while its turn is pending (a failure too).
            with node.commits_held() as release:
                if commit == "committed":
                    release.set()
                await fail_one(node, None, steady, away=sleepy, settle=commit == "committed")
                assert node.running() == []
                sleepy = node.connect("sleepy")
                sleepy.join(LADDER)
            await node.settle()
            assert failures(node, "sleepy") == k
            for _ in range(limit - k - 1):
                await fail_one(node, sleepy, steady)
            assert failures(node, "sleepy") == limit - 1
            assert node.store.paused(LADDER, "sleepy") is None and len(node.running()) == 1
            await fail_one(node, sleepy, steady)
            assert failures(node, "sleepy") == limit
            reason = node.store.paused(LADDER, "sleepy")
            assert reason is not None and str(limit) in reason
            assert node.running() == []  # paused: nobody is scheduled against steady any more
            assert "sleepy" not in node.ladders.ladders[LADDER].joined
            assert failures(node, "steady") == 0 and node.store.paused(LADDER, "steady") is None

    asyncio.run(scenario())


def test_a_bot_that_rejoins_while_the_result_pausing_it_is_committed_is_resumed(tmp_path):
    """Property 4, its end: the limit-th failure pauses the bot; it is back and joins again
    while that result is still being committed. The join resumes it (so it says), and once the
    result is written the bot is not paused, its run starts again, and it plays."""
    limit = ladder_host.FAILURE_LIMIT

    async def scenario() -> None:
        async with in_process(f"sqlite:///{tmp_path / 'arbiter.db'}", ["sleepy", "steady"]) as node:
            sleepy, steady = node.connect("sleepy"), node.connect("steady")
            sleepy.join(LADDER)
            steady.join(LADDER)
            await node.settle()
            for _ in range(limit - 1):
                await fail_one(node, sleepy, steady)
            with node.commits_held():
                await fail_one(node, None, steady, away=sleepy, settle=False)
                sleepy = node.connect("sleepy")
                accepted = node.arbiter.join_ladder(sleepy.session, LADDER, 1)
                assert accepted is not None and str(limit) in accepted.resumed_from_pause
            await node.settle()
            assert node.store.paused(LADDER, "sleepy") is None and failures(node, "sleepy") == 0
            assert len(node.running()) == 1  # sleepy plays steady again
            await fail_one(node, sleepy, steady)
            assert failures(node, "sleepy") == 1 and node.store.paused(LADDER, "sleepy") is None

    asyncio.run(scenario())


def test_a_bot_gone_when_its_clock_runs_out_is_disconnected_and_failed(store_url):
    """Property 5: termination ``disconnected``, its failure (not the opponent's), its loss, and so
    in the standings, their text and the web API."""

    async def scenario() -> None:
        async with in_process(store_url, ["ann", "ben"]) as node:
            ann, ben = node.connect("ann"), node.connect("ben")
            ann.join(LADDER)
            ben.join(LADDER)
            await node.settle()
            event = await fail_one(node, None, ben, away=ann)
            assert event.facts.bots[event.end.faulty_seat or 0] == "ann"
            row = node.store.match_row(event.facts.match_id)
            assert row is not None and row.status == "finished" and row.rated
            assert row.termination is Termination.DISCONNECTED
            assert row.winner_seat == 3 - (event.end.faulty_seat or 0)
            assert (failures(node, "ann"), failures(node, "ben")) == (1, 0)
            rows = {r.bot: r for r in standings(node.store, LADDER)}
            assert rows["ann"].failures == {"disconnected": 1} and rows["ben"].failures == {}
            assert (rows["ann"].losses, rows["ben"].wins) == (1, 1)
            assert "failures: disconnected 1" in rows["ann"].line()
            with TestClient(create_app(node.store)) as client:
                page = client.get(f"/api/ladders/{LADDER}").json()
                shown = {s["bot"]: s["failures"] for s in page["standings"]}
                assert shown == {"ann": {"disconnected": 1}, "ben": {}}
                assert "disconnected 1" in client.get(f"/ladders/{LADDER}").text

    asyncio.run(scenario())
