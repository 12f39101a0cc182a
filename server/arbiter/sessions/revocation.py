"""Disable and rotate end open calls: a periodic look at the connected bots' credentials.

``arbiter bots disable`` and ``arbiter bots rotate`` change only the store (the CLI is another
process). Every ``CREDENTIAL_CHECK`` seconds each arbiter process (a single node, each node of a
cluster, each worker of ``serve --processes N``) reads the token hash and the enabled flag of the
bots it has sessions for, and closes a session whose bot is disabled (``BOT_DISABLED``) or whose
token is no longer the store's (``BAD_TOKEN``: rotated, or the bot is gone).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Collection, Mapping

import structlog
from arbiter_wire import reasons

from ..periodic import Periodic
from ..store import BotCredential
from .registry import SessionRegistry
from .session import BotSession

log = structlog.get_logger("arbiter")

#: Seconds between two checks of the connected bots' credentials (``serve --credential-check``).
CREDENTIAL_CHECK = 1.0

#: Reads the credentials of the named bots (``SqlStore.credentials``); run off the event loop.
Lookup = Callable[[Collection[str]], Mapping[str, BotCredential]]
#: Ends a session: closes it with a reason and a message, and forgets it at once.
Revoke = Callable[[BotSession, str, str], None]


def revocation(session: BotSession, found: BotCredential | None) -> tuple[str, str] | None:
    """Why ``session`` must end given what the store holds now (reason, message), or None."""
    if found is None or found.token_hash != session.credential:
        return reasons.BAD_TOKEN, f"the token of bot {session.bot_name} was rotated or revoked"
    if not found.enabled:
        return reasons.BOT_DISABLED, f"bot {session.bot_name} was disabled on this arbiter"
    return None


class CredentialWatch:
    """Checks the sessions of ``registry`` against the store every ``every`` seconds."""

    def __init__(self, registry: SessionRegistry, lookup: Lookup, revoke: Revoke, every: float) -> None:
        if not every > 0:
            raise ValueError("the credential check interval must be positive")
        self.registry = registry
        self.lookup = lookup
        self.revoke = revoke
        self.every = every
        #: Checks done so far (tests and logs read it).
        self.checks = 0
        self._rounds = Periodic(every, self.check, "credential_check_failed")

    def start(self) -> None:
        self._rounds.start()

    def stop(self) -> None:
        self._rounds.stop()

    async def check(self) -> int:
        """One check; how many sessions it ended."""
        checked = [s for s in self.registry.sessions.values() if s.credential is not None]
        if not checked:
            self.checks += 1
            return 0
        found = await asyncio.to_thread(self.lookup, [s.bot_name for s in checked])
        ended = 0
        for session in checked:
            if session.closed or self.registry.sessions.get(session.bot_name) is not session:
                continue  # closed or replaced while the store was read
            why = revocation(session, found.get(session.bot_name))
            if why is not None:
                log.warning("session_revoked", bot=session.bot_name, session=session.id, reason=why[0])
                self.revoke(session, *why)
                ended += 1
        self.checks += 1
        return ended
