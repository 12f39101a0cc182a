"""Ladders played for real: SDK example bots on real sockets, an arbiter on SQLite and PostgreSQL.

Six bots join a ladder (one of them plays as version v1 and then reconnects as v2); after 60
matches the arbiter stops, and the store, the standings and the ratings are checked against what
the bus saw. Then the ways a ladder match may not count: failures in a row pause a bot, aborted
matches are never rated; and duplicate pairs on a Surge ladder.
"""

from __future__ import annotations

import asyncio
import contextlib
import statistics
from collections import Counter, defaultdict
from typing import Any

from arbiter.ladder.model import BotVersion, LadderConfig
from arbiter.ladder.ratings import recompute
from arbiter.ladder.standings import standings, whole_history_standings
from arbiter_bot.client import run_bot
from arbiter_bot.examples.greedy_flank import GreedyFlankBot
from arbiter_bot.examples.random_bot import RandomBot
from arbiter_bot.examples.surge_tips import SurgeTipsBot

from .harness import SURGE, TORRENT_5, Lab, ladder_lab

MATCHES = 60
#: The strong bot plays this many matches as v1, then reconnects as v2.
V1_GAMES = 8
STRONG = "strong"
#: Each bot's max_concurrent (the strong bot's under both versions). Bots with spare slots meet
#: each other most (they are the ones free when a match ends): with a 3-slot bot among 2-slot
#: ones, a 2-slot bot met only 2 opponents in 60 matches about one run in ten.
CONCURRENCY = {STRONG: 2, "rand-a": 1, "rand-b": 1, "rand-c": 2, "rand-d": 1, "rand-e": 1}


async def _strong_bot(lab: Lab, make: Any, spec: Any, ladder: str) -> None:
    """The strong bot: V1_GAMES matches as v1, then as v2 until stopped."""
    token = lab.tokens[STRONG]
    common = {"ladder": ladder, "max_concurrent": CONCURRENCY[STRONG]}
    await run_bot(make(1), lab.address, token, spec, games=V1_GAMES, version="v1", **common)
    await run_bot(make(2), lab.address, token, spec, version="v2", **common)


async def _play_ladder(store_url: str, config: LadderConfig, make_strong: Any, spec: Any) -> Lab:
    async with ladder_lab(store_url, list(CONCURRENCY), [config]) as lab:
        tasks = [asyncio.create_task(_strong_bot(lab, make_strong, spec, config.name))]
        for seed, name in enumerate(CONCURRENCY):
            if name != STRONG:
                session = run_bot(
                    RandomBot(seed),
                    lab.address,
                    lab.tokens[name],
                    spec,
                    ladder=config.name,
                    version="1.0",
                    max_concurrent=CONCURRENCY[name],
                )
                tasks.append(asyncio.create_task(session))
        try:
            await lab.watch.until(lambda w: len(w.ended) >= MATCHES, timeout=40.0)
            # Stopping: no new match, the running ones finish within the grace.
            await lab.stop(grace=5.0)
        finally:
            for task in tasks:
                task.cancel()
            for task in tasks:
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        _check_ladder(lab, config.name)
    return lab


def _check_ladder(lab: Lab, ladder: str) -> None:
    store, watch = lab.store, lab.watch
    started_ids = [e.facts.match_id for e in watch.started]
    assert len(started_ids) >= MATCHES
    # Every match that started ended (none left running, none aborted) and is stored so.
    assert watch.ended_ids() == set(started_ids)
    assert [e.end.reason for e in watch.ended if e.end.reason == "aborted"] == []
    rows = store.matches(ladder, limit=10_000)
    assert sorted(r.match_id for r in rows) == sorted(started_ids)
    assert Counter(r.status for r in rows) == {"finished": len(started_ids)}
    assert all(r.termination == "game_end" for r in rows), Counter(r.termination for r in rows)
    for event in watch.started:
        assert event.facts.ladder == ladder and event.facts.rated
    results = store.finished_results(ladder)
    assert len(results) == len(started_ids)
    assert [r.sequence for r in results] == sorted(r.sequence for r in results)

    # No bot ever had more matches running than its max_concurrent.
    for bot, peak in watch.peak.items():
        assert peak <= CONCURRENCY[bot], (bot, peak)
    assert set(watch.running.values()) == {0}

    # Seats balanced per pair of bot versions (scheduler rule 4: the counts differ by at most 1).
    first_seats: Counter[tuple[BotVersion, BotVersion]] = Counter()
    for r in results:
        first_seats[(r.seat_1, r.seat_2)] += 1
    for a, b in list(first_seats):
        assert abs(first_seats[(a, b)] - first_seats[(b, a)]) <= 1, (a, b, dict(first_seats))

    # Variety: every bot met at least 3 different opponents.
    opponents: dict[str, set[str]] = defaultdict(set)
    for r in results:
        opponents[r.seat_1.bot].add(r.seat_2.bot)
        opponents[r.seat_2.bot].add(r.seat_1.bot)
    assert set(opponents) == set(CONCURRENCY)
    for bot, met in opponents.items():
        assert len(met) >= 3, (bot, met)

    # The live ratings are exactly a replay of the stored results.
    live = {row.version: row.tally for row in store.ratings(ladder)}
    assert live == recompute(results)

    # Standings: every bot version, in ordinal order, with the games the store holds.
    table = standings(store, ladder, all_versions=True)
    versions = {BotVersion(row.bot, row.version) for row in table}
    expected = {BotVersion(STRONG, "v1"), BotVersion(STRONG, "v2")}
    expected |= {BotVersion(name, "1.0") for name in CONCURRENCY if name != STRONG}
    assert versions == expected
    assert [row.rank for row in table] == list(range(1, len(table) + 1))
    ordinals = [row.ordinal for row in table]
    assert ordinals == sorted(ordinals, reverse=True)
    games = Counter([r.seat_1 for r in results] + [r.seat_2 for r in results])
    for row in table:
        version = BotVersion(row.bot, row.version)
        assert row.games == games[version] and row.wins + row.losses + row.draws == row.games
        assert row.current == (version != BotVersion(STRONG, "v1"))
        assert row.paused is None
    current = standings(store, ladder)
    assert {(row.bot, row.version) for row in current} == {(v.bot, v.version) for v in expected} - {
        (STRONG, "v1")
    }
    # The strong bot is above the random ones on average, and it tops the current standings.
    strong = [row.ordinal for row in table if row.bot == STRONG]
    weak = [row.ordinal for row in table if row.bot != STRONG]
    assert statistics.mean(strong) > statistics.mean(weak)
    assert current[0].bot == STRONG
    # The whole-history fit ranks the same bot first.
    whole = whole_history_standings(store, ladder)
    assert {BotVersion(line.bot, line.version) for line in whole} == expected
    assert whole[0].bot == current[0].bot


def test_torrent_ladder_of_six_bots(store_url):
    asyncio.run(_play_ladder(store_url, TORRENT_5, GreedyFlankBot, ("torrent", {"size": 5})))


def test_surge_ladder_of_six_bots(store_url):
    asyncio.run(_play_ladder(store_url, SURGE, SurgeTipsBot, "surge"))
