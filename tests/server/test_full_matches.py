"""A full match of each game over real sockets, its record, and replaying that record."""

import asyncio
import json
import random

import pytest
from arbiter.match.replay import load_record, replay
from arbiter_games.hexflank import Place
from arbiter_wire.v1 import common_pb2 as cpb

from .raw_client import connect, play_out, running_server


@pytest.mark.parametrize("game,options", [("torrent", {"size": 5}), ("fravan", {"size": 5}), ("surge", {})])
def test_full_match_and_record(game, options, tmp_path):
    async def scenario():
        async with running_server(records_dir=tmp_path) as server:
            alice = await connect(server, "alice")
            bob = await connect(server, "bob")
            await alice.seek(game, options)
            await bob.seek(game, options)
            started_a = await alice.expect("match_started")
            started_b = await bob.expect("match_started")
            assert started_a.match_id == started_b.match_id
            assert started_a.seat == cpb.SEAT_1 and started_b.seat == cpb.SEAT_2  # the waiting bot is seat 1
            assert started_a.opponent_name == "bob" and started_b.opponent_name == "alice"
            if game == "surge":
                assert len(started_a.seed_commitment) == 64
            rng = random.Random(5)
            ends = await asyncio.gather(
                play_out(alice, lambda t, legal: rng.choice(legal)),
                play_out(bob, lambda t, legal: rng.choice(legal)),
            )
            await alice.close()
            await bob.close()
            return started_a, ends

    started, (end_a, end_b) = asyncio.run(scenario())
    assert end_a.result == end_b.result
    assert end_a.result.reason != cpb.END_REASON_UNSPECIFIED
    assert list(end_a.actions) == list(end_b.actions)
    files = list(tmp_path.glob("*.json"))
    assert len(files) == 1
    record = load_record(files[0])
    assert record["match_id"] == started.match_id
    assert [a["action"] for a in record["actions"]] == list(end_a.actions)
    assert all(a["charged"] is not None or a["auto"] == "skip" for a in record["actions"])
    report = replay(record)
    assert report.ok, report.problems
    if game == "surge":
        assert end_a.seed == record["seed"]


def test_replay_detects_a_tampered_record(tmp_path):
    async def scenario():
        async with running_server(records_dir=tmp_path) as server:
            alice = await connect(server, "alice")
            bob = await connect(server, "bob")
            await alice.seek("torrent", {"size": 5})
            await bob.seek("torrent", {"size": 5})
            await asyncio.gather(play_out(alice), play_out(bob))
            await alice.close()
            await bob.close()

    asyncio.run(scenario())
    path = next(tmp_path.glob("*.json"))
    record = json.loads(path.read_text())
    record["result"]["winner_seat"] = 3 - record["result"]["winner_seat"]
    assert any("winner" in p for p in replay(record).problems)
    record = json.loads(path.read_text())
    record["actions"][2]["action"] = record["actions"][0]["action"]  # an occupied point
    assert any("refused" in p for p in replay(record).problems)


def test_replay_checks_forfeit_winners_and_refuses_incomplete_records(tmp_path):
    from arbiter.match.replay import RecordError

    async def scenario():
        async with running_server(records_dir=tmp_path) as server:
            alice = await connect(server, "alice")
            bob = await connect(server, "bob")
            await alice.seek("torrent", {"size": 5})
            await bob.seek("torrent", {"size": 5})
            await alice.expect("match_started")
            turn = await alice.expect("turn")
            await alice.move(turn.match_id, turn.turn_id, Place("a1"))  # illegal: forfeit
            await alice.expect("move_rejected")
            await alice.expect("match_ended")
            await alice.close()
            await bob.close()

    asyncio.run(scenario())
    record = json.loads(next(tmp_path.glob("*.json")).read_text())
    assert record["result"]["reason"] == "illegal_action" and replay(record).ok
    record["result"]["winner_seat"] = record["result"]["faulty_seat"]
    assert any("winner" in p for p in replay(record).problems)
    del record["seed"]
    with pytest.raises(RecordError):
        replay(record)
