"""Conversions between the engines' domain objects and the arbiter.v1 protobuf messages.

Used by the arbiter (domain -> wire) and by the bot SDK (wire -> domain), so both sides
agree by construction.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from google.protobuf.duration_pb2 import Duration

from ..engines import MalformedAction, OptionsError
from ..engines.hexflank import PASS, SWAP, FlankObservation, Pass, Place, Swap
from ..engines.surge import SKIP, PlaceStone, Skip, SurgeObservation
from ..match.timecontrol import TimeControl
from ..v1 import bot_service_pb2 as pb
from ..v1 import common_pb2 as cpb
from ..v1 import flank_pb2 as fpb
from ..v1 import surge_pb2 as spb

GAME_TO_PB: dict[str, cpb.Game] = {
    "torrent": cpb.GAME_TORRENT,
    "fravan": cpb.GAME_FRAVAN,
    "surge": cpb.GAME_SURGE,
}
GAME_FROM_PB = {v: k for k, v in GAME_TO_PB.items()}
COLOUR_TO_PB: dict[str, cpb.Colour] = {
    "black": cpb.COLOUR_BLACK,
    "white": cpb.COLOUR_WHITE,
    "blue": cpb.COLOUR_BLUE,
    "orange": cpb.COLOUR_ORANGE,
}
COLOUR_FROM_PB = {v: k for k, v in COLOUR_TO_PB.items()}
SEAT_TO_PB: dict[int, cpb.Seat] = {1: cpb.SEAT_1, 2: cpb.SEAT_2}
SEAT_FROM_PB = {v: k for k, v in SEAT_TO_PB.items()}
END_REASON_TO_PB: dict[str, cpb.EndReason] = {
    "two_passes": cpb.END_REASON_TWO_PASSES,
    "board_empty": cpb.END_REASON_BOARD_EMPTY,
    "no_change_no_stones": cpb.END_REASON_NO_CHANGE_NO_STONES,
    "no_change_nobody_placed": cpb.END_REASON_NO_CHANGE_NOBODY_PLACED,
    "round_limit": cpb.END_REASON_ROUND_LIMIT,
    "timeout": cpb.END_REASON_TIMEOUT,
    "illegal_action": cpb.END_REASON_ILLEGAL_ACTION,
    "malformed_action": cpb.END_REASON_MALFORMED_ACTION,
    "aborted": cpb.END_REASON_ABORTED,
}
END_REASON_FROM_PB = {v: k for k, v in END_REASON_TO_PB.items()}


def seat_pb(seat: int | None) -> cpb.Seat:
    return SEAT_TO_PB.get(seat, cpb.SEAT_UNSPECIFIED) if seat is not None else cpb.SEAT_UNSPECIFIED


def colour_pb(colour: str | None) -> cpb.Colour:
    return COLOUR_TO_PB.get(colour, cpb.COLOUR_UNSPECIFIED) if colour else cpb.COLOUR_UNSPECIFIED


def colour_from_pb(value: cpb.Colour) -> str | None:
    return COLOUR_FROM_PB.get(value)


# --- durations ----------------------------------------------------------------------------------


def duration_pb(seconds: float | None) -> Duration | None:
    if seconds is None:
        return None
    whole = int(seconds)
    return Duration(seconds=whole, nanos=int(round((seconds - whole) * 1e9)))


def seconds_from_pb(message: Any, field: str) -> float | None:
    """A Duration field as seconds; None when unset."""
    if not message.HasField(field):
        return None
    value: Duration = getattr(message, field)
    return float(value.seconds) + value.nanos / 1e9


def time_control_from_pb(message: cpb.TimeControl) -> TimeControl:
    """A TimeControl message as data; zero or unset durations mean "none"."""
    return TimeControl(
        base=seconds_from_pb(message, "base") or None,
        increment=seconds_from_pb(message, "increment") or 0.0,
        per_decision=seconds_from_pb(message, "per_decision") or None,
    )


def time_control_to_pb(control: TimeControl) -> cpb.TimeControl:
    """A time control as its message."""
    return cpb.TimeControl(
        base=duration_pb(control.base),
        increment=duration_pb(control.increment) if control.increment else None,
        per_decision=duration_pb(control.per_decision),
    )


# --- game specs ----------------------------------------------------------------------------------


def spec_from_pb(spec: cpb.GameSpec) -> tuple[str, dict[str, Any]]:
    """(game name, options) from a GameSpec; raises OptionsError when it does not make sense."""
    game = GAME_FROM_PB.get(spec.game)
    if game is None:
        raise OptionsError("game must be set (GAME_TORRENT, GAME_FRAVAN or GAME_SURGE)")
    which = spec.WhichOneof("options")
    if game == "surge":
        if which not in (None, "surge"):
            raise OptionsError("Surge takes SurgeOptions")
        return game, {}
    if which not in (None, "flank"):
        raise OptionsError(f"{game} takes FlankOptions")
    size = spec.flank.size if which == "flank" else 0
    return game, ({"size": size} if size else {})


def spec_to_pb(game: str, options: Mapping[str, Any]) -> cpb.GameSpec:
    if game == "surge":
        return cpb.GameSpec(game=cpb.GAME_SURGE, surge=cpb.SurgeOptions())
    return cpb.GameSpec(game=GAME_TO_PB[game], flank=cpb.FlankOptions(size=int(options.get("size", 0))))


# --- actions ------------------------------------------------------------------------------------


def action_to_pb(action: Any) -> pb.Action:
    if type(action) is Place:
        return pb.Action(flank=fpb.FlankAction(place=fpb.FlankPlace(point=action.point)))
    if type(action) is Pass:
        flank = fpb.FlankAction()
        getattr(flank, "pass").SetInParent()
        return pb.Action(flank=flank)
    if type(action) is Swap:
        return pb.Action(flank=fpb.FlankAction(swap=fpb.FlankSwap()))
    if type(action) is PlaceStone:
        return pb.Action(
            surge=spb.SurgeAction(place=spb.SurgePlace(value=action.value, square=action.square))
        )
    if type(action) is Skip:
        return pb.Action(surge=spb.SurgeAction(skip=spb.SurgeSkip()))
    raise TypeError(f"not an action: {action!r}")


def action_from_pb(game: str, message: pb.Action) -> Any:
    """The domain action; raises MalformedAction when the message is not one for ``game``."""
    which = message.WhichOneof("game")
    if game in ("torrent", "fravan"):
        if which != "flank":
            raise MalformedAction(f"{game} expects Action.flank, got {which or 'nothing'}")
        kind = message.flank.WhichOneof("kind")
        if kind == "place":
            point = message.flank.place.point
            from ..engines import get_rules

            parsed = get_rules(game).parse_action(point)  # raises MalformedAction for bad names
            if not isinstance(parsed, Place):
                raise MalformedAction(f"{point!r} is not a point name")
            return parsed
        if kind == "pass":
            return PASS
        if kind == "swap":
            return SWAP
        raise MalformedAction("FlankAction has no kind set (place, pass or swap)")
    if which != "surge":
        raise MalformedAction(f"surge expects Action.surge, got {which or 'nothing'}")
    kind = message.surge.WhichOneof("kind")
    if kind == "place":
        place = message.surge.place
        from ..engines.surge import SURGE

        if place.value < 0:  # no text form: "-1@c2" cannot be read
            raise MalformedAction(f"stone value {place.value} is not a number of a stone (1 to 10)")
        return SURGE.parse_action(f"{place.value}@{place.square}")
    if kind == "skip":
        return SKIP
    raise MalformedAction("SurgeAction has no kind set (place or skip)")


def legal_to_pb(game: str, legal: Sequence[Any]) -> pb.LegalActions:
    if game in ("torrent", "fravan"):
        # Placements come first, then PASS and (second action only) SWAP.
        tail = legal[-2:]
        can_pass = any(a is PASS for a in tail)
        can_swap = any(a is SWAP for a in tail)
        points = [a.point for a in legal[: len(legal) - can_pass - can_swap]]
        return pb.LegalActions(flank=fpb.FlankLegal(points=points, can_pass=can_pass, can_swap=can_swap))
    values: list[int] = []
    squares: list[str] = []
    for a in legal:
        if type(a) is PlaceStone:
            if a.value not in values:
                values.append(a.value)
            if a.square not in squares:
                squares.append(a.square)
    return pb.LegalActions(surge=spb.SurgeLegal(values=sorted(values), squares=squares))


def legal_from_pb(message: pb.LegalActions) -> list[Any]:
    which = message.WhichOneof("game")
    if which == "flank":
        out: list[Any] = [Place(p) for p in message.flank.points]
        if message.flank.can_pass:
            out.append(PASS)
        if message.flank.can_swap:
            out.append(SWAP)
        return out
    if which == "surge":
        if not message.surge.values or not message.surge.squares:
            return [SKIP]
        return [PlaceStone(v, s) for v in message.surge.values for s in message.surge.squares]
    return []


# --- observations --------------------------------------------------------------------------------


def observation_to_pb(obs: Any) -> pb.Observation:
    if isinstance(obs, FlankObservation):
        scores = dict(obs.scores)
        last = None if obs.last_action is None else action_to_pb(_flank_action(obs.last_action)).flank
        return pb.Observation(
            flank=fpb.FlankObservation(
                size=obs.size,
                seat=seat_pb(obs.seat),
                colour=colour_pb(obs.colour),
                to_move_seat=seat_pb(obs.to_move_seat),
                to_move_colour=colour_pb(obs.to_move_colour),
                board=obs.board,
                events=obs.events,
                swapped=obs.swapped,
                action_count=obs.action_count,
                last_action=last,
                first_pass_colour=colour_pb(obs.first_pass_colour),
                black_score=scores["black"],
                white_score=scores["white"],
                over=obs.over,
            )
        )
    if isinstance(obs, SurgeObservation):
        return pb.Observation(
            surge=spb.SurgeObservation(
                seat=seat_pb(obs.seat),
                colour=colour_pb(obs.colour),
                round=obs.round,
                rounds_played=obs.rounds_played,
                over=obs.over,
                your_turn=obs.your_turn,
                to_move=colour_pb(obs.to_move),
                first_placer=colour_pb(obs.first_placer),
                face_up=[spb.SurgeStone(square=s, colour=colour_pb(c), value=v) for s, c, v in obs.face_up],
                face_down=[
                    spb.SurgeStone(square=s, colour=colour_pb(c), value=v or 0) for s, c, v in obs.face_down
                ],
                hand=obs.hand,
                supply=obs.supply,
                opponent_hand_size=obs.opponent_hand_size,
                opponent_supply_size=obs.opponent_supply_size,
                blue_score=obs.blue_score,
                orange_score=obs.orange_score,
                removed_blue=obs.removed_blue,
                removed_orange=obs.removed_orange,
            )
        )
    raise TypeError(f"not an observation: {obs!r}")


def _flank_action(text: str) -> Any:
    if text == "pass":
        return PASS
    if text == "swap":
        return SWAP
    return Place(text)


def _flank_action_text(message: fpb.FlankAction) -> str | None:
    kind = message.WhichOneof("kind")
    if kind == "place":
        return str(message.place.point)
    return None if kind is None else str(kind)


def observation_from_pb(game: str, message: pb.Observation) -> Any:
    """The domain observation a bot works with (FlankObservation or SurgeObservation)."""
    which = message.WhichOneof("game")
    if which == "flank":
        o = message.flank
        return FlankObservation(
            game=game,
            size=o.size,
            seat=SEAT_FROM_PB[o.seat],
            colour=COLOUR_FROM_PB[o.colour],
            to_move_seat=SEAT_FROM_PB.get(o.to_move_seat),
            to_move_colour=COLOUR_FROM_PB[o.to_move_colour],
            board=o.board,
            events=tuple(o.events),
            swapped=o.swapped,
            action_count=o.action_count,
            last_action=_flank_action_text(o.last_action) if o.HasField("last_action") else None,
            first_pass_colour=COLOUR_FROM_PB.get(o.first_pass_colour),
            scores=(("black", o.black_score), ("white", o.white_score)),
            over=o.over,
        )
    if which == "surge":
        s = message.surge
        return SurgeObservation(
            seat=SEAT_FROM_PB[s.seat],
            colour=COLOUR_FROM_PB[s.colour],
            round=s.round,
            rounds_played=s.rounds_played,
            over=s.over,
            your_turn=s.your_turn,
            to_move=COLOUR_FROM_PB.get(s.to_move),
            first_placer=COLOUR_FROM_PB[s.first_placer],
            face_up=tuple((st.square, COLOUR_FROM_PB[st.colour], st.value) for st in s.face_up),
            face_down=tuple((st.square, COLOUR_FROM_PB[st.colour], st.value or None) for st in s.face_down),
            hand=tuple(s.hand),
            supply=tuple(s.supply),
            opponent_hand_size=s.opponent_hand_size,
            opponent_supply_size=s.opponent_supply_size,
            blue_score=s.blue_score,
            orange_score=s.orange_score,
            removed_blue=tuple(s.removed_blue),
            removed_orange=tuple(s.removed_orange),
        )
    raise ValueError("Observation has no game set")


# --- results -------------------------------------------------------------------------------------


def result_to_pb(
    reason: str,
    seat_colours: Mapping[int, str],
    scores: Mapping[int, int],
    detail: str = "",
    winner_seat: int | None = None,
    faulty_seat: int | None = None,
) -> cpb.Result:
    """How a match ended: the game's own ending, or a timeout, forfeit or abort."""
    return cpb.Result(
        winner_seat=seat_pb(winner_seat),
        winner_colour=colour_pb(seat_colours.get(winner_seat)) if winner_seat else cpb.COLOUR_UNSPECIFIED,
        seat_1_score=scores.get(1, 0),
        seat_2_score=scores.get(2, 0),
        reason=END_REASON_TO_PB[reason],
        detail=detail,
        faulty_seat=seat_pb(faulty_seat),
        seat_1_colour=colour_pb(seat_colours.get(1)),
        seat_2_colour=colour_pb(seat_colours.get(2)),
    )
