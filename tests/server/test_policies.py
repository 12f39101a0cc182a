"""Illegal and malformed actions under each policy; clocks and timeouts under each policy."""

import asyncio
import time

from arbiter.match.match import no_lag
from arbiter_games.hexflank import Place
from arbiter_games.policy import MatchPolicy
from arbiter_games.timecontrol import TimeControl
from arbiter_wire.reasons import reason_of
from arbiter_wire.v1 import bot_service_pb2 as pb
from arbiter_wire.v1 import common_pb2 as cpb
from arbiter_wire.v1 import flank_pb2 as fpb

from .raw_client import play_out, running_server
from .test_answers import start_torrent

MALFORMED = pb.Action(flank=fpb.FlankAction(place=fpb.FlankPlace(point="E5")))


def test_illegal_action_forfeits_by_default():
    async def scenario():
        async with running_server() as server:
            alice, bob, match_id = await start_torrent(server)
            turn = await alice.expect("turn")
            await alice.move(match_id, turn.turn_id, Place("a1"))  # off the size-5 board
            rejected = await alice.expect("move_rejected")
            ended = await alice.expect("match_ended")
            bob_end = await bob.expect("match_ended")
            await alice.close()
            await bob.close()
            return rejected, ended, bob_end

    rejected, ended, bob_end = asyncio.run(scenario())
    assert reason_of(rejected.status) == "ILLEGAL_ACTION" and not rejected.may_retry
    assert "not on the size-5 board" in rejected.status.message
    assert ended.result.reason == cpb.END_REASON_ILLEGAL_ACTION
    assert ended.result.winner_seat == cpb.SEAT_2 and ended.result.faulty_seat == cpb.SEAT_1
    assert bob_end.result == ended.result


def test_malformed_action_forfeits_by_default():
    async def scenario():
        async with running_server() as server:
            alice, bob, match_id = await start_torrent(server)
            turn = await alice.expect("turn")
            await alice.move(match_id, turn.turn_id, MALFORMED)
            rejected = await alice.expect("move_rejected")
            ended = await alice.expect("match_ended")
            await alice.close()
            await bob.close()
            return rejected, ended

    rejected, ended = asyncio.run(scenario())
    assert reason_of(rejected.status) == "MALFORMED_ACTION"
    assert ended.result.reason == cpb.END_REASON_MALFORMED_ACTION


def test_reject_policy_lets_the_bot_answer_again():
    async def scenario():
        async with running_server(policy=MatchPolicy(on_illegal="reject")) as server:
            alice, bob, match_id = await start_torrent(server)
            turn = await alice.expect("turn")
            await alice.move(match_id, turn.turn_id, MALFORMED)
            first = await alice.expect("move_rejected")
            await alice.move(match_id, turn.turn_id, Place("a1"))
            second = await alice.expect("move_rejected")
            await alice.move(match_id, turn.turn_id, Place("e5"))
            bob_turn = await bob.expect("turn")
            await alice.close()
            await bob.close()
            return first, second, bob_turn

    first, second, bob_turn = asyncio.run(scenario())
    assert reason_of(first.status) == "MALFORMED_ACTION" and first.may_retry
    assert reason_of(second.status) == "ILLEGAL_ACTION" and second.may_retry
    board = bob_turn.observation.flank.board
    assert board.split("/")[4] == "....B...." and board.count("B") == 1 and "W" not in board


def test_slow_bot_loses_on_time():
    async def scenario():
        control = TimeControl(base=None, per_decision=0.3)
        async with running_server(control=control) as server:
            alice, bob, match_id = await start_torrent(server)
            turn = await alice.expect("turn")
            assert 0.25 < turn.decision_limit.ToTimedelta().total_seconds() <= 0.3
            started = time.monotonic()
            rejected = await alice.expect("move_rejected")  # CLOCK_EXPIRED, sent by the arbiter
            waited = time.monotonic() - started
            ended = await alice.expect("match_ended")
            await alice.move(match_id, turn.turn_id, Place("e5"))  # too late
            late = await alice.expect("move_rejected")
            await alice.close()
            await bob.close()
            return rejected, waited, ended, late

    rejected, waited, ended, late = asyncio.run(scenario())
    assert reason_of(rejected.status) == "CLOCK_EXPIRED"
    assert 0.25 < waited < 5
    assert ended.result.reason == cpb.END_REASON_TIMEOUT
    assert ended.result.winner_seat == cpb.SEAT_2 and ended.result.faulty_seat == cpb.SEAT_1
    assert reason_of(late.status) == "STALE_TURN"


def test_fast_bot_is_never_flagged():
    """Answers that take 1/20 of a 1 s cap, a whole game long: no timeout."""

    async def scenario():
        control = TimeControl(base=None, per_decision=1.0)
        async with running_server(control=control) as server:
            alice, bob, _ = await start_torrent(server)
            ends = await asyncio.gather(play_out(alice, think=0.05), play_out(bob, think=0.05))
            await alice.close()
            await bob.close()
            return ends

    end_a, _ = asyncio.run(scenario())
    assert end_a.result.reason == cpb.END_REASON_TWO_PASSES


def test_timeout_default_action_passes_and_the_game_goes_on():
    async def scenario():
        control = TimeControl(base=None, per_decision=0.2)
        async with running_server(control=control, policy=MatchPolicy(on_timeout="default_action")) as server:
            alice, bob, match_id = await start_torrent(server)
            turn = await alice.expect("turn")
            await alice.move(match_id, turn.turn_id, Place("e5"))
            await bob.expect("turn")  # Bob never answers: the arbiter passes for him
            rejected = await bob.expect("move_rejected")
            alice_turn = await alice.expect("turn")
            await alice.close()
            await bob.close()
            return rejected, alice_turn

    rejected, alice_turn = asyncio.run(scenario())
    assert reason_of(rejected.status) == "CLOCK_EXPIRED"
    assert alice_turn.observation.flank.last_action.WhichOneof("kind") == "pass"


def test_fischer_clock_charges_and_adds_increment():
    async def scenario():
        control = TimeControl(base=5.0, increment=2.0)
        async with running_server(control=control) as server:
            # The bots share the arbiter's loop here: its lag is not credited (test_clock_fairness.py
            # covers the credit), so the time slept is charged in full.
            server.arbiter.hosting.lag = no_lag
            alice, bob, match_id = await start_torrent(server)
            turn = await alice.expect("turn")
            await asyncio.sleep(0.3)
            await alice.move(match_id, turn.turn_id, Place("e5"))
            bob_turn = await bob.expect("turn")
            await alice.close()
            await bob.close()
            return bob_turn

    bob_turn = asyncio.run(scenario())
    clocks = {c.seat: c.remaining.ToTimedelta().total_seconds() for c in bob_turn.clocks}
    assert 5.0 < clocks[cpb.SEAT_1] <= 6.7  # 5 - (at least the 0.3 s slept) + 2
    assert clocks[cpb.SEAT_2] == 5.0
