"""Play N random Torrent-7 games as the arbiter does, for bench/flank_instructions.sh.

python bench/flank_games.py N apply|observe|turn-pb|turn-wire

``apply``: list the legal actions and apply a random placement (passing only when no point is
free) until the game ends. ``observe``: the same, plus the observation of the seat to move after
every action (what the arbiter builds for each Turn: board text, events and the scores with
their territory count). Prints the number of plies.

``turn-pb`` and ``turn-wire``: the games played through ``Match.submit`` (a time control of
10 s per decision), each event encoded for its seats as the transport does; ``turn-pb``
builds every Turn as protobuf objects and serialises it (``encode``, ``SerializeToString``),
``turn-wire`` writes its bytes directly (``encode_for_wire``). The outbox's ``ByteSize`` is
asked for in both.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable

import _common  # noqa: F401 - puts the project's code on the path
from arbiter_games.hexflank import PASS, SWAP
from arbiter_games.torrent import TORRENT


class NoTimer:
    def cancel(self) -> None:
        pass


class NoScheduler:
    def call_later(self, delay: float, callback: Callable[[], None]) -> NoTimer:
        return NoTimer()


def play_matches(games: int, wire: bool) -> int:
    """Games through ``Match.submit``, every event encoded as the transport does; the plies."""
    from arbiter.match.events import MatchEvent, addressed_seats
    from arbiter.match.match import Match, MatchSetup
    from arbiter.transport.encode import encode, encode_for_wire
    from arbiter_games.timecontrol import TimeControl

    def transport(event: MatchEvent) -> None:
        for seat in addressed_seats(event):
            if wire:
                encoded = encode_for_wire(event, seat)
                if encoded is not None:
                    encoded.ByteSize()
            else:
                message = encode(event, seat)
                if message is not None:
                    message.ByteSize()
                    message.SerializeToString()

    rng = random.Random(1)
    plies = 0
    for number in range(games):
        setup = MatchSetup("torrent", {"size": 7}, {1: "a", 2: "b"}, TimeControl(per_decision=10.0))
        setup.seed = bytes([number % 256]) * 32  # the same games on every run
        match = Match(str(number), setup, transport, NoScheduler())
        match.start()
        while match.end is None:
            pending = match.pending
            assert pending is not None
            legal = pending.legal
            places = sum(1 for action in legal[-2:] if action is PASS or action is SWAP)
            places = len(legal) - places
            action = legal[int(rng.random() * places)] if places > 0 else PASS
            match.submit(pending.seat, pending.turn_id, action)
            plies += 1
    return plies


def main() -> None:
    games, mode = int(sys.argv[1]), sys.argv[2]
    if mode in ("turn-pb", "turn-wire"):
        print(play_matches(games, wire=mode == "turn-wire"))
        return
    rng = random.Random(1)
    plies = 0
    for _ in range(games):
        state = TORRENT.new_game({"size": 7})
        while not state.over:
            legal = TORRENT.legal_actions(state)
            places = len(legal) - 2 if state.action_count > 1 else len(legal)
            action = legal[int(rng.random() * places)] if places > 0 else PASS
            state = TORRENT.apply(state, action)
            if mode == "observe" and not state.over:
                seat = TORRENT.to_move(state)
                assert seat is not None
                TORRENT.observe(state, seat)
            plies += 1
    print(plies)


if __name__ == "__main__":
    main()
