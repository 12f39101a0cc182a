"""The event messages of the protocol: EventEntered, EventEnded, and a request's spec read."""

from __future__ import annotations

from arbiter_wire import convert
from arbiter_wire.limits import ILLEGAL_POLICY_TO_PB, TIMEOUT_POLICY_TO_PB
from arbiter_wire.v1 import bot_service_pb2 as pb

from ..eventhost.entries import Entered, Over, Spec
from ..events.model import EventStatus, Format

FORMAT_TO_PB = {
    Format.ROUND_ROBIN: pb.EVENT_FORMAT_ROUND_ROBIN,
    Format.DOUBLE_ROUND_ROBIN: pb.EVENT_FORMAT_DOUBLE_ROUND_ROBIN,
    Format.SWISS: pb.EVENT_FORMAT_SWISS,
    Format.KNOCKOUT: pb.EVENT_FORMAT_KNOCKOUT,
    Format.ARENA: pb.EVENT_FORMAT_ARENA,
}
STATUS_TO_PB = {
    EventStatus.SCHEDULED: pb.EVENT_STATUS_SCHEDULED,
    EventStatus.RUNNING: pb.EVENT_STATUS_RUNNING,
    EventStatus.FINISHED: pb.EVENT_STATUS_FINISHED,
    EventStatus.CANCELLED: pb.EVENT_STATUS_CANCELLED,
}


def event_entered(entered: Entered) -> pb.EventEntered:
    config = entered.config
    message = pb.EventEntered(
        event=config.name,
        spec=convert.spec_to_pb(config.game, config.options),
        time_control=convert.time_control_to_pb(config.control),
        timeout_policy=TIMEOUT_POLICY_TO_PB[config.policy.on_timeout],
        illegal_action_policy=ILLEGAL_POLICY_TO_PB[config.policy.on_illegal],
        format=FORMAT_TO_PB[config.format],
        entrants=entered.entrants,
        seed=entered.seed,
        status=STATUS_TO_PB[entered.status],
    )
    if config.starts_at is not None:
        seconds = int(config.starts_at)
        message.starts_at.seconds = seconds
        message.starts_at.nanos = round((config.starts_at - seconds) * 1e9) % 1_000_000_000
    return message


def event_ended(over: Over) -> pb.EventEnded:
    return pb.EventEnded(
        event=over.event,
        status=STATUS_TO_PB[over.status],
        place=over.place,
        points=over.points,
        entrants=over.entrants,
    )


def entry_spec(request: pb.EnterEvent) -> Spec:
    """The game an EnterEvent says the bot plays (None: it did not say); ValueError if unreadable."""
    if not request.HasField("spec"):
        return None
    game, options = convert.spec_from_pb(request.spec)
    return game, options
