"""Playing a fixed number of ladder games with SDK bots, without pairing luck.

Bots that each leave a ladder after N matches can strand the last one: once the others have
left, nobody is there to play its missing games (five bots that want four each did, now and then,
and the test waited out its timeout). ``play_each`` keeps every bot on the ladder until each has
N matches played or running, then winds them all down together (each finishes what it is playing,
so each ends with N or more).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping

from arbiter_bot.bot import MatchSummary
from arbiter_bot.client import Session


async def play_each(
    sessions: Mapping[str, Session], games: int, timeout: float = 120.0
) -> dict[str, list[MatchSummary]]:
    """Run ``sessions`` (made with ``games=None``) until each has ``games`` matches finished or
    running, then wind them all down (each ends with ``games`` or more); their summaries.
    AssertionError with the counts on a timeout."""
    loop = asyncio.get_running_loop()
    tasks = {name: asyncio.create_task(session.run()) for name, session in sessions.items()}
    deadline = loop.time() + timeout
    try:
        while any(len(session.summaries) + session.playing < games for session in sessions.values()):
            ended = [name for name, task in tasks.items() if task.done()]
            if ended:
                await tasks[ended[0]]  # its error, if it failed
                raise AssertionError(f"{ended[0]} stopped before the others had {games} games")
            if loop.time() > deadline:
                counts = {name: len(session.summaries) for name, session in sessions.items()}
                raise AssertionError(f"not {games} games each within {timeout:.0f} s: {counts}")
            await asyncio.sleep(0.05)
        for session in sessions.values():
            session.wind_down()
        left = max(1.0, deadline - loop.time())
        return dict(zip(tasks, await asyncio.wait_for(asyncio.gather(*tasks.values()), left), strict=True))
    finally:
        for task in tasks.values():
            task.cancel()
