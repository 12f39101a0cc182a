"""Duplicate, stale, out-of-turn and unknown-match answers."""

import asyncio

from arbiter_games.hexflank import Place
from arbiter_wire.reasons import reason_of

from .raw_client import connect, running_server


async def start_torrent(server):
    alice = await connect(server, "alice")
    bob = await connect(server, "bob")
    await alice.seek("torrent", {"size": 5})
    await bob.seek("torrent", {"size": 5})
    started = await alice.expect("match_started")
    await bob.expect("match_started")
    return alice, bob, started.match_id


def test_duplicate_stale_not_your_turn_unknown_match():
    async def scenario():
        async with running_server() as server:
            alice, bob, match_id = await start_torrent(server)
            turn = await alice.expect("turn")
            await alice.move(match_id, turn.turn_id, Place("e5"))
            bob_turn = await bob.expect("turn")
            # A network retry of the accepted move: acknowledged and ignored.
            await alice.move(match_id, turn.turn_id, Place("e5"))
            ack = await alice.expect("move_acknowledged")
            assert ack.turn_id == turn.turn_id
            # The same turn with another action: stale.
            await alice.move(match_id, turn.turn_id, Place("d5"))
            stale = await alice.expect("move_rejected")
            out = [reason_of(stale.status)]
            # Bob answers a turn id that was never issued: stale.
            await bob.move(match_id, bob_turn.turn_id + 7, Place("d5"))
            out.append(reason_of((await bob.expect("move_rejected")).status))
            # Alice moves while it is Bob's turn.
            await alice.move(match_id, bob_turn.turn_id, Place("d5"))
            out.append(reason_of((await alice.expect("move_rejected")).status))
            # An unknown match.
            await alice.move("no-such-match", 1, Place("d5"))
            unknown = await alice.expect("move_rejected")
            out.append(reason_of(unknown.status))
            # Nothing changed: Bob's pending turn is still answerable.
            await bob.move(match_id, bob_turn.turn_id, Place("d5"))
            next_turn = await alice.expect("turn")
            assert next_turn.turn_id == bob_turn.turn_id + 1
            await alice.close()
            await bob.close()
            return out, stale

    reasons, stale = asyncio.run(scenario())
    assert reasons == ["STALE_TURN", "STALE_TURN", "NOT_YOUR_TURN", "UNKNOWN_MATCH"]
    assert not stale.may_retry and stale.status.code != 0
