"""Defects found by a new user and an outside client, each pinned by a test over a real server."""

from __future__ import annotations

import asyncio

import grpc
from arbiter_games.hexflank import Place
from arbiter_wire import convert
from arbiter_wire.reasons import reason_of
from arbiter_wire.v1 import bot_service_pb2 as pb
from arbiter_wire.v1 import common_pb2 as cpb
from google.protobuf.duration_pb2 import Duration
from google.rpc import status_pb2

from .raw_client import TOKENS, RawBot, connect, running_server


def run(scenario):
    return asyncio.run(scenario())


def test_seeks_with_no_size_size_0_and_size_7_are_the_same_seek():
    async def scenario():
        async with running_server() as server:
            alice = await connect(server, "alice")
            bob = await connect(server, "bob")
            carol = await connect(server, "carol")
            # No options at all, and size 0: both mean the default board (7).
            await alice.call.write(pb.PlayRequest(seek=pb.Seek(spec=cpb.GameSpec(game=cpb.GAME_TORRENT))))
            pending = await alice.expect("seek_pending")
            await bob.seek("torrent", {"size": 7})
            started = [await alice.expect("match_started"), await bob.expect("match_started")]
            await carol.call.write(
                pb.PlayRequest(
                    seek=pb.Seek(spec=cpb.GameSpec(game=cpb.GAME_TORRENT, flank=cpb.FlankOptions(size=0)))
                )
            )
            carol_pending = await carol.expect("seek_pending")
            return pending, started, carol_pending

    pending, started, carol_pending = run(scenario)
    assert pending.waiting == 1 and pending.spec.flank.size == 7
    assert started[0].match_id == started[1].match_id
    assert started[0].spec.flank.size == 7
    assert carol_pending.spec.flank.size == 7 and carol_pending.waiting == 1


def test_a_waiting_seek_is_told_how_many_wait_for_the_same_game():
    async def scenario():
        async with running_server() as server:
            alice = await connect(server, "alice")
            await alice.call.write(
                pb.PlayRequest(seek=pb.Seek(spec=convert.spec_to_pb("surge", {}), seek_id="s1"))
            )
            first = await alice.expect("seek_pending")
            await alice.call.write(
                pb.PlayRequest(seek=pb.Seek(spec=convert.spec_to_pb("surge", {}), seek_id="s2"))
            )
            second = await alice.expect("seek_pending")
            return first, second

    first, second = run(scenario)
    assert (first.seek_id, first.waiting) == ("s1", 1)
    # A bot's two seeks never pair with each other: both wait.
    assert (second.seek_id, second.waiting) == ("s2", 2)


def test_a_duration_with_out_of_range_nanos_is_a_bad_request():
    async def scenario():
        async with running_server() as server:
            alice = await connect(server, "alice")
            out = []
            for nanos in (1_000_000_000, -1_000_000_000, 2_000_000_000):
                control = cpb.TimeControl(base=Duration(seconds=10, nanos=nanos))
                await alice.call.write(
                    pb.PlayRequest(seek=pb.Seek(spec=convert.spec_to_pb("surge", {}), time_control=control))
                )
                out.append(await alice.expect("seek_rejected"))
            # A sign mismatch is no duration either.
            control = cpb.TimeControl(base=Duration(seconds=10, nanos=-5))
            await alice.call.write(
                pb.PlayRequest(seek=pb.Seek(spec=convert.spec_to_pb("surge", {}), time_control=control))
            )
            out.append(await alice.expect("seek_rejected"))
            return out

    rejected = run(scenario)
    assert [reason_of(r.status) for r in rejected] == ["BAD_REQUEST"] * 4
    assert "nanos" in rejected[0].status.message


