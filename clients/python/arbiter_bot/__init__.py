"""arbiter_bot: the Python SDK for bots that play on an Arbiter server.

Write a bot by subclassing :class:`Bot` and implementing ``choose``; play with :func:`run` (blocking)
or :func:`run_bot` (asyncio). See ``clients/python/README.md`` and ``docs/protocol.md``.
"""

from __future__ import annotations

from arbiter_games.surge_seed import SeedMismatch, SeedRecorder, check_surge_seed

from .address import DEFAULT_PORT, with_default_port
from .bot import (
    ABORTED,
    DRAW,
    LOSS,
    UNKNOWN,
    WIN,
    Bot,
    MatchInfo,
    MatchSummary,
    Rejection,
    TimeControl,
    TurnContext,
)
from .client import CONNECT_TIMEOUT, Backoff, Session, run, run_bot, tls_credentials
from .errors import ArbiterError, AuthenticationError, BadRequestError, ConnectError, ReplacedError

__all__ = [
    "ABORTED",
    "CONNECT_TIMEOUT",
    "DEFAULT_PORT",
    "DRAW",
    "LOSS",
    "UNKNOWN",
    "WIN",
    "ArbiterError",
    "AuthenticationError",
    "Backoff",
    "BadRequestError",
    "Bot",
    "ConnectError",
    "MatchInfo",
    "MatchSummary",
    "Rejection",
    "ReplacedError",
    "SeedMismatch",
    "SeedRecorder",
    "Session",
    "TimeControl",
    "TurnContext",
    "check_surge_seed",
    "run",
    "run_bot",
    "tls_credentials",
    "with_default_port",
]
