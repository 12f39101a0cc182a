"""Disconnect and resume mid-match; a second connection replaces the first."""

import asyncio

import grpc
import pytest
from arbiter.lobby import FifoMatchmaker
from arbiter.match.match import no_lag
from arbiter.sessions.session import BotSession, Closing
from arbiter_games.hexflank import Place
from arbiter_games.timecontrol import TimeControl
from arbiter_wire import convert
from arbiter_wire.limits import OUTBOX_BYTES_LIMIT, SEEK_LIMIT
from arbiter_wire.reasons import reason_of
from arbiter_wire.v1 import bot_service_pb2 as pb
from arbiter_wire.v1 import common_pb2 as cpb
from grpc_status import rpc_status

from .raw_client import TOKENS, RawBot, connect, play_out, running_server
from .test_answers import start_torrent


def test_disconnect_then_resume_mid_match():
    async def scenario():
        async with running_server(control=TimeControl(base=20.0, increment=0.5)) as server:
            # The bots share the arbiter's loop here: its lag is not credited (test_clock_fairness.py
            # covers the credit), so the time slept is charged in full.
            server.arbiter.hosting.lag = no_lag
            alice, bob, match_id = await start_torrent(server)
            turn = await alice.expect("turn")
            await alice.move(match_id, turn.turn_id, Place("e5"))
            bob_turn = await bob.expect("turn")
            await bob.close()  # Bob vanishes with a turn pending; his clock runs
            await asyncio.sleep(0.3)
            bob2 = RawBot(server.address, TOKENS["bob"])
            welcome = await bob2.expect("welcome")
            started = await bob2.expect("match_started")
            again = await bob2.expect("turn")
            await bob2.move(match_id, again.turn_id, Place("d4"))
            ends = await asyncio.gather(play_out(alice), play_out(bob2))
            await alice.close()
            await bob2.close()
            return welcome, started, bob_turn, again, ends

    welcome, started, bob_turn, again, (end_a, end_b) = asyncio.run(scenario())
    assert list(welcome.resumed_match_ids) == [started.match_id]
    assert started.resumed and started.seat == cpb.SEAT_2
    assert again.turn_id == bob_turn.turn_id
    assert again.observation == bob_turn.observation
    limit_before = bob_turn.decision_limit.ToTimedelta().total_seconds()
    limit_after = again.decision_limit.ToTimedelta().total_seconds()
    assert limit_after < limit_before - 0.25  # the absent bot's clock kept running
    assert end_a.result == end_b.result and end_a.actions[1] == "d4"


def test_second_connection_replaces_the_first():
    async def scenario():
        async with running_server() as server:
            first = await connect(server, "carol")
            second = await connect(server, "carol")
            with pytest.raises(grpc.aio.AioRpcError) as info:
                await first.next()
            status = rpc_status.from_call(info.value)
            alive = server.arbiter.sessions.sessions["carol"]
            await first.close()
            await second.close()
            return info.value.code(), status, alive

    code, status, alive = asyncio.run(scenario())
    assert code == grpc.StatusCode.ABORTED
    assert reason_of(status) == "REPLACED"
    assert "replaced" in status.message
    assert alive is not None


def test_bad_seek_is_rejected_with_a_reason():
    async def scenario():
        async with running_server() as server:
            bot = await connect(server, "alice")
            await bot.seek("torrent", {"size": 4})
            rejected = await bot.expect("seek_rejected")
            await bot.close()
            return rejected

    rejected = asyncio.run(scenario())
    assert reason_of(rejected.status) == "BAD_REQUEST" and "size" in rejected.status.message


def test_seats_alternate_between_the_same_two_bots():
    async def scenario():
        seats = []
        async with running_server() as server:
            alice = await connect(server, "alice")
            bob = await connect(server, "bob")
            for _ in range(3):
                await bob.seek("torrent", {"size": 5})
                await alice.seek("torrent", {"size": 5})
                started = await alice.expect("match_started")
                await bob.expect("match_started")
                seats.append(started.seat)
                await asyncio.gather(play_out(alice), play_out(bob))
            await alice.close()
            await bob.close()
        return seats

    assert asyncio.run(scenario()) == [cpb.SEAT_2, cpb.SEAT_1, cpb.SEAT_2]


