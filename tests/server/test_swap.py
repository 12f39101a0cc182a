"""The pie rule over the wire: the swap changes both seats' colours and the next messages say so."""

import asyncio

from arbiter_games.hexflank import PASS, SWAP, Place
from arbiter_wire.v1 import common_pb2 as cpb

from .raw_client import running_server
from .test_answers import start_torrent


def test_swap_changes_colours_in_the_next_messages():
    async def scenario():
        async with running_server() as server:
            alice, bob, match_id = await start_torrent(server)
            t1 = await alice.expect("turn")
            await alice.move(match_id, t1.turn_id, Place("e5"))
            t2 = await bob.expect("turn")
            await bob.move(match_id, t2.turn_id, SWAP)
            t3 = await alice.expect("turn")
            await alice.move(match_id, t3.turn_id, PASS)
            t4 = await bob.expect("turn")
            await bob.move(match_id, t4.turn_id, PASS)
            end = await alice.expect("match_ended")
            await alice.close()
            await bob.close()
            return t1, t2, t3, t4, end

    t1, t2, t3, t4, end = asyncio.run(scenario())
    assert t1.colour == cpb.COLOUR_BLACK and t2.colour == cpb.COLOUR_WHITE
    assert t2.legal.flank.can_swap and not t1.legal.flank.can_pass
    assert t3.colour == cpb.COLOUR_WHITE and t3.observation.flank.swapped
    assert t4.colour == cpb.COLOUR_BLACK
    result = end.result
    assert result.seat_1_colour == cpb.COLOUR_WHITE and result.seat_2_colour == cpb.COLOUR_BLACK
    assert result.winner_seat == cpb.SEAT_2 and result.winner_colour == cpb.COLOUR_BLACK
    assert (result.seat_1_score, result.seat_2_score) == (0, 1)
