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
from dataclasses import replace
from typing import Any

import grpc
from arbiter.ladder import host as ladder_host
from arbiter.ladder.model import BotVersion, LadderConfig
from arbiter.ladder.ratings import recompute
from arbiter.ladder.standings import standings, whole_history_standings
from arbiter_bot.client import Session, run_bot
from arbiter_bot.examples.greedy_flank import GreedyFlankBot
from arbiter_bot.examples.random_bot import RandomBot
from arbiter_bot.examples.surge_tips import SurgeTipsBot
from arbiter_games.timecontrol import TimeControl

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
    slots = CONCURRENCY[STRONG]
    await run_bot(
        make(1), lab.address, token, spec, games=V1_GAMES, version="v1", ladder=ladder, max_concurrent=slots
    )
    await run_bot(make(2), lab.address, token, spec, version="v2", ladder=ladder, max_concurrent=slots)


async def _play_ladder(store_url: str, config: LadderConfig, make_strong: Any, spec: Any) -> Lab:
    async with ladder_lab(store_url, list(CONCURRENCY), [config]) as lab:
        tasks: list[asyncio.Task[Any]] = [
            asyncio.create_task(_strong_bot(lab, make_strong, spec, config.name))
        ]
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


# --- failures and pauses -----------------------------------------------------------------------
#: A quick clock: a bot that does not answer times out after 0.25 s.
QUICK = replace(TORRENT_5, control=TimeControl(base=5.0, increment=0.0, per_decision=0.25))


def test_failures_in_a_row_pause_a_bot_and_joining_again_resumes_it(store_url):
    limit = ladder_host.FAILURE_LIMIT
    # The sleepy bot's matches in order: limit - 1 timeouts, one played (the run of failures
    # starts again), then limit timeouts in a row.
    plan = [False] * (limit - 1) + [True] + [False] * limit

    async def scenario() -> None:
        async with ladder_lab(store_url, ["sleepy", "steady"], [QUICK]) as lab:
            sleepy, steady = await lab.connect("sleepy", "s1"), await lab.connect("steady", "s1")
            # (Cancelling a read cancels the call: steady plays on to the end of the test.)
            steady_player = asyncio.create_task(steady.autoplay())
            sleepy_player = asyncio.create_task(sleepy.autoplay(lambda n: n < len(plan) and plan[n]))
            await steady.join(QUICK.name)
            await sleepy.join(QUICK.name)
            await lab.watch.until(lambda w: len(w.ended) == len(plan))
            # Each bot hears a result only once it is committed: wait for the last one.
            for _ in range(100):
                if len(sleepy.ended) == len(steady.ended) == len(plan):
                    break
                await asyncio.sleep(0.05)
            await asyncio.sleep(0.3)  # the paused bot gets no further match
            sleepy_player.cancel()
            assert len(lab.watch.started) == len(plan)
            ends = [e.end for e in lab.watch.ended]
            assert [end.reason == "timeout" for end in ends] == [not played for played in plan]
            for event in lab.watch.ended:
                if event.end.reason == "timeout":
                    assert event.facts.bots[event.end.faulty_seat or 0] == "sleepy"
            timeouts = plan.count(False)
            reason = lab.store.paused(QUICK.name, "sleepy")
            assert reason is not None and str(limit) in reason
            assert lab.store.pauses_of("sleepy") == {QUICK.name: reason}
            assert lab.store.failures_in_a_row(QUICK.name, "sleepy") == limit
            assert lab.store.paused(QUICK.name, "steady") is None
            rows = {row.bot: row for row in standings(lab.store, QUICK.name)}
            assert rows["sleepy"].paused == reason and rows["steady"].paused is None
            assert rows["sleepy"].failures == {"timeout": timeouts}
            assert rows["sleepy"].losses >= timeouts and rows["steady"].failures == {}

            # Its next connection hears of the pause; joining again resumes it.
            await sleepy.close()
            again = await lab.connect("sleepy", "s2")
            pauses = {pause.ladder: pause.reason for pause in again.welcome.ladder_pauses}
            assert pauses == {QUICK.name: reason}
            await again.join(QUICK.name)
            joined = await again.expect("ladder_joined")
            assert joined.resumed_from_pause == reason and joined.bot_version == "s2"
            assert lab.store.paused(QUICK.name, "sleepy") is None
            assert lab.store.failures_in_a_row(QUICK.name, "sleepy") == 0
            resumed = await again.expect("match_started")
            assert resumed.opponent_name == "steady" and resumed.ladder == QUICK.name
            assert standings(lab.store, QUICK.name)[0].paused is None
            assert all(row.paused is None for row in standings(lab.store, QUICK.name))
            steady_player.cancel()

    asyncio.run(scenario())


