"""The ladder's side of the protocol, message by message, with a raw client on real sockets.

JoinLadder, LeaveLadder and Challenge and their answers; tokens and enablement read from the
store while the arbiter runs; the arbiter-bot-version metadata; MatchStarted.ladder; the slots a
bot's running matches fill. Every test runs on SQLite and on PostgreSQL.
"""

from __future__ import annotations

import asyncio

import grpc
import pytest
from arbiter.ladder import host as ladder_host
from arbiter.ladder.model import BotVersion
from arbiter_games.timecontrol import TimeControl
from arbiter_wire import convert
from arbiter_wire.limits import MAX_LADDER_CONCURRENCY, UNVERSIONED
from arbiter_wire.reasons import reason_of
from arbiter_wire.v1 import bot_service_pb2 as pb
from arbiter_wire.v1 import common_pb2 as cpb
from google.rpc import code_pb2
from grpc_status import rpc_status

from .harness import TORRENT_5, LadderBot, eventually, ladder_lab

LADDER = TORRENT_5.name
BOTS = ["ann", "ben", "cat", "dan", "eve"]


def _refusal(error: grpc.aio.AioRpcError) -> tuple[grpc.StatusCode, str | None]:
    return error.code(), reason_of(rpc_status.from_call(error))


# --- joining -----------------------------------------------------------------------------------
def test_join_answers_with_the_ladder_and_then_schedules(store_url):
    async def scenario() -> None:
        async with ladder_lab(store_url, BOTS) as lab:
            ann, ben = await lab.connect("ann", "a-1"), await lab.connect("ben")
            await ann.join(LADDER, max_concurrent=3)
            joined = await ann.expect("ladder_joined")
            assert joined.ladder == LADDER and joined.max_concurrent == 3 and joined.rated
            assert convert.spec_from_pb(joined.spec) == ("torrent", {"size": 5})
            assert convert.time_control_from_pb(joined.time_control) == TORRENT_5.control
            assert joined.timeout_policy == pb.TIMEOUT_POLICY_LOSS
            assert joined.illegal_action_policy == pb.ILLEGAL_ACTION_POLICY_FORFEIT
            assert joined.bot_version == "a-1" and joined.resumed_from_pause == ""
            # The join that makes a match: LadderJoined comes first, then the MatchStarted.
            await ben.join(LADDER)  # max_concurrent 0 means 1
            assert (await ben.expect("ladder_joined")).max_concurrent == 1
            started = {bot: await bot.expect("match_started") for bot in (ann, ben)}
            assert started[ann].match_id == started[ben].match_id
            assert started[ann].ladder == started[ben].ladder == LADDER
            assert started[ann].opponent_name == "ben" and started[ben].opponent_name == "ann"
            assert {started[ann].seat, started[ben].seat} == {cpb.SEAT_1, cpb.SEAT_2}
            # The store has the match with both versions (ben named none: unversioned).
            await lab.watch.until(lambda w: len(w.started) == 1)
            [row] = await eventually(lambda: lab.store.matches(LADDER))
            assert {row.seat_1, row.seat_2} == {BotVersion("ann", "a-1"), BotVersion("ben", UNVERSIONED)}
            assert row.status == "running" and row.rated

    asyncio.run(scenario())


def test_unknown_ladder_and_bad_concurrency_are_rejected(store_url):
    async def scenario() -> None:
        async with ladder_lab(store_url, BOTS) as lab:
            ann = await lab.connect("ann")
            await ann.join("no-such-ladder")
            rejected = await ann.expect("ladder_rejected")
            assert rejected.ladder == "no-such-ladder"
            assert rejected.status.code == code_pb2.NOT_FOUND
            assert reason_of(rejected.status) == "LADDER_NOT_FOUND"
            await ann.join(LADDER, max_concurrent=MAX_LADDER_CONCURRENCY + 1)
            rejected = await ann.expect("ladder_rejected")
            assert rejected.status.code == code_pb2.INVALID_ARGUMENT
            assert reason_of(rejected.status) == "BAD_REQUEST"
            await ann.leave("no-such-ladder")
            assert reason_of((await ann.expect("ladder_rejected")).status) == "LADDER_NOT_FOUND"
            # The session goes on: a good join is still accepted.
            await ann.join(LADDER)
            await ann.expect("ladder_joined")

    asyncio.run(scenario())


