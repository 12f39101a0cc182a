"""Which session is live for each bot, and the mailbox of results a bot was away for."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Protocol

import structlog
from arbiter_wire import reasons
from arbiter_wire.v1 import bot_service_pb2 as pb

from .session import BotSession, Response

log = structlog.get_logger("arbiter")

#: MatchEnded messages kept for one absent bot by the in-memory mailbox (the oldest go first).
MAILBOX_LIMIT = 100
#: How the name of a person's seat starts (``sessions.human``): never a bot's name (those start
#: with a letter or a digit). Such a seat has no session and no mailbox: nothing is sent to it.
PERSON_PREFIX = "_guest-"


class Mailbox(Protocol):
    """Where MatchEnded messages wait for a bot that was away when its match ended."""

    def put(self, bot_name: str, message: pb.PlayResponse) -> None: ...

    def take(self, bot_name: str) -> list[pb.PlayResponse]:
        """The waiting messages, oldest first; they are gone from the mailbox afterwards."""
        ...


class MemoryMailbox:
    """A mailbox for an arbiter without a store: at most MAILBOX_LIMIT messages per bot."""

    def __init__(self) -> None:
        self.boxes: dict[str, deque[pb.PlayResponse]] = {}

    def put(self, bot_name: str, message: pb.PlayResponse) -> None:
        self.boxes.setdefault(bot_name, deque(maxlen=MAILBOX_LIMIT)).append(message)

    def take(self, bot_name: str) -> list[pb.PlayResponse]:
        return list(self.boxes.pop(bot_name, ()))


class SessionRegistry:
    """One live session per bot; messages for an absent bot's ended matches wait in its mailbox."""

    def __init__(self, mailbox: Mailbox | None = None) -> None:
        self.sessions: dict[str, BotSession] = {}
        self.mailbox: Mailbox = mailbox or MemoryMailbox()

    def open(self, bot_name: str, version: str, credential: str | None = None) -> BotSession:
        """A new session for ``bot_name`` playing as ``version``; an older one is closed (REPLACED).
        ``credential``: the store's token hash it was opened with (see ``BotSession``)."""
        old = self.sessions.get(bot_name)
        if old is not None:
            old.close(reasons.REPLACED, "another connection with this bot's token replaced this one")
            log.info("session_replaced", bot=bot_name, session=old.id)
            # Results not yet written to the old stream (perhaps a dead connection) are the new
            # one's: its Welcome lists them with the rest of the mailbox.
            for message in old.results_left():
                self.mailbox.put(bot_name, message)
        session = BotSession(bot_name, version, credential=credential)
        self.sessions[bot_name] = session
        return session

    def take_mail(self, bot_name: str) -> list[pb.PlayResponse]:
        return self.mailbox.take(bot_name)

    def connected(self, bot_name: str) -> bool:
        return bot_name in self.sessions

    def close(self, session: BotSession) -> bool:
        """Forget ``session``; True when it was the bot's live one."""
        session.closed = True
        live = self.sessions.get(session.bot_name) is session
        if live:
            del self.sessions[session.bot_name]
            log.info("session_closed", bot=session.bot_name, session=session.id)
        # Results it was never sent go to the bot's next session, or wait in its mailbox.
        for message in session.results_left():
            self.send(session.bot_name, message)
        return live

    def send(self, bot_name: str, message: Response, on_sent: Callable[[], None] | None = None) -> None:
        """To the bot's live session; a MatchEnded for an absent bot waits in its mailbox."""
        session = self.sessions.get(bot_name)
        if session is not None and not session.closed:
            session.send(message, on_sent)
        elif bot_name.startswith(PERSON_PREFIX):
            return  # a person's seat reads its match itself (``sessions.human``)
        elif isinstance(message, pb.PlayResponse) and message.HasField("match_ended"):
            # No session, or one that is ending (replaced, revoked, overflowing): the mailbox.
            self.mailbox.put(bot_name, message)

    def close_all(self, reason: str, message: str) -> None:
        for session in list(self.sessions.values()):
            session.close(reason, message)
