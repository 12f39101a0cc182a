"""Which session is live for each bot, and the mailbox of results a bot was away for."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

import structlog
from arbiter_wire import reasons
from arbiter_wire.v1 import bot_service_pb2 as pb

from .session import BotSession

log = structlog.get_logger("arbiter")

#: MatchEnded messages kept for one absent bot (the oldest go first).
MAILBOX_LIMIT = 100


class SessionRegistry:
    """One live session per bot; messages for an absent bot's ended matches wait in its mailbox."""

    def __init__(self) -> None:
        self.sessions: dict[str, BotSession] = {}
        self.mailbox: dict[str, deque[pb.PlayResponse]] = {}

    def open(self, bot_name: str) -> BotSession:
        """A new session for ``bot_name``; an older one is closed (REPLACED)."""
        old = self.sessions.get(bot_name)
        if old is not None:
            old.close(reasons.REPLACED, "another connection with this bot's token replaced this one")
            log.info("session_replaced", bot=bot_name, session=old.id)
        session = BotSession(bot_name)
        self.sessions[bot_name] = session
        return session

    def take_mail(self, bot_name: str) -> list[pb.PlayResponse]:
        return list(self.mailbox.pop(bot_name, ()))

    def close(self, session: BotSession) -> bool:
        """Forget ``session``; True when it was the bot's live one."""
        session.closed = True
        if self.sessions.get(session.bot_name) is session:
            del self.sessions[session.bot_name]
            log.info("session_closed", bot=session.bot_name, session=session.id)
            return True
        return False

    def send(
        self, bot_name: str, message: pb.PlayResponse, on_sent: Callable[[], None] | None = None
    ) -> None:
        """To the bot's live session; a MatchEnded for an absent bot waits in its mailbox."""
        session = self.sessions.get(bot_name)
        if session is not None:
            session.send(message, on_sent)
        elif message.HasField("match_ended"):
            self.mailbox.setdefault(bot_name, deque(maxlen=MAILBOX_LIMIT)).append(message)

    def close_all(self, reason: str, message: str) -> None:
        for session in list(self.sessions.values()):
            session.close(reason, message)