def test_aborted_matches_are_never_rated(store_url):
    async def scenario() -> None:
        async with ladder_lab(store_url, ["ann", "ben"]) as lab:
            ann, ben = await lab.connect("ann", "1"), await lab.connect("ben", "1")
            for bot in (ann, ben):
                await bot.join(TORRENT_5.name, max_concurrent=2)
            # Two matches played out (ann and ben, both seats); the next ones are left waiting.
            await asyncio.gather(ann.play(matches=2), ben.play(matches=2))
            await lab.watch.until(lambda w: len(w.started) == 4)
            before = {row.version: row.tally for row in lab.store.ratings(TORRENT_5.name)}
            assert {t.games for t in before.values()} == {2}
            running = {e.facts.match_id for e in lab.watch.started} - lab.watch.ended_ids()
            assert len(running) == 2
            await lab.stop(grace=0.2)

            aborted = [e for e in lab.watch.ended if e.facts.match_id in running]
            assert {e.end.reason for e in aborted} == {"aborted"}
            assert len(lab.watch.started) == 4  # nothing was scheduled while stopping
            after = {row.version: row.tally for row in lab.store.ratings(TORRENT_5.name)}
            assert after == before
            rows = {row.match_id: row for row in lab.store.matches(TORRENT_5.name)}
            assert len(rows) == 4
            for match_id, row in rows.items():
                if match_id in running:
                    assert (row.status, row.termination, row.rated) == ("aborted", "aborted", False)
                else:
                    assert (row.status, row.rated) == ("finished", True)
            results = lab.store.finished_results(TORRENT_5.name)
            assert {r.match_id for r in results} == set(rows) - running
            assert recompute(results) == after
            # An abort is nobody's failure.
            for name in ("ann", "ben"):
                assert lab.store.failures_in_a_row(TORRENT_5.name, name) == 0
            assert all(row.failures == {} for row in standings(lab.store, TORRENT_5.name))

    asyncio.run(scenario())


def test_results_of_matches_that_end_in_the_grace_reach_the_bots(store_url):
    """A graceful stop: the bots finish their match and hear how it ended before the stream closes."""

    async def scenario() -> None:
        async with ladder_lab(store_url, ["ann", "ben"]) as lab:
            ann, ben = await lab.connect("ann", "1"), await lab.connect("ben", "1")
            for bot in (ann, ben):
                await bot.join(TORRENT_5.name)
            await lab.watch.until(lambda w: len(w.started) == 1)
            stopping = asyncio.create_task(lab.stop(grace=5.0))
            await asyncio.sleep(0.05)
            ends = await asyncio.gather(ann.play(), ben.play())
            await stopping
            assert ends[0][0].match_id == ends[1][0].match_id == lab.watch.started[0].facts.match_id
            assert len(lab.watch.started) == 1
            for bot in (ann, ben):
                error = await bot.status_at_end()
                assert error.code() == grpc.StatusCode.UNAVAILABLE  # SHUTTING_DOWN, after the result
            assert [row.status for row in lab.store.matches(TORRENT_5.name)] == ["finished"]

    asyncio.run(scenario())


# --- duplicate pairs ---------------------------------------------------------------------------
DUPLICATE_SURGE = replace(SURGE, name="surge-dup", duplicate_pairs=True)


def test_duplicate_pairs_share_a_seed_with_seats_swapped(store_url):
    names = ["tips-a", "tips-b", "rand-a", "rand-b"]

    async def scenario() -> None:
        async with ladder_lab(store_url, names, [DUPLICATE_SURGE]) as lab:
            sessions = [
                Session(
                    (SurgeTipsBot if name.startswith("tips") else RandomBot)(seed),
                    lab.address,
                    lab.tokens[name],
                    "surge",
                    max_concurrent=2,
                    ladder=DUPLICATE_SURGE.name,
                    version="1",
                )
                for seed, name in enumerate(names)
            ]
            tasks = [asyncio.create_task(session.run()) for session in sessions]
            try:
                await lab.watch.until(lambda w: len(w.ended) >= 24, timeout=30.0)
                await lab.stop(grace=5.0)
            finally:
                for task in tasks:
                    task.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)

            started = lab.watch.started
            assert len(started) >= 24 and lab.watch.ended_ids() == {e.facts.match_id for e in started}
            # Every match is a leg of a pair: started together, same seed, seats swapped.
            by_seed: dict[bytes, list[Any]] = defaultdict(list)
            for event in started:
                by_seed[event.seed].append(event)
            assert {len(legs) for legs in by_seed.values()} == {2}
            for index in range(0, len(started), 2):
                first, second = started[index], started[index + 1]
                assert first.seed == second.seed
                assert first.facts.seed_commitment != second.facts.seed_commitment  # per-leg commitments
                assert (first.facts.bots[1], first.facts.bots[2]) == (
                    second.facts.bots[2],
                    second.facts.bots[1],
                )
            # What the bots were told at the end: MatchEnded.seed equal for both legs, and verified.
            told: dict[str, list[Any]] = defaultdict(list)
            for session in sessions:
                for summary in session.summaries:
                    told[summary.match_id].append(summary)
                    assert summary.seed_verified is True
            for legs in by_seed.values():
                seeds = {s.seed for leg in legs for s in told[leg.facts.match_id]}
                assert len(seeds) == 1 and seeds.pop() == legs[0].seed.hex()
            # The store keeps the shared seed; the ratings are still a replay of the results.
            stored = {row.match_id: row for row in lab.store.matches(DUPLICATE_SURGE.name, limit=1000)}
            for legs in by_seed.values():
                a, b = (stored[leg.facts.match_id] for leg in legs)
                assert a.status == b.status == "finished"
                assert (a.seat_1, a.seat_2) == (b.seat_2, b.seat_1)
            results = lab.store.finished_results(DUPLICATE_SURGE.name)
            live = {row.version: row.tally for row in lab.store.ratings(DUPLICATE_SURGE.name)}
            assert live == recompute(results)

    asyncio.run(scenario())
