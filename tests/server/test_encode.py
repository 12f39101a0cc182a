"""The transport's encoding of a Turn: filled in place for speed, byte for byte the message the
plain constructors build."""

import random

import pytest
from arbiter.match.events import TurnIssued
from arbiter.match.match import Match, MatchSetup
from arbiter.transport.encode import clocks_pb, encode, encode_for_wire, turn_wire
from arbiter_games import MalformedAction
from arbiter_games.hexflank import PASS, SWAP, FlankObservation, Place
from arbiter_games.timecontrol import TimeControl
from arbiter_wire import convert, wire
from arbiter_wire.flank_codec import FlankCodec
from arbiter_wire.v1 import bot_service_pb2 as pb
from arbiter_wire.v1 import flank_pb2 as fpb
from arbiter_wire.wire import EncodedResponse, serialize_response
from google.protobuf.duration_pb2 import Duration


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


# --- the Turn's bytes written directly (``turn_wire``, the transport's hot path) ---------------


def played_turns(game: str, control: str) -> list[TurnIssued]:
    events: list[object] = []
    clock = [10.0]
    setup = MatchSetup(game, {}, {1: "a", 2: "b"}, CONTROLS[control], seed=bytes(32))
    match = Match("m-wire", setup, events.append, NoScheduler(), now=lambda: clock[0])
    match.start()
    rng = random.Random(11)
    while match.end is None:
        pending = match.pending
        assert pending is not None
        clock[0] += rng.random() * 2
        match.submit(pending.seat, pending.turn_id, rng.choice(pending.legal))
    return [event for event in events if isinstance(event, TurnIssued)]


@pytest.mark.parametrize("game", ["torrent", "fravan", "surge"])
@pytest.mark.parametrize("control", list(CONTROLS), ids=list(CONTROLS))
def test_every_turn_written_directly_has_the_constructors_bytes(game: str, control: str) -> None:
    turns = played_turns(game, control)
    assert len(turns) > 10
    for event in turns:
        written = encode_for_wire(event, event.seat)
        assert isinstance(written, EncodedResponse)
        expected = turn_by_constructors(event).SerializeToString()
        assert written.data == expected
        assert written.ByteSize() == len(expected)
        assert serialize_response(written) == expected
        assert pb.PlayResponse.FromString(written.data) == turn_by_constructors(event)


def test_a_written_turn_answers_what_the_sessions_ask_of_a_message() -> None:
    event = played_turns("torrent", "per decision")[0]
    written = turn_wire(event)
    assert written.HasField("turn") and not written.HasField("match_ended")
    assert written.WhichOneof("kind") == "turn"
    assert written.SerializeToString() == written.data
    message = encode(event, event.seat)
    assert message is not None
    assert serialize_response(message) == message.SerializeToString()


def test_other_events_go_to_the_wire_as_messages() -> None:
    events: list[object] = []
    setup = MatchSetup("torrent", {}, {1: "a", 2: "b"}, TimeControl(), seed=bytes(32))
    match = Match("m-other", setup, events.append, NoScheduler())
    match.start()
    match.abort("stopped")
    for event in events:
        if isinstance(event, TurnIssued):
            continue
        for seat in (1, 2):
            fast = encode_for_wire(event, seat)  # type: ignore[arg-type]
            slow = encode(event, seat)  # type: ignore[arg-type]
            assert (fast is None) == (slow is None)
            if slow is not None:
                assert isinstance(fast, pb.PlayResponse) and fast == slow


def flank_observation(**changes: object) -> FlankObservation:
    base: dict[str, object] = {
        "game": "torrent",
        "size": 3,
        "seat": 1,
        "colour": "black",
        "to_move_seat": 2,
        "to_move_colour": "white",
        "board": "..B/W.../.....",
        "events": (0, 0, 1, 2, 0, 0, 0, 0, 0, 0, 0, 0),
        "swapped": False,
        "action_count": 2,
        "last_action": "c1",
        "first_pass_colour": None,
        "scores": (("black", 3), ("white", 0)),
        "over": False,
    }
    base.update(changes)
    return FlankObservation(**base)  # type: ignore[arg-type]


OBSERVATIONS = {
    "placed": {},
    "passed, over, white first to pass": {"last_action": "pass", "over": True, "first_pass_colour": "white"},
    "swapped": {"last_action": "swap", "swapped": True, "to_move_seat": None},
    "nothing played": {"last_action": None, "action_count": 0, "events": (), "board": ""},
    "event numbers of one, two and three bytes": {"events": (127, 128, 300, 16383, 16384, 2**32 - 1)},
    "event numbers of one and two bytes, all below 256": {"events": (0, 1, 127, 128, 200, 255)},
    "event numbers all below 128": {"events": tuple(range(128))},
    "zero scores, a negative size": {"scores": (("black", 0), ("white", 0)), "size": -7},
    "a negative score": {"scores": (("black", -2), ("white", 5))},
    "a long board text": {"board": "B" * 300},
    "an empty point name": {"last_action": ""},
}


