"""A ladder slot frees once the bot has been told the result (docs/reliability.md, "A result is
told before the slot frees"): a bot counting MatchStarted minus MatchEnded never sees more open
matches than its max_concurrent, and no MatchEnded is lost when the bot cancels its call and
comes back. Over the real protocol, on SQLite, with the result's commit slowed down (the
MatchEnded waits for it)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

from arbiter.ladder.model import LadderConfig
from arbiter_games.timecontrol import TimeControl
from arbiter_wire import convert

from tests.ladder.harness import LadderBot, eventually, ladder_lab

QUICK = LadderConfig("quick", "torrent", {"size": 5}, TimeControl(base=30.0, increment=1.0))
#: An absent bot loses its turns within a second here.
AWAY = LadderConfig("away", "torrent", {"size": 5}, TimeControl(base=10.0, per_decision=1.0))
#: Seconds each result's commit takes here: long enough for a freed slot to start a new match first.
SLOW_COMMIT = 0.15


def slow_commits(store: Any) -> None:
    finish = store.finish_match

    def slowly(*args: Any, **kwargs: Any) -> Any:
        time.sleep(SLOW_COMMIT)  # on the writer's thread, as a busy database would
        return finish(*args, **kwargs)

    store.finish_match = slowly


class Counting:
    """Plays a bot's turns and counts its open matches as the bot sees them."""

    def __init__(self, bot: LadderBot) -> None:
        self.bot = bot
        self.open: set[str] = set()
        self.peak = 0
        self.ended: set[str] = set()
        self.started: set[str] = set()

    async def play(self, until_ended: int | None = None) -> None:
        while until_ended is None or len(self.ended) < until_ended:
            message = await self.bot.next(timeout=30.0)
            kind = message.WhichOneof("kind")
            if kind == "match_started":
                self.started.add(message.match_started.match_id)
                self.open.add(message.match_started.match_id)
                self.peak = max(self.peak, len(self.open))
            elif kind == "match_ended":
                self.open.discard(message.match_ended.match_id)
                self.ended.add(message.match_ended.match_id)
            elif kind == "turn":
                legal = convert.legal_from_pb(message.turn.legal)
                await self.bot.move(message.turn.match_id, message.turn.turn_id, legal[0])


def sqlite(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'arbiter.db'}"


def test_a_bot_never_sees_more_open_matches_than_it_asked_for(tmp_path):
    async def scenario() -> None:
        async with ladder_lab(sqlite(tmp_path), ["ann", "ben", "cat"], [QUICK]) as lab:
            slow_commits(lab.store)
            counters = {name: Counting(await lab.connect(name)) for name in ("ann", "ben", "cat")}
            for counter in counters.values():
                await counter.bot.join(QUICK.name, max_concurrent=2)
            # ann plays until 12 of her matches have ended; the others play along meanwhile.
            others = [asyncio.create_task(counters[n].play()) for n in ("ben", "cat")]
            await asyncio.wait_for(counters["ann"].play(until_ended=12), timeout=120.0)
            for task in others:
                task.cancel()
            for name, counter in counters.items():
                assert counter.peak <= 2, f"{name} saw {counter.peak} open matches at max_concurrent 2"

    asyncio.run(scenario())


def test_no_result_is_lost_when_the_bot_cancels_and_comes_back(tmp_path):
    async def scenario() -> None:
        async with ladder_lab(sqlite(tmp_path), ["ann", "ben"], [AWAY]) as lab:
            slow_commits(lab.store)
            ann, ben = Counting(await lab.connect("ann")), Counting(await lab.connect("ben"))
            for counter in (ann, ben):
                await counter.bot.join(AWAY.name, max_concurrent=3)
            playing = asyncio.create_task(ben.play())
            # ann plays her three matches to the end, then cancels at once: results still held
            # for their commit (or queued to her stream) must reach her at the next connection.
            await asyncio.wait_for(ann.play(until_ended=1), timeout=60.0)
            await ann.bot.close()
            playing.cancel()
            await eventually(lambda: not lab.arbiter.hosting.matches, timeout=30.0)
            await asyncio.sleep(3 * SLOW_COMMIT)
            back = await lab.connect("ann")
            told = set(back.welcome.ended_match_ids)
            while True:
                try:
                    message = await back.next(timeout=1.0)
                except TimeoutError:
                    break
                if message.WhichOneof("kind") == "match_ended":
                    told.add(message.match_ended.match_id)
            missing = ann.started - ann.ended - told
            assert not missing, f"ann was never told how {sorted(missing)} ended"

    asyncio.run(scenario())