def test_result_of_a_match_that_ended_while_away_arrives_after_the_next_welcome():
    async def scenario():
        async with running_server(control=TimeControl(base=None, per_decision=0.3)) as server:
            alice, bob, match_id = await start_torrent(server)
            await alice.expect("turn")
            await alice.close()  # Alice leaves with her turn pending and loses on time
            ended_for_bob = await bob.expect("match_ended")
            alice2 = RawBot(server.address, TOKENS["alice"])
            welcome = await alice2.expect("welcome")
            ended_for_alice = await alice2.expect("match_ended")
            await alice2.close()
            await bob.close()
            return welcome, ended_for_alice, ended_for_bob, match_id

    welcome, ended_for_alice, ended_for_bob, match_id = asyncio.run(scenario())
    assert list(welcome.resumed_match_ids) == []
    assert list(welcome.ended_match_ids) == [match_id]
    assert ended_for_alice.match_id == match_id
    assert ended_for_alice.result == ended_for_bob.result
    assert ended_for_alice.result.reason == cpb.END_REASON_TIMEOUT


def test_welcome_and_seek_ids():
    async def scenario():
        async with running_server(control=TimeControl(base=42.0, increment=0.5)) as server:
            alice = RawBot(server.address, TOKENS["alice"])
            welcome = await alice.expect("welcome")
            bob = await connect(server, "bob")
            seek = pb.Seek(spec=convert.spec_to_pb("torrent", {"size": 5}), seek_id="a-1")
            await alice.call.write(pb.PlayRequest(seek=seek))
            bad = pb.Seek(spec=convert.spec_to_pb("torrent", {"size": 11}), seek_id="b-bad")
            await bob.call.write(pb.PlayRequest(seek=bad))
            rejected = await bob.expect("seek_rejected")
            good = pb.Seek(spec=convert.spec_to_pb("torrent", {"size": 5}), seek_id="b-2")
            await bob.call.write(pb.PlayRequest(seek=good))
            started_a = await alice.expect("match_started")
            started_b = await bob.expect("match_started")
            await alice.close()
            await bob.close()
            return welcome, rejected, started_a, started_b

    welcome, rejected, started_a, started_b = asyncio.run(scenario())
    assert welcome.server_version and welcome.default_time_control.base.seconds == 42
    assert rejected.seek_id == "b-bad"
    assert started_a.seek_id == "a-1" and started_b.seek_id == "b-2"


def test_untimed_seek_is_refused():
    async def scenario():
        async with running_server() as server:
            bot = await connect(server, "alice")
            await bot.seek("torrent", {"size": 5}, control=cpb.TimeControl())
            rejected = await bot.expect("seek_rejected")
            await bot.close()
            return rejected

    rejected = asyncio.run(scenario())
    assert reason_of(rejected.status) == "BAD_REQUEST" and "untimed" in rejected.status.message


def test_open_seeks_are_limited_per_bot():
    async def scenario():
        async with running_server() as server:
            bot = await connect(server, "alice")
            for _ in range(SEEK_LIMIT + 1):
                await bot.seek("torrent", {"size": 5})
            rejected = await bot.expect("seek_rejected")
            await bot.close()
            matchmaker = server.arbiter.matchmaker
            assert isinstance(matchmaker, FifoMatchmaker)
            return rejected, matchmaker.queues

    rejected, waiting = asyncio.run(scenario())
    assert reason_of(rejected.status) == "RESOURCE_EXHAUSTED"
    assert not waiting  # the bot's seeks went with its session


def test_a_session_whose_replies_pile_up_unread_is_closed():
    """The outbox of a bot that sends far faster than it reads is bounded in bytes (the writer is
    stuck behind gRPC flow control); past the bound the session closes with RESOURCE_EXHAUSTED."""

    async def scenario():
        session = BotSession("alice")
        message = pb.PlayResponse(move_acknowledged=pb.MoveAcknowledged(match_id="m" * 60_000, turn_id=1))
        sent = 0
        while not session.closed:
            session.send(message)
            sent += 1
        assert sent == OUTBOX_BYTES_LIMIT // message.ByteSize() + 1  # the bound is in bytes, not messages
        items = []
        while session.pending():
            items.append(await session.next_item())
        return session, items

    session, items = asyncio.run(scenario())
    assert session.closed
    assert len(items) == 1 and isinstance(items[0], Closing) and items[0].reason == "RESOURCE_EXHAUSTED"