def test_undecodable_request_bytes_end_the_call_with_invalid_argument():
    async def scenario():
        async with running_server() as server:
            channel = grpc.aio.insecure_channel(server.address)
            play = channel.stream_stream(
                "/arbiter.v1.BotService/Play",
                request_serializer=lambda raw: raw,
                response_deserializer=pb.PlayResponse.FromString,
            )
            call = play(metadata=(("authorization", f"Bearer {TOKENS['alice']}"),))
            first = await call.read()
            await call.write(b"\xff\xff\xff\xff garbage")
            try:
                while await call.read() is not grpc.aio.EOF:
                    pass
            except grpc.aio.AioRpcError:
                pass
            code = await call.code()
            trailers = dict(await call.trailing_metadata())
            status = status_pb2.Status.FromString(trailers["grpc-status-details-bin"])
            await channel.close()
            return first, code, status

    first, code, status = run(scenario)
    assert first.WhichOneof("kind") == "welcome"
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert reason_of(status) == "BAD_REQUEST" and status.code == code.value[0]


def test_a_move_that_cannot_be_decoded_is_refused_as_malformed():
    """A Surge value of more than 4,300 digits cannot become a number; the bot still gets an answer."""

    async def scenario():
        async with running_server() as server:
            alice = await connect(server, "alice")
            bob = await connect(server, "bob")
            await alice.seek("surge")
            await bob.seek("surge")
            started = await alice.expect("match_started")
            await bob.expect("match_started")
            turn = await alice.expect("turn")
            action = pb.Action()
            action.surge.place.value = 7
            action.surge.place.square = "c0" + "1" * 5000
            await alice.move(started.match_id, turn.turn_id, action)
            return await alice.expect("move_rejected")

    rejected = run(scenario)
    assert reason_of(rejected.status) == "MALFORMED_ACTION"
    assert len(rejected.status.message) < 300


def test_an_unknown_match_id_is_not_echoed_in_full():
    async def scenario():
        async with running_server() as server:
            alice = await connect(server, "alice")
            await alice.move("m" * 60_000, 1, Place("e5"))
            return await alice.expect("move_rejected")

    rejected = run(scenario)
    assert reason_of(rejected.status) == "UNKNOWN_MATCH"
    assert len(rejected.status.message) < 200


def test_forfeit_detail_reads_a_malformed_and_an_illegal():
    async def scenario():
        async with running_server() as server:
            alice = await connect(server, "alice")
            bob = await connect(server, "bob")
            await alice.seek("torrent", {"size": 5})
            await bob.seek("torrent", {"size": 5})
            started = await alice.expect("match_started")
            await bob.expect("match_started")
            turn = await alice.expect("turn")
            await alice.move(started.match_id, turn.turn_id, pb.Action())  # nothing set: malformed
            await alice.expect("move_rejected")
            return await alice.expect("match_ended")

    ended = run(scenario)
    assert ended.result.detail.startswith("seat 1 sent a malformed action:")


def test_an_off_board_point_is_cut_short_in_the_refusal_and_the_result():
    async def scenario():
        async with running_server() as server:
            alice = await connect(server, "alice")
            bob = await connect(server, "bob")
            await alice.seek("torrent", {"size": 5})
            await bob.seek("torrent", {"size": 5})
            started = await alice.expect("match_started")
            await bob.expect("match_started")
            turn = await alice.expect("turn")
            await alice.move(started.match_id, turn.turn_id, Place("e" + "1" * 20_000))
            rejected = await alice.expect("move_rejected")
            return rejected, await alice.expect("match_ended")

    rejected, ended = run(scenario)
    assert reason_of(rejected.status) == "ILLEGAL_ACTION"
    assert len(rejected.status.message) < 200 and len(ended.result.detail) < 300


def test_raw_bot_helper_is_a_real_client():
    # Guards the helper the tests above rely on: a wrong token is refused before anything else.
    async def scenario():
        async with running_server() as server:
            bot = RawBot(server.address, "nope")
            try:
                await bot.next()
            except grpc.aio.AioRpcError as exc:
                return exc.code()
            finally:
                await bot.close()
            return None

    assert run(scenario) == grpc.StatusCode.UNAUTHENTICATED
