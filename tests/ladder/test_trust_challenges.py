"""Challenges (issue 20, properties 1 and 2): the daily limit is a sliding day on the wall clock,
and a challenge to an opponent without a free slot is refused and starts nothing.

On an in-process arbiter (tests/ladder/inprocess.py): the wall clock the limit reads is set by
the test, and matches end when the test aborts them, so no pairing luck and no waiting.
"""

from __future__ import annotations

import asyncio

from arbiter.ladder import host as ladder_host
from arbiter_wire import reasons

from .inprocess import CAPPED, WALL_START, Bot, Node, in_process

LADDER = CAPPED.name


def pairs(node: Node) -> list[set[str]]:
    return [set(event.facts.bots.values()) for event in node.watch.started]


async def end_running(node: Node, *bots: str) -> None:
    """Abort the running matches of ``bots`` (an abort frees the slots and counts for nothing)."""
    for match in node.running():
        if set(match.bots.values()) & set(bots):
            match.abort("ended by the test")
    await node.settle()


async def quiet_pair(node: Node) -> tuple[Bot, Bot]:
    """ann and ben joined with free slots and nothing scheduled for them: they have just played
    each other, and the rematch is held back while cat and dan play on."""
    ann, ben, cat, dan = (node.connect(name) for name in ("ann", "ben", "cat", "dan"))
    ann.join(LADDER)
    ben.join(LADDER)
    await node.settle()
    cat.join(LADDER)
    dan.join(LADDER)
    await node.settle()
    assert pairs(node) == [{"ann", "ben"}, {"cat", "dan"}]
    await end_running(node, "ann")
    assert len(node.watch.started) == 2
    return ann, ben


def test_the_challenge_limit_is_per_day_on_the_wall_clock(store_url):
    """Property 1: ``limit`` challenges, then refused (also a second short of a day later); a day
    and a second after them the next one is taken."""
    limit = ladder_host.CHALLENGES_PER_PAIR_PER_DAY

    async def scenario() -> None:
        async with in_process(store_url, ["ann", "ben", "cat", "dan"]) as node:
            ann, _ben = await quiet_pair(node)
            node.wall.now = WALL_START
            for _ in range(limit):
                assert ann.challenge(LADDER, "ben") is None
                await node.settle()
                assert pairs(node)[-1] == {"ann", "ben"}
                await end_running(node, "ann")
            started = len(node.watch.started)
            assert started == 2 + limit
            for moment in (WALL_START, WALL_START + ladder_host.DAY - 1):
                node.wall.now = moment
                refused = ann.challenge(LADDER, "ben")
                assert refused is not None and refused.reason == reasons.RESOURCE_EXHAUSTED, moment
                await node.settle()
                assert len(node.watch.started) == started  # a refused challenge starts nothing
            node.wall.now = WALL_START + ladder_host.DAY + 1
            assert ann.challenge(LADDER, "ben") is None
            await node.settle()
            assert len(node.watch.started) == started + 1 and pairs(node)[-1] == {"ann", "ben"}

    asyncio.run(scenario())


def test_a_challenge_to_an_opponent_without_a_free_slot_is_refused_and_starts_nothing(tmp_path):
    """Property 2: the challenger has a free slot, the opponent has none (one slot of one, or
    two of two): CHALLENGE_REFUSED, no match, no MatchStarted for anyone."""

    async def scenario() -> None:
        async with in_process(f"sqlite:///{tmp_path / 'arbiter.db'}", ["ann", "ben", "cat", "dan"]) as node:
            ann, ben, cat, dan = (node.connect(name) for name in ("ann", "ben", "cat", "dan"))
            ann.join(LADDER, max_concurrent=1)
            ben.join(LADDER, max_concurrent=2)
            await node.settle()
            cat.join(LADDER, max_concurrent=1)
            await node.settle()
            # ann plays ben; ben's second slot went to cat: ann and ben have no free slot.
            assert sorted(map(sorted, pairs(node))) == [["ann", "ben"], ["ben", "cat"]]
            dan.join(LADDER, max_concurrent=3)
            await node.settle()
            assert len(node.watch.started) == 2
            hosted = node.arbiter.hosting.started
            for opponent in ("ann", "ben", "cat"):
                refused = dan.challenge(LADDER, opponent)
                assert refused is not None and refused.reason == reasons.CHALLENGE_REFUSED, opponent
                await node.settle()
            assert node.arbiter.hosting.started == hosted and len(node.watch.started) == 2
            assert dan.of_kind("match_started") == []
            assert len(node.store.matches(LADDER)) == 2
            # Once the match of ann and ben is over, the scheduler pairs each of them with dan.
            await end_running(node, "ann")
            assert sorted(map(sorted, pairs(node)[2:])) == [["ann", "dan"], ["ben", "dan"]]

    asyncio.run(scenario())
