"""PostgreSQL stopped and started again mid-ladder: running matches go on, results wait, none is lost
or doubled."""

from __future__ import annotations

import asyncio
import time
from collections import Counter

from arbiter.ladder.model import LadderConfig
from arbiter.ladder.ratings import recompute
from arbiter.match.events import MatchEnded, MatchEvent
from arbiter.node import Arbiter, ArbiterConfig
from arbiter.sessions.auth import BotDirectory
from arbiter.store import SqlStore
from arbiter.transport.server import create_server
from arbiter_bot.client import Session
from arbiter_bot.examples.greedy_flank import GreedyFlankBot
from arbiter_bot.examples.random_bot import RandomBot
from arbiter_games.timecontrol import TimeControl

from tests.ladder_games import play_each
from tests.postgres import Cluster

BOTS = ("ann", "ben", "cat", "dan")
GAMES_EACH = 6


def test_postgresql_stopped_and_started_mid_ladder_loses_and_doubles_nothing():
    cluster = Cluster()
    cluster.start()
    try:
        url = cluster.new_database("outage")
        store = SqlStore(url)
        store.upgrade()
        tokens = {name: store.add_bot(name, f"owner of {name}") for name in BOTS}
        store.add_ladder(LadderConfig("t5", "torrent", {"size": 5}, TimeControl(base=60.0, increment=1.0)))
        ended: list[str] = []

        def follow(event: MatchEvent) -> None:
            if isinstance(event, MatchEnded):
                ended.append(event.facts.match_id)

        async def scenario():
            config = ArbiterConfig(bots=BotDirectory())
            arbiter = Arbiter(config, listeners=[follow], store=store)
            server = await create_server(config, arbiter=arbiter)
            sessions = {
                name: Session(
                    GreedyFlankBot(i) if i % 2 else RandomBot(i),
                    server.address,
                    tokens[name],
                    ("torrent", {"size": 5}),
                    ladder="t5",
                )
                for i, name in enumerate(BOTS)
            }
            # Each plays GAMES_EACH or more: nobody leaves before all have theirs (no odd bot out).
            playing = asyncio.create_task(play_each(sessions, GAMES_EACH, timeout=150))
            while len(ended) < 3 or not arbiter.hosting.matches:
                await asyncio.sleep(0.02)
            # Halted with the event loop blocked: no match moves while pg_ctl works (it can take
            # seconds on a loaded machine, long enough for the whole ladder to finish), so the
            # matches running now are left to play with the database away. The store's thread
            # writes on. (No new match starts for a bot until it has been told its last result,
            # and that waits for the result's commit.)
            cluster.halt()
            running = set(arbiter.hosting.matches)
            deadline = time.monotonic() + 60
            while not running <= set(ended) and time.monotonic() < deadline:  # they go on
                await asyncio.sleep(0.02)
            during = len(running & set(ended))
            assert during == len(running), "matches should go on while the database is away"
            await asyncio.sleep(0.5)
            await asyncio.to_thread(cluster.restart)
            summaries = list((await asyncio.wait_for(playing, 90)).values())
            await server.stop(1.0)
            return during, summaries

        during, summaries = asyncio.run(scenario())
        assert during >= 1
        rows = store.matches("t5", limit=1000)
        counts = Counter(row.match_id for row in rows)
        assert all(n == 1 for n in counts.values())
        # Every result written, once (a match still running when the arbiter stopped is aborted).
        written = {row.match_id for row in rows if row.status in ("finished", "aborted")}
        assert written == set(ended)
        assert sum(len(s) for s in summaries) == 2 * len(ended)  # every bot heard of every end
        live = {row.version: row.tally for row in store.ratings("t5")}
        assert recompute(store.finished_results("t5")) == live
        rated = [row for row in rows if row.status == "finished"]
        assert sum(t.games for t in live.values()) == 2 * len(rated)
        store.close()
    finally:
        cluster.stop()
