"""The transport's listener: each event, encoded for its seats, goes to their bots' sessions."""

from __future__ import annotations

from ..match.events import MatchEvent, TurnIssued, addressed_seats
from ..sessions.registry import SessionRegistry
from .encode import encode


class SeatRouter:
    """Sends what a match tells its seats to the bots in those seats (or their mailboxes)."""

    def __init__(self, sessions: SessionRegistry) -> None:
        self.sessions = sessions

    def __call__(self, event: MatchEvent) -> None:
        bots = event.facts.bots
        for seat in addressed_seats(event):
            message = encode(event, seat)
            if message is not None:
                on_sent = event.delivered if isinstance(event, TurnIssued) else None
                self.sessions.send(bots[seat], message, on_sent)
