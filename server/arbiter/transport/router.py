"""The transport's listener: each event, encoded for its seats, goes to their bots' sessions."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from ..match.events import MatchEnded, MatchEvent, TurnIssued, addressed_seats
from ..sessions.registry import SessionRegistry
from .encode import encode_for_wire, turn_wire


class EndGate(Protocol):
    """Holds a match's MatchEnded until its result is durable (the store writer)."""

    def hold(self, event: MatchEnded, release: Callable[[], None]) -> bool:
        """True when the gate keeps ``release`` to call later; False: send now."""
        ...


class SeatRouter:
    """Sends what a match tells its seats to the bots in those seats (or their mailboxes)."""

    def __init__(
        self,
        sessions: SessionRegistry,
        gate: EndGate | None = None,
        told: Callable[[MatchEnded], None] | None = None,
    ) -> None:
        self.sessions = sessions
        self.gate = gate
        #: Called once a MatchEnded has been handed to its bots (``MatchHosting.told``).
        self.told = told

    def __call__(self, event: MatchEvent) -> None:
        if type(event) is TurnIssued:  # the hot path (one per move): one seat, the Turn's bytes
            self.sessions.send(event.facts.bots[event.seat], turn_wire(event), event.delivered)
            return
        gate = self.gate
        if isinstance(event, MatchEnded) and gate is not None and gate.hold(event, lambda: self._send(event)):
            return
        self._send(event)

    def _send(self, event: MatchEvent) -> None:
        bots = event.facts.bots
        for seat in addressed_seats(event):
            message = encode_for_wire(event, seat)
            if message is not None:
                on_sent = event.delivered if isinstance(event, TurnIssued) else None
                self.sessions.send(bots[seat], message, on_sent)
        if self.told is not None and type(event) is MatchEnded:
            self.told(event)
