"""The transport's encoding of a Turn: filled in place for speed, byte for byte the message the
plain constructors build."""

import random

import pytest
from arbiter.match.events import TurnIssued
from arbiter.match.match import Match, MatchSetup
from arbiter.transport.encode import clocks_pb, encode
from arbiter_games.timecontrol import TimeControl
from arbiter_wire import convert
from arbiter_wire.v1 import bot_service_pb2 as pb


class NoTimer:
    def cancel(self) -> None:
        pass


class NoScheduler:
    def call_later(self, delay: float, callback: object) -> NoTimer:
        return NoTimer()


def turn_by_constructors(event: TurnIssued) -> pb.PlayResponse:
    observation = event.observation
    return pb.PlayResponse(
        turn=pb.Turn(
            match_id=event.facts.match_id,
            turn_id=event.turn_id,
            observation=convert.observation_to_pb(observation),
            legal=convert.legal_to_pb(event.facts.game.name, event.legal),
            clocks=clocks_pb(event.clocks),
            decision_limit=convert.duration_pb(event.decision_limit),
            seat=convert.seat_pb(event.seat),
            colour=convert.colour_pb(observation.colour),
        )
    )


CONTROLS = {
    "unlimited": TimeControl(),
    "base and increment": TimeControl(base=61.25, increment=0.5),
    "per decision": TimeControl(per_decision=2.000000001),
}


@pytest.mark.parametrize("game", ["torrent", "fravan", "surge"])
@pytest.mark.parametrize("control", list(CONTROLS), ids=list(CONTROLS))
def test_every_turn_encodes_as_the_constructors_build_it(game: str, control: str) -> None:
    events: list[object] = []
    clock = [10.0]
    setup = MatchSetup(game, {}, {1: "a", 2: "b"}, CONTROLS[control], seed=bytes(32))
    match = Match("m-encode", setup, events.append, NoScheduler(), now=lambda: clock[0])
    match.start()
    rng = random.Random(7)
    while match.end is None:
        pending = match.pending
        assert pending is not None
        clock[0] += rng.random() / 3
        match.submit(pending.seat, pending.turn_id, rng.choice(pending.legal))
    turns = [event for event in events if isinstance(event, TurnIssued)]
    assert len(turns) > 10
    for event in turns:
        fast = encode(event, event.seat)
        assert fast is not None
        assert fast.SerializeToString() == turn_by_constructors(event).SerializeToString()
        assert fast == turn_by_constructors(event)
