"""What crosses the pipe from the arbiter to its web pages' process, and the hub fed from it.

With ``arbiter serve --web`` the pages run in a process of their own (``web/process.py``) so that
writing frames to many spectators never slows the arbiter's event loop. The arbiter's hub
(``web/relay.py``'s ``RelayHub``, a ``LiveHub``) still makes the frames from its event bus, holds
them back by the ladder's delay and marks the final one ``over``; each frame it releases crosses
the pipe as a ``Shown``, with ``Began`` and ``Ended`` around a match's frames and ``Present``
(the bots connected now) when that set changes. ``MirrorHub`` takes these messages in order and
shows each frame as it comes: it has the reading side of a ``LiveHub`` (``running``, ``get``,
``subscribe``, ``arrival``) for ``create_app``, and no delay of its own.
"""

from __future__ import annotations

from dataclasses import dataclass

from arbiter_games import get_game

from .live import MAX_SUBSCRIBERS, MAX_SUBSCRIBERS_PER_ADDRESS, Frame, LiveHub


@dataclass(frozen=True)
class Began:
    """A match is followed from now on (its frames come next)."""

    match_id: str
    game: str
    ladder: str | None
    bots: dict[int, str]
    started_at: float


@dataclass(frozen=True)
class Shown:
    """A frame spectators may see now; one with the ply of the last is that frame sent again as
    the final one (``over`` set: the match ended off the rules)."""

    frame: Frame


@dataclass(frozen=True)
class Ended:
    match_id: str


@dataclass(frozen=True)
class Present:
    """The bots with a session on the arbiter now (the bot page's "connected now")."""

    bots: frozenset[str]


Message = Began | Shown | Ended | Present


class MirrorHub(LiveHub):
    """A ``LiveHub`` fed with the messages of an arbiter's ``RelayHub`` (on its own loop)."""

    def __init__(
        self, max_subscribers: int = MAX_SUBSCRIBERS, max_per_address: int = MAX_SUBSCRIBERS_PER_ADDRESS
    ) -> None:
        # No delay here: the arbiter's hub releases a frame when its ladder's delay allows.
        super().__init__({}, 0, max_subscribers, max_per_address)
        self.present: frozenset[str] = frozenset()

    def connected(self, bot: str) -> bool:
        return bot in self.present

    def take(self, message: Message) -> None:
        if isinstance(message, Began):
            game = get_game(message.game)
            self.start(message.match_id, game, message.ladder, message.bots, message.started_at, None, {})
        elif isinstance(message, Shown):
            self.show(message.frame)
        elif isinstance(message, Ended):
            self.ended(message.match_id)
        else:
            self.present = message.bots

    def show(self, frame: Frame) -> None:
        match = self.matches.get(frame.match_id)
        if match is None or match.ended_at is not None:
            return
        if match.frames and match.frames[-1].ply == frame.ply:
            # The final frame sent again: it replaces the last one (every frame here is shown).
            match.frames[-1] = frame
            self._send(match, frame)
        else:
            self._add(match, frame)


__all__ = ["Began", "Ended", "Message", "MirrorHub", "Present", "Shown"]