def test_a_bot_known_only_from_the_serve_flags_cannot_join(store_url):
    """``serve --bot NAME=TOKEN`` bots may seek, but the store can keep no ladder result of theirs
    (its ratings and ladder status rows belong to registered bots)."""

    async def scenario() -> None:
        async with ladder_lab(store_url, BOTS, flag_bots={"flagged": "flag-token"}) as lab:
            flagged, ann = await lab.connect("flagged"), await lab.connect("ann")
            assert flagged.welcome.bot_name == "flagged"
            await flagged.join(LADDER)
            rejected = await flagged.expect("ladder_rejected")
            assert reason_of(rejected.status) == "BAD_REQUEST" and "registered" in rejected.status.message
            await ann.join(LADDER)
            await ann.expect("ladder_joined")
            await asyncio.sleep(0.2)
            assert lab.watch.started == []
            # Casual matches (seeks) are still open to it.
            for bot in (flagged, ann):
                await bot.send(seek=pb.Seek(spec=convert.spec_to_pb("torrent", {"size": 5})))
            [flagged_end], [ann_end] = await asyncio.gather(flagged.play(), ann.play())
            assert flagged_end.match_id == ann_end.match_id
            row = await eventually(
                lambda: [
                    r for r in lab.store.matches() if r.match_id == ann_end.match_id and r.status != "running"
                ]
            )
            assert row[0].ladder is None and row[0].status == "finished"

    asyncio.run(scenario())


def test_a_result_for_an_absent_bot_from_the_flags_reaches_both(store_url):
    """The store keeps no mail for a bot it does not know: that must not stop the result from
    reaching the other seat, and the absent bot still gets it when it comes back."""
    quick = convert.time_control_to_pb(TimeControl(base=5.0, per_decision=0.3))

    async def scenario() -> None:
        async with ladder_lab(store_url, BOTS, flag_bots={"flagged": "flag-token"}) as lab:
            flagged, ann = await lab.connect("flagged"), await lab.connect("ann")
            for bot in (flagged, ann):
                spec = convert.spec_to_pb("torrent", {"size": 5})
                await bot.send(seek=pb.Seek(spec=spec, time_control=quick))
            await lab.watch.until(lambda w: len(w.started) == 1)
            await flagged.close()  # away: its clock runs out
            [ended] = await ann.play()
            assert ended.result.reason == cpb.END_REASON_TIMEOUT
            back = await lab.connect("flagged")
            assert list(back.welcome.ended_match_ids) == [ended.match_id]
            assert (await back.expect("match_ended")).match_id == ended.match_id

    asyncio.run(scenario())


# --- tokens and enablement, read from the store while the arbiter runs ---------------------------
def test_a_disabled_bot_is_refused_and_enabling_it_works_without_a_restart(store_url):
    async def scenario() -> None:
        async with ladder_lab(store_url, BOTS) as lab:
            lab.store.set_bot_enabled("ann", False)
            refused = await lab.connect("ann", welcome=False)
            code, reason = _refusal(await refused.status_at_end())
            assert (code, reason) == (grpc.StatusCode.PERMISSION_DENIED, "BOT_DISABLED")
            assert "ann" not in lab.arbiter.sessions.sessions
            lab.store.set_bot_enabled("ann", True)
            ann = await lab.connect("ann")
            assert ann.welcome.bot_name == "ann"

    asyncio.run(scenario())


def test_tokens_added_and_rotated_while_running_take_effect_at_once(store_url):
    async def scenario() -> None:
        async with ladder_lab(store_url, BOTS) as lab:
            lab.tokens["newbie"] = lab.store.add_bot("newbie", "owner of newbie")
            newbie = await lab.connect("newbie")
            assert newbie.welcome.bot_name == "newbie"
            await newbie.close()

            old = lab.tokens["ben"]
            lab.tokens["ben"] = lab.store.rotate_token("ben")
            stale = LadderBot(lab.address, old)
            lab.bots.append(stale)
            assert _refusal(await stale.status_at_end()) == (grpc.StatusCode.UNAUTHENTICATED, "BAD_TOKEN")
            ben = await lab.connect("ben")
            assert ben.welcome.bot_name == "ben"

    asyncio.run(scenario())


# --- versions ----------------------------------------------------------------------------------
def test_the_bot_version_is_echoed_and_a_bad_one_ends_the_call(store_url):
    async def scenario() -> None:
        async with ladder_lab(store_url, BOTS) as lab:
            longest = "v" * 64
            for version, shown in (("2.0.1-rc+build.7", None), (longest, None), (None, UNVERSIONED)):
                bot = await lab.connect("ann", version)
                assert bot.welcome.bot_version == (shown or version)
                await bot.join(LADDER)
                assert (await bot.expect("ladder_joined")).bot_version == (shown or version)
                await bot.close()
            # (A tab or non-ASCII text is no legal metadata value: gRPC itself refuses to send it.)
            for bad in ("has space", "v" * 65, " ", "x" * 1000):
                bot = await lab.connect("ann", bad, welcome=False)
                code, reason = _refusal(await bot.status_at_end())
                assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, "BAD_REQUEST"), bad

    asyncio.run(scenario())


