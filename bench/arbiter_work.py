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
from arbiter.engines.hexflank import PASS, Place
from arbiter.match.match import Match, MatchSetup
from arbiter.match.timecontrol import TimeControl
from arbiter.protocol import convert
from arbiter.v1 import bot_service_pb2 as pb


class SerialisingHost:
    """Keeps the last Turn; serialises every message as the transport would."""

    def __init__(self) -> None:
        self.turn: Any = None

    def send(self, bot_name: str, message: pb.PlayResponse, on_sent: Any = None) -> None:
        message.SerializeToString()
        if message.HasField("turn"):
            self.turn = message.turn
        if on_sent is not None:
            on_sent()

    def match_finished(self, match: Match) -> None:
        pass

    def match_progress(self, match: Match) -> None:
        pass


async def play(games: int) -> tuple[int, float]:
    rng = random.Random(1)
    moves = 0
    started = time.perf_counter()
    for number in range(games):
        host = SerialisingHost()
        setup = MatchSetup("torrent", {"size": 7}, {1: "a", 2: "b"}, TimeControl(base=600.0, increment=1.0))
        match = Match(str(number), setup, host)
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