@pytest.mark.parametrize("changes", list(OBSERVATIONS.values()), ids=list(OBSERVATIONS))
def test_flank_observations_written_directly_match_serialising(changes: dict[str, object]) -> None:
    observation = flank_observation(**changes)
    for game in ("torrent", "fravan"):
        codec = convert.codec(game)
        expected = codec.observation_to_pb(observation).SerializeToString()
        for _ in range(2):  # the second time with the fields the codec kept from the first
            assert codec.observation_wire(observation) == expected


def test_a_move_names_each_point_once_read_the_same_every_time() -> None:
    """``action_from_pb`` keeps each point name's ``Place``: the same action every time, what is
    not a placement still refused every time, and no more than a bounded number of names kept."""
    codec = convert.codec("torrent")
    assert isinstance(codec, FlankCodec)
    move = convert.action_to_pb(Place("g7"))
    first, second = convert.action_from_pb("torrent", move), convert.action_from_pb("torrent", move)
    assert first == second == Place("g7")
    for name in ("pass", "swap", "G7", ""):
        bad = pb.Action(flank=fpb.FlankAction(place=fpb.FlankPlace(point=name)))
        for _ in range(2):
            with pytest.raises(MalformedAction):
                codec.action_from_pb(bad)
    for number in range(5_000):  # well-formed names, most of them on no board
        named = pb.Action(flank=fpb.FlankAction(place=fpb.FlankPlace(point=f"a{number}")))
        assert codec.action_from_pb(named) == Place(f"a{number}")
    assert len(codec._places) <= 4_096


def test_a_flank_codec_writes_only_flank_observations() -> None:
    with pytest.raises(TypeError):
        convert.codec("torrent").observation_wire(object())


LEGAL = {
    "placements, pass and swap": [Place("a1"), Place("b2"), PASS, SWAP],
    "placements and pass": [Place("a1"), Place("c3"), PASS],
    "placements only (the first action)": [Place(name) for name in ("a1", "b1", "c1")],
    "pass only": [PASS],
    "nothing (the game is over)": [],
    "a long name": [Place("x" * 200), PASS],
}


@pytest.mark.parametrize("legal", list(LEGAL.values()), ids=list(LEGAL))
def test_flank_legal_actions_written_directly_match_serialising(legal: list[object]) -> None:
    codec = convert.codec("torrent")
    for _ in range(2):  # the second time from the codec's cached point fields
        assert codec.legal_wire(legal) == codec.legal_to_pb(legal).SerializeToString()


DURATIONS = [0.0, 1e-9, 0.5, 2.000000001, 61.25, 599.999999999, 1e6, 0.9999999999, -1.5, -0.25]


@pytest.mark.parametrize("seconds", DURATIONS)
def test_durations_written_directly_match_serialising(seconds: float) -> None:
    duration = convert.duration_pb(seconds)
    assert duration is not None
    assert wire.duration(seconds) == duration.SerializeToString()


def test_varints_match_protobufs_own() -> None:
    assert wire.varint(0) == b"\x00"  # (a zero field is left out of a message: no comparison)
    for value in (1, 127, 128, 255, 300, 16383, 16384, 2**31 - 1, 2**32 - 1, 2**63 - 1):
        assert wire.varint(value) == Duration(seconds=value).SerializeToString()[1:]
    for value in (-1, -2, -(2**31), -(2**63)):
        assert wire.varint(value) == Duration(seconds=value).SerializeToString()[1:]
        assert len(wire.varint(value)) == 10


def test_scalars_on_both_sides_of_the_varint_table_match_protobufs_own() -> None:
    for value in (1, wire.SMALL_LIMIT - 1, wire.SMALL_LIMIT, 10**9, -1):
        assert wire.scalar(b"\x08", value) == Duration(seconds=value).SerializeToString()
    assert wire.scalar(b"\x08", 0) == b""
    assert wire.packed(b"\x72", [wire.SMALL_LIMIT - 1, wire.SMALL_LIMIT, 5]) == (
        b"\x72"
        + bytes([len(b"".join(wire.varint(v) for v in (4095, 4096, 5)))])
        + b"".join(wire.varint(v) for v in (4095, 4096, 5))
    )
