"""A MatchEnded reaches no bot before its result is committed (issue 20, property 9).

Over the real protocol: the store's ``finish_match`` (the result, its rating changes and the new
ratings, in one transaction) is held back on the writer's thread until the test lets it go.
While it is held the match is over and neither bot hears of it; when a bot reads its MatchEnded,
the store already has the match finished and rated.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from arbiter.store import SqlStore
from arbiter_wire import convert

from .harness import TORRENT_5, LadderBot, ladder_lab

LADDER = TORRENT_5.name


def hold_the_first_commit(store: SqlStore) -> tuple[threading.Event, threading.Event]:
    """(entered, release): the first ``finish_match`` waits for ``release`` before it writes."""
    entered, release = threading.Event(), threading.Event()
    finish = store.finish_match

    def held(*args: Any, **kwargs: Any) -> Any:
        if not entered.is_set():
            entered.set()
            assert release.wait(60.0), "the test never let the commit go"
        return finish(*args, **kwargs)

    store.finish_match = held  # type: ignore[method-assign]
    return entered, release


async def play_one(bot: LadderBot, store: SqlStore) -> tuple[str, str, int]:
    """Answer turns until a MatchEnded comes; then at once what the store says of that match:
    (match id, its status, how many rating rows the ladder has)."""
    while True:
        message = await bot.next(timeout=30.0)
        kind = message.WhichOneof("kind")
        if kind == "turn":
            legal = convert.legal_from_pb(message.turn.legal)
            await bot.move(message.turn.match_id, message.turn.turn_id, legal[0])
        elif kind == "match_ended":
            match_id = message.match_ended.match_id
            row = store.match_row(match_id)
            return match_id, "missing" if row is None else row.status, len(store.ratings(LADDER))


def test_no_bot_hears_a_match_ended_before_its_result_is_committed(store_url):
    async def scenario() -> None:
        async with ladder_lab(store_url, ["ann", "ben"]) as lab:
            entered, release = hold_the_first_commit(lab.store)
            ann, ben = await lab.connect("ann"), await lab.connect("ben")
            for bot in (ann, ben):
                await bot.join(LADDER)
            players = [asyncio.create_task(play_one(bot, lab.store)) for bot in (ann, ben)]
            try:
                assert await asyncio.to_thread(entered.wait, 60.0), "no match ended"
                await lab.watch.until(lambda w: len(w.ended) == 1)
                (ended,) = lab.watch.ended
                assert ended.end.reason != "aborted"
                # The match is over and its result waits for the store: the bots hear nothing.
                await asyncio.sleep(0.5)
                for bot in (ann, ben):
                    told = [m for m in bot.received if m.WhichOneof("kind") == "match_ended"]
                    assert told == [], "a bot heard of the end before its result was committed"
                row = lab.store.match_row(ended.facts.match_id)
                assert row is not None and row.status == "running"
                release.set()
                heard = await asyncio.wait_for(asyncio.gather(*players), 30.0)
            finally:
                release.set()
                for task in players:
                    task.cancel()
            assert heard == [(ended.facts.match_id, "finished", 2)] * 2

    asyncio.run(scenario())
