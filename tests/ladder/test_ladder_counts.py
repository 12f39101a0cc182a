"""What the ladder counts per day and per owner, kept in the store (issue 18 items 11 and 12).

The daily challenge limit and the daily limit on new versions hold across a restart of the
arbiter (a failover too: another node reads the same store); a bot's new version starts from its
previous version's rating, only less sure; matches between two bots of one owner are unrated
unless the ladder flags them. Over the real protocol, on SQLite and PostgreSQL.
"""

from __future__ import annotations

import asyncio
import time

from arbiter.ladder import host as ladder_host
from arbiter.ladder.model import BotVersion, LadderConfig
from arbiter.ladder.ratings import (
    INITIAL_SIGMA,
    RatingTally,
    Winner,
    carried_tally,
    initial_tally,
    recompute,
    tally_game,
)
from arbiter.store import SqlStore
from arbiter.web.app import create_app
from arbiter_wire.limits import UNVERSIONED
from arbiter_wire.reasons import reason_of
from fastapi.testclient import TestClient
from google.rpc import code_pb2

from .harness import TORRENT_5, Lab, LadderBot, eventually, ladder_lab, serving

LADDER = TORRENT_5.name
BOTS = ["ann", "ben", "cat", "dan"]


async def _quiet_pair(lab: Lab, ann_version: str | None = None) -> tuple[LadderBot, LadderBot]:
    """ann and ben joined, free, and nothing scheduled for them: they have just played each other,
    and the rematch is held back while cat and dan (who never answer) are playing."""
    ann = await lab.connect("ann", ann_version)
    ben, cat, dan = [await lab.connect(name) for name in BOTS[1:]]
    for bot in (ann, ben):
        await bot.join(LADDER)
    await lab.watch.until(lambda w: len(w.started) == 1)
    for bot in (cat, dan):
        await bot.join(LADDER)
    await lab.watch.until(lambda w: len(w.started) == 2)
    await asyncio.gather(ann.play(), ben.play())
    await asyncio.sleep(0.2)
    assert len(lab.watch.started) == 2
    return ann, ben


async def _refused(bot: LadderBot) -> str | None:
    rejected = await bot.expect("ladder_rejected")
    assert rejected.status.code == code_pb2.RESOURCE_EXHAUSTED, rejected
    return reason_of(rejected.status)


def test_the_daily_challenge_limit_outlives_a_restart_and_lifts_a_day_later(store_url):
    limit = ladder_host.CHALLENGES_PER_PAIR_PER_DAY

    async def scenario() -> None:
        async with ladder_lab(store_url, BOTS) as lab:
            tokens = lab.tokens
            ann, ben = await _quiet_pair(lab)
            for sent in range(limit):
                await ann.challenge(LADDER, "ben", challenge_id=f"c{sent}")
                await asyncio.gather(ann.play(), ben.play())
            assert len(lab.watch.started) == 2 + limit
        # A new arbiter on the same store (a restart, or another node taking the ladder over).
        async with serving(store_url, tokens) as lab:
            ann, ben = await _quiet_pair(lab)
            await ann.challenge(LADDER, "ben", challenge_id="after-restart")
            assert await _refused(ann) == "RESOURCE_EXHAUSTED"
            await asyncio.sleep(0.2)
            assert len(lab.watch.started) == 2  # the refused challenge started nothing
            # A day and a second later (the wall clock the limit reads), the next one is taken.
            host = lab.arbiter.ladders
            assert host is not None
            host.wall = lambda: time.time() + ladder_host.DAY + 1
            await ann.challenge(LADDER, "ben", challenge_id="next-day")
            await lab.watch.until(lambda w: len(w.started) == 3)
            assert set(lab.watch.started[2].facts.bots.values()) == {"ann", "ben"}

    asyncio.run(scenario())


def test_new_versions_per_bot_per_day_are_limited_and_the_limit_outlives_a_restart(store_url):
    limit = ladder_host.NEW_VERSIONS_PER_DAY

    async def join_as(lab: Lab, version: str) -> LadderBot:
        bot = await lab.connect("ann", version)
        await bot.join(LADDER)
        return bot

    async def scenario() -> None:
        async with ladder_lab(store_url, ["ann"]) as lab:
            tokens = lab.tokens
            for n in range(limit):
                bot = await join_as(lab, f"v{n}")
                joined = await bot.expect("ladder_joined")
                assert joined.bot_version == f"v{n}"
                await bot.close()
            bot = await join_as(lab, "one-too-many")
            assert await _refused(bot) == "RESOURCE_EXHAUSTED"
            await bot.close()
        async with serving(store_url, tokens) as lab:
            bot = await join_as(lab, "after-restart")
            assert await _refused(bot) == "RESOURCE_EXHAUSTED"
            await bot.close()
            # A version played before is always taken.
            bot = await join_as(lab, "v0")
            assert (await bot.expect("ladder_joined")).bot_version == "v0"
            await bot.close()
            # A day and a second later, a new version is taken again.
            host = lab.arbiter.ladders
            assert host is not None
            host.wall = lambda: time.time() + ladder_host.DAY + 1
            bot = await join_as(lab, "next-day")
            assert (await bot.expect("ladder_joined")).bot_version == "next-day"

    asyncio.run(scenario())