# --- leaving -----------------------------------------------------------------------------------
def test_leaving_stops_scheduling_and_the_running_match_finishes(store_url):
    async def scenario() -> None:
        async with ladder_lab(store_url, BOTS) as lab:
            ann, ben, cat = [await lab.connect(name) for name in ("ann", "ben", "cat")]
            for bot in (ann, ben):
                await bot.join(LADDER)
            await lab.watch.until(lambda w: len(w.started) == 1)
            await cat.join(LADDER)  # waits: both others are playing
            await ann.leave(LADDER)
            await asyncio.sleep(0.1)
            [ann_end], [_ben_end] = await asyncio.gather(ann.play(), ben.play())
            assert ann_end.result.reason != cpb.END_REASON_ABORTED
            # The next match is ben's and cat's; ann, who left, gets none.
            await lab.watch.until(lambda w: len(w.started) == 2)
            assert set(lab.watch.started[1].facts.bots.values()) == {"ben", "cat"}
            await asyncio.sleep(0.2)
            assert len(lab.watch.started_for("ann")) == 1
            assert [row.status for row in lab.store.matches(LADDER, bot="ann")] == ["finished"]

    asyncio.run(scenario())


def test_disconnecting_leaves(store_url):
    async def scenario() -> None:
        async with ladder_lab(store_url, BOTS) as lab:
            ann = await lab.connect("ann")
            await ann.join(LADDER)
            await ann.expect("ladder_joined")
            assert lab.arbiter.ladders.joined_count(LADDER) == 1
            await ann.close()
            for _ in range(50):
                if "ann" not in lab.arbiter.sessions.sessions:
                    break
                await asyncio.sleep(0.02)
            assert lab.arbiter.ladders.joined_count(LADDER) == 0
            ben = await lab.connect("ben")
            await ben.join(LADDER)
            await ben.expect("ladder_joined")
            await asyncio.sleep(0.2)
            assert lab.watch.started == []  # nobody to play: ann left when she disconnected
            ann = await lab.connect("ann")
            await ann.join(LADDER)
            await lab.watch.until(lambda w: len(w.started) == 1)

    asyncio.run(scenario())


@pytest.mark.parametrize("how", ["leave", "reconnect"])
def test_running_matches_fill_the_slots_of_a_bot_that_joins_again(store_url, how):
    """A bot that leaves (or reconnects) and joins again while its match runs: still one slot."""

    async def scenario() -> None:
        async with ladder_lab(store_url, BOTS) as lab:
            ann, ben = await lab.connect("ann"), await lab.connect("ben")
            await ann.join(LADDER, max_concurrent=1)
            await ben.join(LADDER, max_concurrent=2)  # a free slot left: ann is the one to fill it
            await lab.watch.until(lambda w: len(w.started) == 1)
            match_id = lab.watch.started[0].facts.match_id
            if how == "leave":
                await ann.leave(LADDER)
            else:
                await ann.close()
                ann = await lab.connect("ann")
                assert list(ann.welcome.resumed_match_ids) == [match_id]
            await ann.join(LADDER, max_concurrent=1)
            await ann.expect("ladder_joined", skip=("match_started", "turn"))
            await asyncio.sleep(0.2)
            assert len(lab.watch.started) == 1 and lab.watch.peak["ann"] == 1
            # Once the match is over, ann's slot is free again (turns sent already are sent
            # again after a resume).
            if how == "reconnect":
                ann = await lab.connect("ann")
                await ann.join(LADDER, max_concurrent=1)
            await asyncio.gather(ann.play(known=[match_id]), ben.play())
            await lab.watch.until(lambda w: len(w.started) == 2)
            assert max(lab.watch.peak.values()) <= 2 and lab.watch.peak["ann"] == 1

    asyncio.run(scenario())


# --- challenges --------------------------------------------------------------------------------
async def _quiet_pair(lab) -> tuple[LadderBot, LadderBot, LadderBot, LadderBot]:
    """ann and ben joined with free slots and nothing scheduled for them: they have just played
    each other and the scheduler holds the rematch back while cat and dan are playing."""
    ann, ben, cat, dan = [await lab.connect(name) for name in ("ann", "ben", "cat", "dan")]
    for bot in (ann, ben):
        await bot.join(LADDER)
    await lab.watch.until(lambda w: len(w.started) == 1)
    for bot in (cat, dan):
        await bot.join(LADDER)
    await lab.watch.until(lambda w: len(w.started) == 2)
    await asyncio.gather(ann.play(), ben.play())
    await asyncio.sleep(0.2)
    assert len(lab.watch.started) == 2
    return ann, ben, cat, dan


