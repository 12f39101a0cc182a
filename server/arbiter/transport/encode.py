"""Match events as the PlayResponse messages a seat receives: the one place that builds them."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from arbiter_games.timecontrol import TimeControl
from arbiter_wire import convert, wire
from arbiter_wire.limits import ILLEGAL_POLICY_TO_PB, TIMEOUT_POLICY_TO_PB
from arbiter_wire.status import status_for
from arbiter_wire.v1 import bot_service_pb2 as pb
from arbiter_wire.v1 import common_pb2 as cpb
from arbiter_wire.wire import EncodedResponse
from google.protobuf.duration_pb2 import Duration

from .. import __version__
from ..cluster.member import Placement
from ..ladder.host import JoinAccepted
from ..match.events import (
    ClockReading,
    MatchEnded,
    MatchEvent,
    MatchFacts,
    MatchStarted,
    MoveAcknowledged,
    MoveRefused,
    SeatResumed,
    TurnIssued,
)


def clocks_pb(clocks: ClockReading) -> list[cpb.Clock]:
    return [
        cpb.Clock(seat=convert.seat_pb(seat), remaining=convert.duration_pb(left))
        for seat, left in clocks.items()
    ]


def _set_duration(field: Duration, seconds: float) -> None:
    """``field`` set in place to ``seconds`` (as ``convert.duration_pb`` would build it)."""
    whole = int(seconds)
    field.seconds = whole
    field.nanos = round((seconds - whole) * 1e9)


def _started(
    facts: MatchFacts, seat: int, observation: object, clocks: ClockReading, resumed: bool
) -> pb.PlayResponse:
    colour = getattr(observation, "colour", None)
    return pb.PlayResponse(
        match_started=pb.MatchStarted(
            match_id=facts.match_id,
            spec=convert.spec_to_pb(facts.game.name, facts.options),
            seat=convert.seat_pb(seat),
            colour=convert.colour_pb(colour),
            observation=convert.observation_to_pb(observation),
            opponent_name=facts.bots[3 - seat],
            time_control=convert.time_control_to_pb(facts.control),
            seed_commitment=facts.seed_commitment,
            resumed=resumed,
            timeout_policy=TIMEOUT_POLICY_TO_PB[facts.policy.on_timeout],
            illegal_action_policy=ILLEGAL_POLICY_TO_PB[facts.policy.on_illegal],
            clocks=clocks_pb(clocks),
            seek_id="" if resumed else facts.seek_ids.get(seat, ""),
            ladder=facts.ladder or "",
        )
    )


def _turn(event: TurnIssued) -> pb.PlayResponse:
    # The hot path: filled in place, field by field. Handing built messages to a constructor
    # would copy them once into the Turn and again into the PlayResponse.
    observation = event.observation
    facts = event.facts
    response = pb.PlayResponse()
    turn = response.turn
    turn.match_id = facts.match_id
    turn.turn_id = event.turn_id
    turn.observation.CopyFrom(convert.observation_to_pb(observation))
    turn.legal.CopyFrom(convert.legal_to_pb(facts.game.name, event.legal))
    clocks = turn.clocks
    for seat, left in event.clocks.items():
        clock = clocks.add()
        clock.seat = convert.seat_pb(seat)
        if left is not None:
            _set_duration(clock.remaining, left)
    if event.decision_limit is not None:
        _set_duration(turn.decision_limit, event.decision_limit)
    turn.seat = convert.seat_pb(event.seat)
    turn.colour = convert.colour_pb(observation.colour)
    return response


# Tags of the Turn's fields (bot_service.proto, common.proto) for ``turn_wire``.
_TURN = wire.tag(3, wire.LEN)  # PlayResponse.turn
_MATCH_ID = wire.tag(1, wire.LEN)
_TURN_ID = wire.tag(2, wire.VARINT)
_OBSERVATION = wire.tag(3, wire.LEN)
_LEGAL = wire.tag(4, wire.LEN)
_CLOCK = wire.tag(5, wire.LEN)
_DECISION_LIMIT = wire.tag(6, wire.LEN)
_SEAT = wire.tag(7, wire.VARINT)
_COLOUR = wire.tag(8, wire.VARINT)
_CLOCK_SEAT = wire.tag(1, wire.VARINT)  # Clock.seat
_CLOCK_REMAINING = wire.tag(2, wire.LEN)  # Clock.remaining


def turn_wire(event: TurnIssued) -> EncodedResponse:
    """The ``PlayResponse`` of ``_turn(event)``, serialised: its bytes written directly (the
    hot path; the same bytes, ``tests/server/test_encode.py``)."""
    facts = event.facts
    codec = convert.codec(facts.game.name)
    observation = event.observation
    length_delimited = wire.length_delimited
    scalar = wire.scalar
    parts = [
        wire.text(_MATCH_ID, facts.match_id),
        scalar(_TURN_ID, event.turn_id),
        length_delimited(_OBSERVATION, codec.observation_wire(observation)),
        length_delimited(_LEGAL, codec.legal_wire(event.legal)),
    ]
    for seat, left in event.clocks.items():
        if left is None:  # no game clock: the same bytes every time
            parts.append(_UNTIMED_CLOCKS[seat])
            continue
        clock = _clock_seat(seat) + length_delimited(_CLOCK_REMAINING, wire.duration(left))
        parts.append(length_delimited(_CLOCK, clock))
    limit = event.decision_limit
    if limit is not None:
        # A per-decision cap is the same every turn; a game clock's limit is new each time.
        field = _LIMITS.get(limit)
        if field is None:
            field = length_delimited(_DECISION_LIMIT, wire.duration(limit))
            if len(_LIMITS) < _LIMITS_KEPT:
                _LIMITS[limit] = field
        parts.append(field)
    key = (event.seat, observation.colour)
    tail = _SEATS.get(key)
    if tail is None:
        seat_field = scalar(_SEAT, convert.seat_pb(event.seat))
        tail = _SEATS[key] = seat_field + scalar(_COLOUR, convert.colour_pb(observation.colour))
    parts.append(tail)
    return EncodedResponse(length_delimited(_TURN, b"".join(parts)), "turn")


def _clock_seat(seat: int) -> bytes:
    return wire.scalar(_CLOCK_SEAT, convert.seat_pb(seat))


#: Fields of ``turn_wire`` that take few values, made once: a Clock without a game clock (by
#: seat), the decision limit (by its seconds; at most ``_LIMITS_KEPT`` of them, the first met),
#: the Turn's seat and colour fields (by seat and colour: two seats, each game's two colours).
_UNTIMED_CLOCKS: dict[int, bytes] = {
    seat: wire.length_delimited(_CLOCK, _clock_seat(seat)) for seat in (1, 2)
}
_LIMITS: dict[float, bytes] = {}
_SEATS: dict[tuple[int, str], bytes] = {}
_LIMITS_KEPT = 256


def _ended(event: MatchEnded, seat: int) -> pb.PlayResponse:
    end = event.end
    result = convert.result_to_pb(
        end.reason, event.colours, end.scores, end.detail, end.winner_seat, end.faulty_seat
    )
    return pb.PlayResponse(
        match_ended=pb.MatchEnded(
            match_id=event.facts.match_id,
            result=result,
            final_observation=convert.observation_to_pb(event.observations[seat]),
            seed=event.revealed_seed,
            seat=convert.seat_pb(seat),
            actions=event.actions,
        )
    )


def _refused(event: MoveRefused, seat: int) -> pb.PlayResponse:
    status = status_for(event.reason.value, event.message)
    rejected = pb.MoveRejected(
        match_id=event.facts.match_id, turn_id=event.turn_id, status=status, may_retry=event.may_retry
    )
    return pb.PlayResponse(move_rejected=rejected)


def _acknowledged(event: MoveAcknowledged, seat: int) -> pb.PlayResponse:
    return pb.PlayResponse(
        move_acknowledged=pb.MoveAcknowledged(match_id=event.facts.match_id, turn_id=event.turn_id)
    )


def _match_started(event: MatchStarted, seat: int) -> pb.PlayResponse:
    return _started(event.facts, seat, event.observations[seat], event.clocks, resumed=False)


def _seat_resumed(event: SeatResumed, seat: int) -> pb.PlayResponse:
    return _started(event.facts, seat, event.observation, event.clocks, resumed=True)


#: The message of each kind of event a seat receives (one look-up per event on the hot path).
_ENCODERS: dict[type, Callable[[Any, int], pb.PlayResponse]] = {
    TurnIssued: lambda event, seat: _turn(event),
    MoveRefused: _refused,
    MoveAcknowledged: _acknowledged,
    MatchStarted: _match_started,
    SeatResumed: _seat_resumed,
    MatchEnded: _ended,
}


def encode(event: MatchEvent, seat: int) -> pb.PlayResponse | None:
    """The message ``seat`` receives for ``event`` (None: the event is not for seats)."""
    encoder = _ENCODERS.get(type(event))
    return None if encoder is None else encoder(event, seat)


def encode_for_wire(event: MatchEvent, seat: int) -> pb.PlayResponse | EncodedResponse | None:
    """``encode(event, seat)`` as the transport sends it: a Turn already serialised."""
    if type(event) is TurnIssued:
        return turn_wire(event)
    return encode(event, seat)


def welcome(
    bot_name: str,
    resumed: list[str],
    ended: list[str],
    default_control: TimeControl,
    version: str = "",
    pauses: Mapping[str, str] | None = None,
) -> pb.PlayResponse:
    return pb.PlayResponse(
        welcome=pb.Welcome(
            bot_name=bot_name,
            resumed_match_ids=resumed,
            server_version=__version__,
            default_time_control=convert.time_control_to_pb(default_control),
            ended_match_ids=ended,
            bot_version=version,
            ladder_pauses=[pb.LadderPause(ladder=name, reason=why) for name, why in (pauses or {}).items()],
        )
    )


def ladder_joined(joined: JoinAccepted) -> pb.LadderJoined:
    config = joined.config
    return pb.LadderJoined(
        ladder=config.name,
        spec=convert.spec_to_pb(config.game, config.options),
        time_control=convert.time_control_to_pb(config.control),
        timeout_policy=TIMEOUT_POLICY_TO_PB[config.policy.on_timeout],
        illegal_action_policy=ILLEGAL_POLICY_TO_PB[config.policy.on_illegal],
        rated=config.rated,
        max_concurrent=joined.max_concurrent,
        bot_version=joined.version,
        resumed_from_pause=joined.resumed_from_pause,
    )


_REDIRECT_REASONS = {
    "matches": pb.REDIRECT_REASON_MATCHES,
    "ladder": pb.REDIRECT_REASON_LADDER,
    "draining": pb.REDIRECT_REASON_DRAINING,
}


def redirect(placement: Placement) -> pb.PlayResponse:
    """A cluster's answer: play on the node at ``placement.address`` (docs/cluster.md)."""
    message = pb.Redirect(
        address=placement.address,
        join_token=placement.join_token,
        reason=_REDIRECT_REASONS.get(placement.reason, pb.REDIRECT_REASON_UNSPECIFIED),
        ladder=placement.ladder,
    )
    message.join_token_expires_in.FromSeconds(int(placement.expires_in))
    return pb.PlayResponse(redirect=message)