def _tallies(store: SqlStore) -> dict[BotVersion, RatingTally]:
    return {row.version: row.tally for row in store.ratings(LADDER)}


def test_a_new_version_starts_from_the_previous_rating_with_a_wider_sigma(store_url):
    """Leaving a losing version behind buys nothing: the new one starts where the bot stood."""

    async def scenario() -> None:
        async with ladder_lab(store_url, BOTS) as lab:
            ann, ben = await _quiet_pair(lab, ann_version="old")
            for sent in range(2):
                await ann.challenge(LADDER, "ben", challenge_id=f"c{sent}")
                await asyncio.gather(ann.play(), ben.play())
            await ann.close()
            ann_old = BotVersion("ann", "old")
            await eventually(lambda: _tallies(lab.store).get(ann_old, initial_tally()).games == 3)
            before = _tallies(lab.store)
            old, ben_before = before[BotVersion("ann", "old")], before[BotVersion("ben", UNVERSIONED)]
            # ann's new version is no rematch of ben's last opponent (ann@old): paired at once.
            ann = await lab.connect("ann", "new")
            await ann.join(LADDER)
            [ended], _ = await asyncio.gather(ann.play(), ben.play())
            await eventually(lambda: BotVersion("ann", "new") in _tallies(lab.store))
            row = lab.store.match_row(ended.match_id)
            assert row is not None and row.rated
            after = _tallies(lab.store)
            new = after[BotVersion("ann", "new")]
            start = carried_tally(old)
            assert start.rating.mu == old.rating.mu and old.rating.sigma < start.rating.sigma <= INITIAL_SIGMA
            winner: Winner = 1 if row.winner_seat == 1 else 2 if row.winner_seat == 2 else None
            if row.seat_1.bot == "ann":
                expected, _ = tally_game(start, ben_before, winner)
            else:
                _, expected = tally_game(ben_before, start, winner)
            assert new == expected
            assert new.games == 1 and new.rating.mu != initial_tally().rating.mu
            assert after[BotVersion("ann", "old")] == old  # the old version keeps its own line
            # The live ratings are what a replay of the results gives.
            assert recompute(lab.store.finished_results(LADDER)) == after

    asyncio.run(scenario())


def _one_owner_lab(store_url: str, same_owner: str) -> tuple[dict[str, str], LadderConfig]:
    store = SqlStore(store_url)
    store.upgrade()
    config = LadderConfig(
        name=f"t5-{same_owner}",
        game=TORRENT_5.game,
        options=TORRENT_5.options,
        control=TORRENT_5.control,
        same_owner=same_owner,
    )
    store.add_ladder(config)
    tokens = {"ann": store.add_bot("ann", "Ada"), "ben": store.add_bot("ben", "ada ")}
    tokens["cat"] = store.add_bot("cat", "Cy")
    store.close()
    return tokens, config


def test_matches_between_bots_of_one_owner_are_unrated_unless_the_ladder_flags_them(store_url):
    async def play_once(tokens: dict[str, str], ladder: str, names: tuple[str, str]) -> str:
        async with serving(store_url, tokens) as lab:
            one, two = [await lab.connect(name) for name in names]
            for bot in (one, two):
                await bot.join(ladder)
            [ended], _ = await asyncio.gather(one.play(), two.play())
            assert lab.watch.started[0].facts.rated == (ladder.endswith("flagged") or "cat" in names)
            return str(ended.match_id)

    async def scenario() -> None:
        tokens, unrated = _one_owner_lab(store_url, "unrated")
        store = SqlStore(store_url)
        try:
            store.add_ladder(
                LadderConfig(
                    name="t5-flagged",
                    game=TORRENT_5.game,
                    options=TORRENT_5.options,
                    control=TORRENT_5.control,
                    same_owner="flagged",
                )
            )
            # ann and ben: one owner (case and spaces aside) on the default ladder: unrated.
            match_id = await play_once(tokens, unrated.name, ("ann", "ben"))
            row = store.match_row(match_id)
            assert row is not None and row.same_owner and not row.rated
            assert store.ratings(unrated.name) == []
            # ann and cat: two owners: rated as always.
            match_id = await play_once(tokens, unrated.name, ("ann", "cat"))
            row = store.match_row(match_id)
            assert row is not None and not row.same_owner and row.rated
            assert {r.version.bot for r in store.ratings(unrated.name)} == {"ann", "cat"}
            # On a ladder that flags them, ann and ben are rated and marked.
            match_id = await play_once(tokens, "t5-flagged", ("ann", "ben"))
            row = store.match_row(match_id)
            assert row is not None and row.same_owner and row.rated
            assert {r.version.bot for r in store.ratings("t5-flagged")} == {"ann", "ben"}
            # The match's page and its JSON say so.
            app = create_app(store)
            with TestClient(app) as client:
                assert client.get(f"/api/matches/{match_id}").json()["match"]["same_owner"] is True
                assert "same owner" in client.get(f"/matches/{match_id}").text
        finally:
            store.close()

    asyncio.run(scenario())
