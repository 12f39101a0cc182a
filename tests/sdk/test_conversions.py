"""Wire round trips: every action, legal list and observation the SDK hands a bot survives protobuf."""

from __future__ import annotations

import pytest
from arbiter_bot.bot import TimeControl
from arbiter_bot.client import (
    clocks_from_pb,
    match_info_from_pb,
    summary_from_pb,
    time_control_from_pb,
    time_control_to_pb,
)
from arbiter_games.hexflank import PASS, SWAP, Place
from arbiter_games.surge import SKIP, PlaceStone
from arbiter_wire import convert
from arbiter_wire.v1 import bot_service_pb2 as pb
from arbiter_wire.v1 import common_pb2 as cpb
from google.protobuf.duration_pb2 import Duration

from .helpers import FLANK_GAMES, random_game


@pytest.mark.parametrize(
    ("game", "action"),
    [
        ("torrent", Place("e5")),
        ("torrent", Place("g10")),
        ("fravan", Place("a1")),
        ("torrent", PASS),
        ("fravan", SWAP),
        ("surge", PlaceStone(7, "c2")),
        ("surge", PlaceStone(10, "h8")),
        ("surge", SKIP),
    ],
)
def test_every_action_kind_round_trips(game: str, action: object) -> None:
    message = convert.action_to_pb(action)
    again = pb.Action.FromString(message.SerializeToString())
    assert convert.action_from_pb(game, again) == action


@pytest.mark.parametrize(("game", "size"), FLANK_GAMES)
def test_flank_observations_and_legal_lists_round_trip(game: str, size: int) -> None:
    for seed in range(3):
        for rules, state in random_game(game, {"size": size}, seed):
            for seat in (1, 2):
                obs = rules.observe(state, seat)
                wire = pb.Observation.FromString(convert.observation_to_pb(obs).SerializeToString())
                back = convert.observation_from_pb(game, wire)
                assert back == obs
                assert isinstance(back, type(obs))
                assert getattr(back, "stones", None) == getattr(obs, "stones", None)
            legal = list(rules.legal_actions(state))
            assert convert.legal_from_pb(convert.legal_to_pb(game, legal)) == legal


def test_surge_observations_and_legal_lists_round_trip() -> None:
    seen_face_down = seen_over = False
    for seed in range(20):
        for rules, state in random_game("surge", {}, seed):
            for seat in (1, 2):
                obs = rules.observe(state, seat)
                wire = pb.Observation.FromString(convert.observation_to_pb(obs).SerializeToString())
                back = convert.observation_from_pb("surge", wire)
                assert back == obs
                seen_face_down |= any(v is None for _, _, v in obs.face_down)
                seen_over |= obs.over
            legal = list(rules.legal_actions(state))
            if legal and legal != [SKIP]:
                assert convert.legal_from_pb(convert.legal_to_pb("surge", legal)) == legal
    assert seen_face_down and seen_over


def test_time_control_round_trip() -> None:
    for tc in (TimeControl(60.0, 1.5, 5.0), TimeControl(30.0), TimeControl(per_decision=0.25), TimeControl()):
        assert time_control_from_pb(time_control_to_pb(tc)) == tc
    untimed = time_control_to_pb(TimeControl())
    assert not untimed.HasField("base") and not untimed.HasField("per_decision")


def test_clocks_from_pb() -> None:
    clocks = [
        cpb.Clock(seat=cpb.SEAT_1, remaining=Duration(seconds=12, nanos=500_000_000)),
        cpb.Clock(seat=cpb.SEAT_2),
    ]
    assert clocks_from_pb(clocks) == {1: 12.5, 2: None}


def started(**fields: object) -> pb.MatchStarted:
    base: dict[str, object] = dict(
        match_id="m1",
        spec=convert.spec_to_pb("torrent", {"size": 5}),
        seat=cpb.SEAT_2,
        colour=cpb.COLOUR_WHITE,
        opponent_name="bob",
        time_control=time_control_to_pb(TimeControl(60.0, 1.0)),
        illegal_action_policy=2,
        timeout_policy=2,
    )
    base.update(fields)
    return pb.MatchStarted(**base)  # type: ignore[arg-type]


def test_match_info_from_pb() -> None:
    info = match_info_from_pb(started())
    assert (info.match_id, info.game, dict(info.options), info.seat, info.colour) == (
        "m1",
        "torrent",
        {"size": 5},
        2,
        "white",
    )
    assert info.time_control == TimeControl(60.0, 1.0)
    assert (info.illegal_action_policy, info.timeout_policy) == ("reject", "default_action")
    defaults = match_info_from_pb(started(illegal_action_policy=0, timeout_policy=0))
    assert (defaults.illegal_action_policy, defaults.timeout_policy) == ("forfeit", "loss")


@pytest.mark.parametrize(
    ("winner", "reason", "outcome"),
    [
        (cpb.SEAT_2, cpb.END_REASON_TWO_PASSES, "win"),
        (cpb.SEAT_1, cpb.END_REASON_TIMEOUT, "loss"),
        (cpb.SEAT_UNSPECIFIED, cpb.END_REASON_BOARD_EMPTY, "draw"),
        (cpb.SEAT_UNSPECIFIED, cpb.END_REASON_ABORTED, "aborted"),
    ],
)
def test_summary_outcomes(winner: int, reason: int, outcome: str) -> None:
    info = match_info_from_pb(started())
    ended = pb.MatchEnded(
        match_id="m1",
        seat=cpb.SEAT_2,
        result=cpb.Result(
            winner_seat=winner,  # type: ignore[arg-type]
            seat_1_score=10,
            seat_2_score=12,
            reason=reason,  # type: ignore[arg-type]
            seat_1_colour=cpb.COLOUR_BLACK,
            seat_2_colour=cpb.COLOUR_WHITE,
        ),
        actions=["e5", "swap"],
    )
    summary = summary_from_pb(info, ended)
    assert summary.outcome == outcome
    assert (summary.my_score, summary.opponent_score) == (12, 10)
    assert summary.colour == "white"
    assert summary.actions == ("e5", "swap")
