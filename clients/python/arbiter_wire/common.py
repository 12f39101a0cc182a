"""Wire forms shared by every game: seats, colours, durations, time controls, end reasons, results."""

from __future__ import annotations

from collections.abc import Mapping

from arbiter_games.timecontrol import TimeControl
from google.protobuf.duration_pb2 import Duration

from .v1 import common_pb2 as cpb

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

#: The largest |nanos| of a google.protobuf.Duration.
MAX_NANOS = 999_999_999


def seat_pb(seat: int | None) -> cpb.Seat:
    return SEAT_TO_PB.get(seat, cpb.SEAT_UNSPECIFIED) if seat is not None else cpb.SEAT_UNSPECIFIED


def colour_pb(colour: str | None) -> cpb.Colour:
    return COLOUR_TO_PB.get(colour, cpb.COLOUR_UNSPECIFIED) if colour else cpb.COLOUR_UNSPECIFIED


def colour_from_pb(value: cpb.Colour) -> str | None:
    return COLOUR_FROM_PB.get(value)


def duration_pb(seconds: float | None) -> Duration | None:
    if seconds is None:
        return None
    whole = int(seconds)
    return Duration(seconds=whole, nanos=round((seconds - whole) * 1e9))


def seconds_of(value: Duration) -> float:
    """A Duration as seconds; raises ValueError for one that google.protobuf.Duration forbids."""
    if not -MAX_NANOS <= value.nanos <= MAX_NANOS:
        raise ValueError(f"Duration nanos must be within ±{MAX_NANOS:,}, got {value.nanos}")
    if (value.seconds > 0 and value.nanos < 0) or (value.seconds < 0 and value.nanos > 0):
        raise ValueError("Duration seconds and nanos must have the same sign")
    return float(value.seconds) + value.nanos / 1e9


def seconds_from_pb(message: object, field: str) -> float | None:
    """A Duration field of ``message`` as seconds; None when unset."""
    has_field = getattr(message, "HasField")  # noqa: B009 - any generated message
    if not has_field(field):
        return None
    value: Duration = getattr(message, field)
    return seconds_of(value)


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
