"""An event bus: every match's events go to every listener, in the order listeners were added."""

from __future__ import annotations

from collections.abc import Callable

import structlog

from ..match.events import MatchEvent

log = structlog.get_logger("arbiter")

Listener = Callable[[MatchEvent], None]


class EventBus:
    def __init__(self) -> None:
        self.listeners: list[Listener] = []

    def subscribe(self, listener: Listener) -> None:
        self.listeners.append(listener)

    def publish(self, event: MatchEvent) -> None:
        for listener in self.listeners:
            try:
                listener(event)
            except Exception:
                log.exception("listener_failed", listener=repr(listener), kind=type(event).__name__)
