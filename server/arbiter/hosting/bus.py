"""An event bus: a match's events go to the listeners that follow their kind, in the order the
listeners were added (a listener that names no kinds follows them all)."""

from __future__ import annotations

from collections.abc import Callable, Iterable

import structlog

from ..match.events import (
    ActionApplied,
    MatchEnded,
    MatchEvent,
    MatchStarted,
    MoveAcknowledged,
    MoveRefused,
    SeatResumed,
    TurnIssued,
)

log = structlog.get_logger("arbiter")

Listener = Callable[[MatchEvent], None]
#: Every kind of event, in the order a match emits them.
KINDS: tuple[type, ...] = (
    MatchStarted,
    SeatResumed,
    TurnIssued,
    ActionApplied,
    MoveRefused,
    MoveAcknowledged,
    MatchEnded,
)


class EventBus:
    def __init__(self) -> None:
        self.listeners: list[Listener] = []
        # Per kind, its listeners in subscription order: one look-up per event on the hot path.
        self.by_kind: dict[type, list[Listener]] = {kind: [] for kind in KINDS}

    def subscribe(self, listener: Listener, kinds: Iterable[type] | None = None) -> None:
        """Follow events of ``kinds`` (default: all of them)."""
        self.listeners.append(listener)
        wanted = set(KINDS if kinds is None else kinds)
        for kind in KINDS:
            if kind in wanted:
                self.by_kind[kind].append(listener)

    def publish(self, event: MatchEvent) -> None:
        # An event of another type than the match's own kinds goes to every listener.
        for listener in self.by_kind.get(type(event), self.listeners):
            try:
                listener(event)
            except Exception:
                log.exception("listener_failed", listener=repr(listener), kind=type(event).__name__)
