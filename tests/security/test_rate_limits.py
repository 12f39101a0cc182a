"""Rate limits over the wire: RESOURCE_EXHAUSTED with reason RATE_LIMITED and retry_after_ms, as
docs/protocol.md says; a fake clock decides when a bucket refills (no sleeps)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import grpc
from arbiter.node import Arbiter, ArbiterConfig
from arbiter.security.ratelimit import RateLimiter, RateLimits
from arbiter.sessions.auth import BotDirectory
from arbiter.transport.server import RunningServer, create_server
from arbiter_games.timecontrol import TimeControl
from arbiter_wire import convert
from arbiter_wire.reasons import RETRY_AFTER_MS, error_info, reason_of, retry_delay
from arbiter_wire.v1 import bot_service_pb2 as pb
from grpc_status import rpc_status

from tests.server.raw_client import TOKENS, RawBot, connect, play_out


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@contextlib.asynccontextmanager
async def limited_server(limits: RateLimits, clock: Clock) -> AsyncIterator[RunningServer]:
    bots = BotDirectory()
    for name, token in TOKENS.items():
        bots.add(name, token)
    config = ArbiterConfig(
        bots=bots, default_control=TimeControl(base=30.0, increment=1.0), rate_limits=limits
    )
    arbiter = Arbiter(config)
    arbiter.limiter = RateLimiter(limits, clock)
    server = await create_server(config, arbiter=arbiter)
    try:
        yield server
    finally:
        await server.stop(grace=0.5)


async def refusal(bot: RawBot) -> tuple[grpc.StatusCode, object]:
    try:
        await bot.next()
    except grpc.aio.AioRpcError as err:
        return err.code(), rpc_status.from_call(err)
    finally:
        await bot.close()
    raise AssertionError("the stream was not refused")


def test_failed_token_checks_per_address_then_even_a_good_token_waits():
    clock = Clock()

    async def scenario():
        async with limited_server(RateLimits.of(bad_tokens=3, lobby=0, requests=0), clock) as server:
            bad = [await refusal(RawBot(server.address, "wrong")) for _ in range(3)]
            good_too_soon = await refusal(RawBot(server.address, TOKENS["alice"]))
            clock.now += 20.0  # 3 per minute: one check back every 20 s
            alice = await connect(server, "alice")
            await alice.close()
            return bad, good_too_soon, dict(server.arbiter.limiter.refusals)

    bad, (code, status), refusals = asyncio.run(scenario())
    assert [(c, reason_of(s)) for c, s in bad] == [(grpc.StatusCode.UNAUTHENTICATED, "BAD_TOKEN")] * 3
    assert code == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert reason_of(status) == "RATE_LIMITED"
    assert error_info(status).metadata[RETRY_AFTER_MS] == "20000"
    assert retry_delay(status) == 20.0
    assert refusals == {"bad_tokens": 1}


def test_a_bot_that_connected_from_the_address_is_not_locked_out_by_others_wrong_tokens():
    clock = Clock()  # frozen: nothing refills

    async def scenario():
        async with limited_server(RateLimits.of(bad_tokens=3, lobby=0, requests=0), clock) as server:
            alice = await connect(server, "alice")  # behind the same address as the guesses
            await alice.close()
            bad = [await refusal(RawBot(server.address, "wrong")) for _ in range(5)]
            alice = await connect(server, "alice")  # a valid token: checked, accepted
            welcomed = alice.received[0].WhichOneof("kind")
            await alice.close()
            bob_new_here = await refusal(RawBot(server.address, TOKENS["bob"]))
            return bad, welcomed, bob_new_here

    bad, welcomed, (bob_code, bob_status) = asyncio.run(scenario())
    codes = [code for code, _ in bad]
    assert codes == [grpc.StatusCode.UNAUTHENTICATED] * 3 + [grpc.StatusCode.RESOURCE_EXHAUSTED] * 2
    assert welcomed == "welcome"
    # A token never seen from this address waits as the guesses do (it cannot be told from one).
    assert bob_code == grpc.StatusCode.RESOURCE_EXHAUSTED and reason_of(bob_status) == "RATE_LIMITED"


def test_seeks_per_bot_per_minute_are_refused_with_the_wait():
    clock = Clock()

    async def scenario():
        async with limited_server(RateLimits.of(bad_tokens=0, lobby=2, requests=0), clock) as server:
            alice = await connect(server, "alice")
            answers = []
            for n in range(3):
                seek = pb.Seek(spec=convert.spec_to_pb("torrent", {"size": 5 + 2 * n}), seek_id=f"s{n}")
                await alice.call.write(pb.PlayRequest(seek=seek))
                answers.append(await alice.next())
            clock.now += 30.0  # 2 per minute: one seek back every 30 s
            seek = pb.Seek(spec=convert.spec_to_pb("fravan", {}), seek_id="later")
            await alice.call.write(pb.PlayRequest(seek=seek))
            answers.append(await alice.next())
            await alice.close()
            return answers

    answers = asyncio.run(scenario())
    assert [a.WhichOneof("kind") for a in answers] == [
        "seek_pending",
        "seek_pending",
        "seek_rejected",
        "seek_pending",
    ]
    rejected = answers[2].seek_rejected
    assert rejected.seek_id == "s2"
    assert rejected.status.code == 8  # google.rpc.Code.RESOURCE_EXHAUSTED
    assert reason_of(rejected.status) == "RATE_LIMITED"
    assert error_info(rejected.status).metadata[RETRY_AFTER_MS] == "30000"
    # As docs/protocol.md quotes it:
    quoted = "too many requests: try again in 30.000 s (docs/protocol.md, Rate limits)"
    assert rejected.status.message == quoted
    assert retry_delay(rejected.status) == 30.0


def test_ladder_requests_get_a_ladder_rejected():
    clock = Clock()

    async def scenario():
        async with limited_server(RateLimits.of(bad_tokens=0, lobby=0, requests=1), clock) as server:
            alice = await connect(server, "alice")
            await alice.call.write(pb.PlayRequest(leave_ladder=pb.LeaveLadder(ladder="x")))
            first = await alice.next()  # no ladders here: LADDER_NOT_FOUND
            challenge = pb.Challenge(ladder="x", opponent="bob", challenge_id="c1")
            await alice.call.write(pb.PlayRequest(challenge=challenge))
            second = await alice.next()
            await alice.close()
            return first, second

    first, second = asyncio.run(scenario())
    assert reason_of(first.ladder_rejected.status) == "LADDER_NOT_FOUND"
    assert reason_of(second.ladder_rejected.status) == "RATE_LIMITED"
    assert second.ladder_rejected.challenge_id == "c1"
    assert error_info(second.ladder_rejected.status).metadata[RETRY_AFTER_MS] == "1000"


def test_requests_beyond_play_are_limited_but_moves_answering_turns_never():
    clock = Clock()  # frozen: no bucket refills during the test

    async def scenario():
        limits = RateLimits.of(bad_tokens=0, lobby=0, requests=2)
        async with limited_server(limits, clock) as server:
            alice, bob = await connect(server, "alice"), await connect(server, "bob")
            # Two useless moves use alice's allowance; the third is refused by the limit.
            for n in range(3):
                await alice.call.write(pb.PlayRequest(move=pb.Move(match_id="no-such-match", turn_id=n)))
            useless = [await alice.expect("move_rejected") for _ in range(3)]
            # A seek is a request too (bob's allowance is his own).
            await alice.seek("torrent", {"size": 5})
            limited_seek = await alice.expect("seek_rejected")
            clock.now += 1.0
            await alice.seek("torrent", {"size": 5})
            await bob.seek("torrent", {"size": 5})
            await alice.call.write(pb.PlayRequest(move=pb.Move(match_id="x", turn_id=9)))
            await alice.call.write(pb.PlayRequest(move=pb.Move(match_id="x", turn_id=9)))
            # alice's allowance is spent again and the clock stands still: the whole match is
            # play, and every answer to a turn is taken.
            results = await asyncio.gather(play_out(alice), play_out(bob))
            await alice.close()
            await bob.close()
            rejected = [m.move_rejected for m in alice.received if m.WhichOneof("kind") == "move_rejected"]
            return useless, limited_seek, rejected, results

    useless, limited_seek, rejected, results = asyncio.run(scenario())
    assert [reason_of(r.status) for r in useless] == ["UNKNOWN_MATCH", "UNKNOWN_MATCH", "RATE_LIMITED"]
    assert useless[2].match_id == "no-such-match" and useless[2].turn_id == 2
    assert reason_of(limited_seek.status) == "RATE_LIMITED"
    assert results[0].match_id == results[1].match_id
    assert results[0].result.reason not in ("timeout", "aborted")
    # Only the two bogus moves were refused during the match (one unknown, one over the limit).
    assert [reason_of(r.status) for r in rejected[3:]] == ["UNKNOWN_MATCH", "RATE_LIMITED"]


def test_the_sdk_seeks_again_after_the_wait():
    """Two seeks at once on a lobby limit of 1 per 0.3 s: the second is refused with RATE_LIMITED
    and the SDK sends it again after retry_after_ms instead of giving up."""
    from arbiter.security.ratelimit import Limit
    from arbiter_bot import Bot, run_bot

    class FirstLegal(Bot):
        name = "first-legal"

        def choose(self, observation, legal, context):
            return legal[0]

    async def scenario():
        limits = RateLimits(bad_tokens=None, lobby=Limit(1, 0.3), requests=None)
        bots = BotDirectory()
        for name, token in TOKENS.items():
            bots.add(name, token)
        config = ArbiterConfig(
            bots=bots, default_control=TimeControl(base=30.0, increment=1.0), rate_limits=limits
        )
        server = await create_server(config)
        try:
            runs = [
                run_bot(
                    FirstLegal(),
                    server.address,
                    TOKENS[name],
                    ("torrent", {"size": 5}),
                    games=2,
                    max_concurrent=2,
                    max_reconnects=0,
                )
                for name in ("alice", "bob")
            ]
            summaries = await asyncio.wait_for(asyncio.gather(*runs), 60)
            return summaries, dict(server.arbiter.limiter.refusals)
        finally:
            await server.stop(grace=0.5)

    (alice, bob), refusals = asyncio.run(scenario())
    assert len(alice) == len(bob) == 2
    assert refusals["lobby"] >= 2  # each bot's second seek at least


def test_moves_naming_the_other_seats_pending_turn_count_against_the_request_limit():
    """Issue 20, item 17: only a move answering the bot's own pending turn is free play; one
    naming the opponent's pending turn (its match and turn id, right) is a request like any other."""
    clock = Clock()  # frozen: no bucket refills during the test
    limit = 3

    async def scenario():
        async with limited_server(RateLimits.of(bad_tokens=0, lobby=0, requests=limit), clock) as server:
            alice, bob = await connect(server, "alice"), await connect(server, "bob")
            for bot in (alice, bob):
                await bot.seek("torrent", {"size": 5})
            started = {bot: await bot.expect("match_started") for bot in (alice, bob)}
            mover = alice if started[alice].seat == 1 else bob
            waiting = bob if mover is alice else alice
            turn = await mover.expect("turn")  # the mover's turn is pending, the other's is not
            clock.now += 60.0  # the seeks' requests are forgotten: every bucket is full again
            for _ in range(limit + 1):
                await waiting.call.write(
                    pb.PlayRequest(move=pb.Move(match_id=turn.match_id, turn_id=turn.turn_id))
                )
            refused = [await waiting.expect("move_rejected") for _ in range(limit + 1)]
            await mover.move(turn.match_id, turn.turn_id, convert.legal_from_pb(turn.legal)[0])
            ended = await asyncio.gather(play_out(mover), play_out(waiting))
            for bot in (alice, bob):
                await bot.close()
            return refused, ended

    refused, ended = asyncio.run(scenario())
    reasons = [reason_of(r.status) for r in refused]
    assert reasons[:limit] == ["NOT_YOUR_TURN"] * limit
    assert reasons[limit] == "RATE_LIMITED" and refused[limit].status.code == 8  # RESOURCE_EXHAUSTED
    # The mover's own turn was still its to answer: the match was played out, nobody timed out.
    assert ended[0].result.reason not in ("timeout", "aborted")
