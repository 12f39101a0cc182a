"""A bot is never paired with itself: two seeks of the same key from one bot both wait (each
SeekPending counts the waiting seeks), and another bot's seek pairs with the older one."""

import asyncio

from arbiter.lobby import FifoMatchmaker, Seek, SeekKey
from arbiter_games.timecontrol import TimeControl
from arbiter_wire import convert
from arbiter_wire.v1 import bot_service_pb2 as pb

from .raw_client import connect, running_server

KEY = SeekKey.of("torrent", {"size": 5}, TimeControl(base=30.0, increment=1.0))


def test_the_lobby_does_not_pair_a_bot_with_itself():
    lobby = FifoMatchmaker()
    assert lobby.add(Seek("alice", "a1", KEY)) == []
    assert lobby.add(Seek("alice", "a2", KEY)) == []  # the same key, the same bot: it waits
    assert lobby.waiting(KEY) == 2 and lobby.open_seeks("alice") == 2
    for n in range(3, 6):
        assert lobby.add(Seek("alice", f"a{n}", KEY)) == []
    assert lobby.waiting(KEY) == 5

    [pairing] = lobby.add(Seek("bob", "b1", KEY))
    assert {seek.bot for seek in pairing.seats.values()} == {"alice", "bob"}
    assert {seek.seek_id for seek in pairing.seats.values()} == {"a1", "b1"}  # alice's oldest
    assert lobby.waiting(KEY) == 4 and lobby.open_seeks("alice") == 4


def test_a_bot_is_not_paired_with_its_own_waiting_seek_among_others():
    lobby = FifoMatchmaker()
    lobby.add(Seek("carol", "c1", KEY))
    lobby.add(Seek("carol", "c2", KEY))
    lobby.add(Seek("alice", "a1", KEY))  # pairs with carol's oldest
    assert lobby.waiting(KEY) == 1
    assert lobby.add(Seek("carol", "c3", KEY)) == []  # only carol's own seek waits: no match
    [pairing] = lobby.add(Seek("bob", "b1", KEY))
    assert {s.seek_id for s in pairing.seats.values()} == {"c2", "b1"}
    assert lobby.waiting(KEY) == 1 and lobby.open_seeks("carol") == 1


def _seek(seek_id):
    spec = convert.spec_to_pb("torrent", {"size": 5})
    return pb.PlayRequest(seek=pb.Seek(spec=spec, seek_id=seek_id))


def test_two_seeks_of_one_bot_over_the_wire_wait_and_say_so():
    async def scenario():
        async with running_server() as server:
            alice = await connect(server, "alice")
            await alice.call.write(_seek("first"))
            one = await alice.expect("seek_pending")
            await alice.call.write(_seek("second"))
            two = await alice.next()  # a match with herself would come here instead
            assert two.WhichOneof("kind") == "seek_pending", two
            assert len(server.arbiter.hosting.matches) == 0
            bob = await connect(server, "bob")
            await bob.call.write(_seek("bob-1"))
            started_bob = await bob.expect("match_started")
            started_alice = await alice.expect("match_started")
            matches = list(server.arbiter.hosting.matches.values())
            await alice.close()
            await bob.close()
            return one, two, started_alice, started_bob, matches

    one, two, started_alice, started_bob, matches = asyncio.run(scenario())
    assert one.seek_id == "first" and one.waiting == 1
    assert two.seek_pending.seek_id == "second" and two.seek_pending.waiting == 2
    assert convert.spec_from_pb(two.seek_pending.spec) == ("torrent", {"size": 5})
    [match] = matches
    assert sorted(match.bots.values()) == ["alice", "bob"]
    assert started_alice.opponent_name == "bob" and started_bob.opponent_name == "alice"
    assert started_alice.seek_id == "first"  # the older seek is the one answered
    assert started_bob.seek_id == "bob-1"
