"""The arbiter's own work per move, without gRPC: a Match driven directly.

    python bench/arbiter_work.py [--games N]

Plays N Torrent-7 games of random moves through ``Match.submit`` with a host that only
serialises the messages, and prints the microseconds per move: applying the move, ``observe``
(with the territory count for the scores), building and serialising the next ``Turn``.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import time
from typing import Any

import _common  # noqa: F401 - puts server/ on the path
from arbiter.hosting.host import LoopScheduler
from arbiter.match.events import MatchEvent, TurnIssued, addressed_seats
from arbiter.match.match import Match, MatchSetup
from arbiter.transport.encode import encode
from arbiter_games.hexflank import PASS, Place
from arbiter_games.timecontrol import TimeControl
from arbiter_wire import convert


class SerialisingHost:
    """Keeps the last Turn; encodes and serialises every message as the transport would."""

    def __init__(self) -> None:
        self.turn: Any = None

    def __call__(self, event: MatchEvent) -> None:
        for seat in addressed_seats(event):
            message = encode(event, seat)
            if message is None:
                continue
            message.SerializeToString()
            if message.HasField("turn"):
                self.turn = message.turn
        if isinstance(event, TurnIssued) and event.delivered is not None:
            event.delivered()


async def play(games: int) -> tuple[int, float]:
    rng = random.Random(1)
    moves = 0
    started = time.perf_counter()
    for number in range(games):
        host = SerialisingHost()
        setup = MatchSetup("torrent", {"size": 7}, {1: "a", 2: "b"}, TimeControl(base=600.0, increment=1.0))
        match = Match(str(number), setup, host, LoopScheduler())
        match.start()
        while match.end is None:
            turn = host.turn
            points = turn.legal.flank.points
            action = Place(points[rng.randrange(len(points))]) if points else PASS
            # As the servicer does: the Move's action arrives as protobuf and is converted.
            domain = convert.action_from_pb("torrent", convert.action_to_pb(action))
            match.submit(convert.SEAT_FROM_PB[turn.seat], turn.turn_id, domain)
            moves += 1
    return moves, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=20)
    args = parser.parse_args()
    moves, seconds = asyncio.run(play(args.games))
    print(f"arbiter work per move (no gRPC): {seconds / moves * 1e6:.0f} us ({moves} moves)")


if __name__ == "__main__":
    main()
