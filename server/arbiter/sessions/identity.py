"""Who a connection is: the bot its token names, whether it may play, the version it plays as."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from arbiter_wire.limits import UNVERSIONED
from arbiter_wire.text import version_problem


@dataclass(frozen=True)
class BotIdentity:
    name: str
    enabled: bool = True
    #: The hash of the bot's token in the store when the call was authenticated (a join token
    #: names it too); None for a bot of the ``--bot`` flags or a tokens file (never rotated).
    credential: str | None = None


class BotStore(Protocol):
    """Tokens to bots: the flags and tokens file of a quick local arbiter, or the ladder's store."""

    def identify(self, token: str | None) -> BotIdentity | None: ...


class VersionError(ValueError):
    """A version text the arbiter does not accept."""


def read_version(raw: str | None) -> str:
    """The version a connection names (``UNVERSIONED`` when it names none); raises VersionError."""
    if raw is None or raw == "":
        return UNVERSIONED
    problem = version_problem(raw)
    if problem is not None:
        raise VersionError(problem)
    return raw