def test_a_challenge_starts_a_match_between_exactly_those_two(store_url):
    async def scenario() -> None:
        async with ladder_lab(store_url, BOTS) as lab:
            ann, ben, _cat, _dan = await _quiet_pair(lab)
            await ann.challenge(LADDER, "ben", challenge_id="c-1")
            await lab.watch.until(lambda w: len(w.started) == 3)
            challenged = lab.watch.started[2]
            assert set(challenged.facts.bots.values()) == {"ann", "ben"}
            assert challenged.facts.ladder == LADDER and challenged.facts.rated
            started = await ann.expect("match_started")
            assert started.opponent_name == "ben" and started.ladder == LADDER
            # Seats balanced: the first match's seat 1 is seat 2 now.
            first = lab.watch.started[0].facts.bots
            assert (challenged.facts.bots[1], challenged.facts.bots[2]) == (first[2], first[1])
            # No free slot (the challenge match runs): refused, with the challenge id.
            await ben.challenge(LADDER, "ann", challenge_id="c-2")
            rejected = await ben.expect("ladder_rejected", skip=("match_started", "turn"))
            assert (reason_of(rejected.status), rejected.challenge_id) == ("CHALLENGE_REFUSED", "c-2")
            assert rejected.status.code == code_pb2.FAILED_PRECONDITION
            await asyncio.sleep(0.2)
            assert len(lab.watch.started) == 3

    asyncio.run(scenario())


def test_challenges_to_bots_not_joined_are_refused(store_url):
    async def scenario() -> None:
        async with ladder_lab(store_url, BOTS) as lab:
            ann, _ben, _cat, _dan = await _quiet_pair(lab)
            eve = await lab.connect("eve")  # connected, not joined
            for opponent in ("eve", "nobody", "ann"):
                await ann.challenge(LADDER, opponent, challenge_id=opponent)
                rejected = await ann.expect("ladder_rejected")
                assert reason_of(rejected.status) == "CHALLENGE_REFUSED" and rejected.challenge_id == opponent
                assert rejected.ladder == LADDER
            # A challenger that is not joined itself is refused too.
            await eve.challenge(LADDER, "ann", challenge_id="from-eve")
            rejected = await eve.expect("ladder_rejected")
            assert reason_of(rejected.status) == "CHALLENGE_REFUSED"
            await eve.challenge("no-such-ladder", "ann")
            assert reason_of((await eve.expect("ladder_rejected")).status) == "LADDER_NOT_FOUND"
            assert len(lab.watch.started) == 2

    asyncio.run(scenario())


def test_challenges_beyond_the_daily_limit_are_resource_exhausted(store_url):
    limit = ladder_host.CHALLENGES_PER_PAIR_PER_DAY

    async def scenario() -> None:
        async with ladder_lab(store_url, BOTS) as lab:
            ann, ben, _cat, _dan = await _quiet_pair(lab)
            for sent in range(limit):
                await ann.challenge(LADDER, "ben", challenge_id=f"c{sent}")
                await asyncio.gather(ann.play(), ben.play())
            assert len(lab.watch.started) == 2 + limit
            await ann.challenge(LADDER, "ben", challenge_id="one-too-many")
            rejected = await ann.expect("ladder_rejected")
            assert reason_of(rejected.status) == "RESOURCE_EXHAUSTED"
            assert rejected.status.code == code_pb2.RESOURCE_EXHAUSTED
            assert rejected.challenge_id == "one-too-many"
            # The limit is per pair and direction: ben may still challenge ann.
            await ben.challenge(LADDER, "ann")
            await lab.watch.until(lambda w: len(w.started) == 3 + limit)
            pairs = [set(e.facts.bots.values()) for e in lab.watch.started]
            assert pairs.count({"ann", "ben"}) == 2 + limit  # the first scheduled match, the challenges

    asyncio.run(scenario())


def test_a_challenge_match_counts_like_any_ladder_match(store_url):
    """A challenge match is a ladder match: rated, written, its result sent after the commit."""

    async def scenario() -> None:
        async with ladder_lab(store_url, BOTS) as lab:
            ann, ben, _cat, _dan = await _quiet_pair(lab)
            await ann.challenge(LADDER, "ben")
            [ann_end], [ben_end] = await asyncio.gather(ann.play(), ben.play())
            assert ann_end.match_id == ben_end.match_id
            row = next(r for r in lab.store.matches(LADDER, limit=100) if r.match_id == ann_end.match_id)
            assert row.status == "finished" and row.rated
            ratings = {r.version.bot: r.tally.games for r in lab.store.ratings(LADDER)}
            assert ratings["ann"] == ratings["ben"] == 2

    asyncio.run(scenario())
