"""A bot in an event (``--event NAME``): it enters once per connection and plays the games the
arbiter starts for it until the event is over (docs/events.md, docs/protocol.md).

The session sends ``EnterEvent`` (with the game it plays) after each Welcome; the arbiter answers
``EventEntered`` (also when the bot was entered already), ``EventEnded`` once the event is over,
or ``EventRejected``. A refusal ends the session with a :class:`BadRequestError`, except
SHUTTING_DOWN (the arbiter is stopping: the bot enters again on its next connection) and
RATE_LIMITED (sent again after the wait).
"""

from __future__ import annotations

from typing import Any

import grpc
import structlog
from arbiter_wire import convert
from arbiter_wire.reasons import EVENT_NOT_FOUND, RATE_LIMITED, SHUTTING_DOWN, reason_of, retry_delay
from arbiter_wire.v1 import bot_service_pb2 as pb

from .errors import BadRequestError

log = structlog.get_logger("arbiter_bot")


class EventEntry:
    """What the session knows of its event: whether it entered on this connection, and its end."""

    def __init__(self, name: str, game: str, options: dict[str, Any]) -> None:
        self.name = name
        self.game = game
        self.options = options
        #: EnterEvent was sent on the current connection.
        self.sent = False
        self.entered: pb.EventEntered | None = None
        #: The event's end, once the arbiter said it (the session then stops after its matches).
        self.ended: pb.EventEnded | None = None

    def request(self) -> pb.PlayRequest:
        self.sent = True
        spec = convert.spec_to_pb(self.game, self.options)
        return pb.PlayRequest(enter_event=pb.EnterEvent(event=self.name, spec=spec))

    def on_entered(self, message: pb.EventEntered) -> None:
        self.entered = message
        log.info(
            "entered event",
            event_name=message.event,
            seed=message.seed,
            entrants=message.entrants,
            status=pb.EventStatus.Name(message.status),
            format=pb.EventFormat.Name(message.format),
        )

    def on_ended(self, message: pb.EventEnded) -> None:
        self.ended = message
        log.info(
            "event ended",
            event_name=message.event,
            status=pb.EventStatus.Name(message.status),
            place=message.place,
            points=message.points,
            entrants=message.entrants,
        )

    def on_rejected(self, message: pb.EventRejected) -> tuple[BadRequestError | None, float | None]:
        """What a refusal does: the error that ends the session (None: it goes on), and when to
        send EnterEvent again (None: not on this connection)."""
        reason = reason_of(message.status)
        log.error(
            "event request refused", event_name=message.event, reason=reason, message=message.status.message
        )
        if reason == SHUTTING_DOWN:
            return None, None
        if reason == RATE_LIMITED:
            self.sent = False
            return None, retry_delay(message.status) or 1.0
        code = grpc.StatusCode.NOT_FOUND if reason == EVENT_NOT_FOUND else grpc.StatusCode.FAILED_PRECONDITION
        error = BadRequestError(
            f"the arbiter refused event {message.event!r}: {message.status.message} ({reason})", code, reason
        )
        return error, None
