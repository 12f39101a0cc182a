"""The durable store: bots, ladders, matches and their moves, ratings, mail, ladder status.

One implementation, ``SqlStore``, on SQLite (the default: ``arbiter.db``) or PostgreSQL.
"""

from .engine import default_url
from .rows import (
    BotCredential,
    BotRow,
    FencedWrite,
    MatchResult,
    MatchRow,
    MatchStart,
    MissingDatabase,
    MoveRow,
    OutdatedSchema,
    RatingRow,
    RatingTally,
    RatingUpdate,
    RunningMatch,
    StoreError,
)
from .sql import SqlStore, open_store

__all__ = [
    "BotCredential",
    "BotRow",
    "FencedWrite",
    "MatchResult",
    "MatchRow",
    "MatchStart",
    "MissingDatabase",
    "MoveRow",
    "OutdatedSchema",
    "RatingRow",
    "RatingTally",
    "RatingUpdate",
    "RunningMatch",
    "SqlStore",
    "StoreError",
    "default_url",
    "open_store",
]
