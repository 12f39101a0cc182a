"""The store's tables as SQLAlchemy 2 typed declarative models (the migrations produce exactly these).

Times are epoch seconds in Python and ``timestamp with time zone`` (UTC) in the database. Bots and
ladders are keyed by name. A match's seats are plain names: a match may be played by bots that are
not registered here (casual matches); ratings, mail and ladder status belong to registered bots.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    CheckConstraint,
    DateTime,
    Dialect,
    Float,
    ForeignKey,
    ForeignKeyConstraint,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Text,
    TypeDecorator,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column
from sqlalchemy.sql.expression import false

#: Deterministic constraint names on every backend, so that migrations can name them.
NAMING = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

NAME = 64  # bot, ladder and version names, match ids
SHORT = 32  # games, statuses, policies, terminations
OWNER = 200  # who runs a bot (free text)
DESCRIPTION = 500  # what a ladder is for (free text)
PASSWORD_HASH = 200  # an argon2id hash in its encoded form (about 100 characters)
#: After a seat's bot, the columns of its results index (migration 0008).
RESULTS_1 = ("ladder", "seat_1_version", "seat_2_bot", "status", "winner_seat", "faulty_seat",
             "termination", "rated")  # fmt: skip
RESULTS_2 = ("ladder", "seat_2_version", "seat_1_bot", "status", "winner_seat", "faulty_seat",
             "termination", "rated")  # fmt: skip


class EpochTime(TypeDecorator[float]):
    """Epoch seconds (float) stored as a UTC ``timestamp with time zone``."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: float | None, dialect: Dialect) -> datetime | None:
        return None if value is None else datetime.fromtimestamp(value, tz=UTC)

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> float | None:
        if value is None:
            return None
        if value.tzinfo is None:  # SQLite keeps no zone: the store writes UTC
            value = value.replace(tzinfo=UTC)
        return value.timestamp()


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)


class Account(Base):
    """A bot owner's account on the web pages (migration 0010, docs/accounts.md): only the hash of
    its password is kept. ``session_epoch`` is in every session cookie of the account: logging out
    moves it on, which ends every session at once."""

    __tablename__ = "accounts"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(NAME), unique=True)
    #: The name in lower case: one account per name whatever its letters' case.
    name_key: Mapped[str] = mapped_column(String(NAME), unique=True)
    password_hash: Mapped[str] = mapped_column(String(PASSWORD_HASH))
    created_at: Mapped[float] = mapped_column(EpochTime())
    disabled: Mapped[bool] = mapped_column(Boolean, server_default=false())
    admin: Mapped[bool] = mapped_column(Boolean, server_default=false())
    session_epoch: Mapped[int] = mapped_column(Integer, server_default="0")


class Invite(Base):
    """An invite code for signing up (migration 0010): only its hash is kept."""

    __tablename__ = "invites"

    code_hash: Mapped[str] = mapped_column(String(80), primary_key=True)
    uses_left: Mapped[int] = mapped_column(Integer)
    expires_at: Mapped[float | None] = mapped_column(EpochTime())
    created_at: Mapped[float] = mapped_column(EpochTime())


class WebSecret(Base):
    """The key that signs the web pages' session cookies (migration 0010): one row, made by the
    first web server that needs it (unless the host gives one, ``--web-secret-file``)."""

    __tablename__ = "web_secret"
    __table_args__ = (CheckConstraint("id = 1", name="one_row"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    secret: Mapped[str] = mapped_column(String(128))


class Bot(Base):
    """A registered bot; only the hash of its token is kept."""

    __tablename__ = "bots"

    name: Mapped[str] = mapped_column(String(NAME), primary_key=True)
    owner: Mapped[str] = mapped_column(String(OWNER))
    token_hash: Mapped[str] = mapped_column(String(80), unique=True)
    enabled: Mapped[bool] = mapped_column(Boolean)
    created_at: Mapped[float] = mapped_column(EpochTime())
    #: The account that owns the bot on the web pages (migration 0010); None: the host's alone.
    account_id: Mapped[int | None] = mapped_column(ForeignKey("accounts.id"), index=True)


class Ladder(Base):
    """A ladder: one game with fixed options, clocks and policies."""

    __tablename__ = "ladders"

    name: Mapped[str] = mapped_column(String(NAME), primary_key=True)
    game: Mapped[str] = mapped_column(String(SHORT))
    options: Mapped[dict[str, Any]] = mapped_column(JSON)
    base: Mapped[float | None] = mapped_column(Float)
    increment: Mapped[float] = mapped_column(Float)
    per_decision: Mapped[float | None] = mapped_column(Float)
    on_timeout: Mapped[str] = mapped_column(String(SHORT))
    on_illegal: Mapped[str] = mapped_column(String(SHORT))
    rated: Mapped[bool] = mapped_column(Boolean)
    duplicate_pairs: Mapped[bool] = mapped_column(Boolean)
    enabled: Mapped[bool] = mapped_column(Boolean)
    created_at: Mapped[float] = mapped_column(EpochTime())
    #: Matches between two bots of one owner (migration 0005): ``unrated`` or ``flagged`` (rated,
    #: and marked so on the match).
    same_owner: Mapped[str] = mapped_column(String(SHORT), server_default="unrated")
    #: What the ladder is for, said on its page (migration 0006; ``arbiter ladders edit``).
    description: Mapped[str] = mapped_column(Text, server_default="")


class Match(Base):
    """One match, from its start (status ``running``) to its end (``finished`` or ``aborted``)."""

    __tablename__ = "matches"
    __table_args__ = (
        CheckConstraint("status IN ('running', 'finished', 'aborted')", name="status"),
        CheckConstraint("winner_seat IN (1, 2)", name="winner_seat"),
        CheckConstraint("faulty_seat IN (1, 2)", name="faulty_seat"),
        Index(None, "ladder", "sequence"),
        # The web pages' reads (migration 0002).
        Index(None, "started_at"),
        Index(None, "ladder", "started_at"),
        Index(None, "ladder", "seat_1_bot", "seat_1_version", "ended_at"),
        Index(None, "ladder", "seat_2_bot", "seat_2_version", "ended_at"),
        Index(None, "ladder", "faulty_seat"),
        # A bot's page (migration 0008), from each seat: its matches by finishing order; every
        # column its counts read, in their grouping order; its rated matches per ladder and
        # version by finishing order (the rating history's stretches).
        Index(None, "seat_1_bot", "sequence"),
        Index(None, "seat_2_bot", "sequence"),
        Index("ix_matches_seat_1_results", "seat_1_bot", *RESULTS_1),
        Index("ix_matches_seat_2_results", "seat_2_bot", *RESULTS_2),
        Index(
            "ix_matches_seat_1_rated", "seat_1_bot", "ladder", "seat_1_version", "rated", "status", "sequence"
        ),
        Index(
            "ix_matches_seat_2_rated", "seat_2_bot", "ladder", "seat_2_version", "rated", "status", "sequence"
        ),
    )

    id: Mapped[str] = mapped_column(String(NAME), primary_key=True)
    ladder: Mapped[str | None] = mapped_column(ForeignKey("ladders.name"))
    game: Mapped[str] = mapped_column(String(SHORT))
    options: Mapped[dict[str, Any]] = mapped_column(JSON)
    seat_1_bot: Mapped[str] = mapped_column(String(NAME))
    seat_1_version: Mapped[str] = mapped_column(String(NAME))
    seat_2_bot: Mapped[str] = mapped_column(String(NAME))
    seat_2_version: Mapped[str] = mapped_column(String(NAME))
    seed: Mapped[str] = mapped_column(String(200))
    seed_commitment: Mapped[str] = mapped_column(String(200))
    time_control: Mapped[dict[str, Any]] = mapped_column(JSON)
    policy: Mapped[dict[str, Any]] = mapped_column(JSON)
    status: Mapped[str] = mapped_column(String(SHORT), index=True)
    winner_seat: Mapped[int | None] = mapped_column(Integer)
    scores: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    reason: Mapped[str | None] = mapped_column(String(SHORT))
    termination: Mapped[str | None] = mapped_column(String(SHORT))
    faulty_seat: Mapped[int | None] = mapped_column(Integer)
    detail: Mapped[str | None] = mapped_column(Text)
    rated: Mapped[bool] = mapped_column(Boolean)
    started_at: Mapped[float] = mapped_column(EpochTime())
    ended_at: Mapped[float | None] = mapped_column(EpochTime())
    #: The order in which matches finished (1, 2, ...): ratings are replayed in this order.
    sequence: Mapped[int | None] = mapped_column(Integer, unique=True)
    record: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    #: In a cluster (migration 0003): the epoch of the node registration that hosts the match;
    #: its writes are refused once this moved on. None on a single node.
    owner_epoch: Mapped[int | None] = mapped_column(Integer, index=True)
    #: Its two bots have one owner (migration 0005).
    same_owner: Mapped[bool] = mapped_column(Boolean, server_default=false())


class Move(Base):
    """One played action of a match (its ``ply``: 0, 1, ...)."""

    __tablename__ = "moves"

    match_id: Mapped[str] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True)
    ply: Mapped[int] = mapped_column(Integer, primary_key=True)
    seat: Mapped[int] = mapped_column(Integer)
    turn_id: Mapped[int | None] = mapped_column(Integer)
    action: Mapped[str] = mapped_column(Text)
    charged: Mapped[float | None] = mapped_column(Float)
    clocks: Mapped[dict[str, Any]] = mapped_column(JSON)
    auto: Mapped[str | None] = mapped_column(String(SHORT))


class Rating(Base):
    """The current rating of a bot version on a ladder, with its counts."""

    __tablename__ = "ratings"

    ladder: Mapped[str] = mapped_column(ForeignKey("ladders.name"), primary_key=True)
    bot: Mapped[str] = mapped_column(ForeignKey("bots.name"), primary_key=True)
    version: Mapped[str] = mapped_column(String(NAME), primary_key=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer)
    wins: Mapped[int] = mapped_column(Integer)
    losses: Mapped[int] = mapped_column(Integer)
    draws: Mapped[int] = mapped_column(Integer)
    updated_at: Mapped[float] = mapped_column(EpochTime())


class RatingUpdate(Base):
    """What one rated match did to both seats' ratings (at most one row per match)."""

    __tablename__ = "rating_updates"

    match_id: Mapped[str] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True)
    ladder: Mapped[str] = mapped_column(ForeignKey("ladders.name"), index=True)
    seat_1_bot: Mapped[str] = mapped_column(String(NAME))
    seat_1_version: Mapped[str] = mapped_column(String(NAME))
    seat_1_mu_before: Mapped[float] = mapped_column(Float)
    seat_1_sigma_before: Mapped[float] = mapped_column(Float)
    seat_1_mu_after: Mapped[float] = mapped_column(Float)
    seat_1_sigma_after: Mapped[float] = mapped_column(Float)
    seat_2_bot: Mapped[str] = mapped_column(String(NAME))
    seat_2_version: Mapped[str] = mapped_column(String(NAME))
    seat_2_mu_before: Mapped[float] = mapped_column(Float)
    seat_2_sigma_before: Mapped[float] = mapped_column(Float)
    seat_2_mu_after: Mapped[float] = mapped_column(Float)
    seat_2_sigma_after: Mapped[float] = mapped_column(Float)


class Mail(Base):
    """A message kept for a bot that was away (one per bot and match)."""

    __tablename__ = "mailbox"

    bot: Mapped[str] = mapped_column(ForeignKey("bots.name", ondelete="CASCADE"), primary_key=True)
    match_id: Mapped[str] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True)
    payload: Mapped[bytes] = mapped_column(LargeBinary)
    created_at: Mapped[float] = mapped_column(EpochTime())


class LadderStatus(Base):
    """A bot's standing with a ladder's scheduler: its run of failed matches, and a pause."""

    __tablename__ = "ladder_status"

    ladder: Mapped[str] = mapped_column(ForeignKey("ladders.name"), primary_key=True)
    bot: Mapped[str] = mapped_column(ForeignKey("bots.name"), primary_key=True)
    consecutive_failures: Mapped[int] = mapped_column(Integer)
    paused: Mapped[bool] = mapped_column(Boolean)
    paused_reason: Mapped[str | None] = mapped_column(Text)


class ClusterNode(Base):
    """One registration of an arbiter node in a cluster (migration 0003): its epoch, its address
    and its lease. A node registers anew (a new epoch) every time it starts."""

    __tablename__ = "cluster_nodes"
    __table_args__ = (CheckConstraint("state IN ('active', 'draining', 'stopped', 'dead')", name="state"),)

    epoch: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    address: Mapped[str] = mapped_column(String(200))
    state: Mapped[str] = mapped_column(String(SHORT), index=True)
    started_at: Mapped[float] = mapped_column(EpochTime())
    heartbeat_at: Mapped[float] = mapped_column(EpochTime())
    lease_expires: Mapped[float] = mapped_column(EpochTime())
    #: The epoch of the node that took this one's matches over (state ``dead``).
    taken_by: Mapped[int | None] = mapped_column(Integer)


class LadderHost(Base):
    """Which node registration hosts a ladder's scheduler (migration 0003): one row per ladder."""

    __tablename__ = "ladder_hosts"

    ladder: Mapped[str] = mapped_column(ForeignKey("ladders.name"), primary_key=True)
    epoch: Mapped[int] = mapped_column(ForeignKey("cluster_nodes.epoch"), index=True)
    claimed_at: Mapped[float] = mapped_column(EpochTime())


class ClusterSecret(Base):
    """The key that signs join tokens (migration 0003): one row, made by the first node."""

    __tablename__ = "cluster_secret"
    __table_args__ = (CheckConstraint("id = 1", name="one_row"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    secret: Mapped[str] = mapped_column(String(128))


class ClusterSeek(Base):
    """An open seek of a bot connected to a cluster node, or a claimed one (migration 0004).

    ``epoch``: the registration holding the bot's session; ``claimed_by``, ``match_id`` and
    ``seat``: set together, once, by the node that pairs the seek and hosts its match (a match has
    at most one seek per seat)."""

    __tablename__ = "cluster_seeks"
    __table_args__ = (
        CheckConstraint(
            "(claimed_by IS NULL AND match_id IS NULL AND seat IS NULL)"
            " OR (claimed_by IS NOT NULL AND match_id IS NOT NULL AND seat IN (1, 2))",
            name="claim",
        ),
        UniqueConstraint("match_id", "seat"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    #: The bot's own seek id (echoed in its MatchStarted).
    seek_id: Mapped[str] = mapped_column(Text)
    bot: Mapped[str] = mapped_column(String(NAME), index=True)
    game: Mapped[str] = mapped_column(String(SHORT))
    #: The normalised seek: game, options and time control (equal keys pair).
    pairing_key: Mapped[str] = mapped_column(Text, index=True)
    epoch: Mapped[int] = mapped_column(ForeignKey("cluster_nodes.epoch"), index=True)
    #: The database's clock when the seek was written (the oldest open seek pairs first).
    created_at: Mapped[float] = mapped_column(EpochTime())
    claimed_by: Mapped[int | None] = mapped_column(ForeignKey("cluster_nodes.epoch"))
    claimed_at: Mapped[float | None] = mapped_column(EpochTime())
    match_id: Mapped[str | None] = mapped_column(String(NAME))
    seat: Mapped[int | None] = mapped_column(Integer)


class LadderChallenge(Base):
    """One challenge a bot sent on a ladder (migration 0005): the daily limit per pair counts these."""

    __tablename__ = "ladder_challenges"
    __table_args__ = (Index(None, "ladder", "challenger", "opponent", "sent_at"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    ladder: Mapped[str] = mapped_column(ForeignKey("ladders.name"))
    challenger: Mapped[str] = mapped_column(String(NAME))
    opponent: Mapped[str] = mapped_column(String(NAME))
    sent_at: Mapped[float] = mapped_column(EpochTime())


class BotVersionSeen(Base):
    """A version a bot joined a ladder with, and when first (migration 0005): the daily limit on
    new versions counts these."""

    __tablename__ = "bot_versions"
    __table_args__ = (Index(None, "bot", "first_seen"),)

    bot: Mapped[str] = mapped_column(ForeignKey("bots.name", ondelete="CASCADE"), primary_key=True)
    version: Mapped[str] = mapped_column(String(NAME), primary_key=True)
    first_seen: Mapped[float] = mapped_column(EpochTime())


class Event(Base):
    """An event (a competition, migration 0007): its game, clocks, format and schedule."""

    __tablename__ = "events"
    __table_args__ = (
        CheckConstraint("status IN ('scheduled', 'running', 'finished', 'cancelled')", name="status"),
    )

    name: Mapped[str] = mapped_column(String(NAME), primary_key=True)
    game: Mapped[str] = mapped_column(String(SHORT))
    options: Mapped[dict[str, Any]] = mapped_column(JSON)
    base: Mapped[float | None] = mapped_column(Float)
    increment: Mapped[float] = mapped_column(Float)
    per_decision: Mapped[float | None] = mapped_column(Float)
    on_timeout: Mapped[str] = mapped_column(String(SHORT))
    on_illegal: Mapped[str] = mapped_column(String(SHORT))
    format: Mapped[str] = mapped_column(String(SHORT))
    rounds: Mapped[int | None] = mapped_column(Integer)
    games_per_pairing: Mapped[int] = mapped_column(Integer)
    duplicate_pairs: Mapped[bool] = mapped_column(Boolean)
    starts_at: Mapped[float | None] = mapped_column(EpochTime())
    entry_closes_at: Mapped[float | None] = mapped_column(EpochTime())
    max_entrants: Mapped[int | None] = mapped_column(Integer)
    invite_only: Mapped[bool] = mapped_column(Boolean)
    rated: Mapped[bool] = mapped_column(Boolean)
    #: An arena's window, seconds.
    duration: Mapped[float | None] = mapped_column(Float)
    status: Mapped[str] = mapped_column(String(SHORT))
    created_at: Mapped[float] = mapped_column(EpochTime())


class EventEntry(Base):
    """A bot entered in an event (migration 0007); ``seed``: 1, 2, ... in entry order."""

    __tablename__ = "event_entries"
    __table_args__ = (UniqueConstraint("event", "seed"),)

    event: Mapped[str] = mapped_column(ForeignKey("events.name", ondelete="CASCADE"), primary_key=True)
    bot: Mapped[str] = mapped_column(ForeignKey("bots.name", ondelete="CASCADE"), primary_key=True)
    seed: Mapped[int] = mapped_column(Integer)
    entered_at: Mapped[float] = mapped_column(EpochTime())
    #: Set when the bot left a running event: it keeps its results and is paired no more.
    withdrawn_at: Mapped[float | None] = mapped_column(EpochTime())


class EventRound(Base):
    """A round of an event as it was made (migration 0007), with the bots that had a bye."""

    __tablename__ = "event_rounds"

    event: Mapped[str] = mapped_column(ForeignKey("events.name", ondelete="CASCADE"), primary_key=True)
    number: Mapped[int] = mapped_column(Integer, primary_key=True)
    byes: Mapped[list[str]] = mapped_column(JSON)
    started_at: Mapped[float] = mapped_column(EpochTime())


class EventPairing(Base):
    """A pairing of an event's round (migration 0007): board 1, 2, ... Seats are plain names."""

    __tablename__ = "event_pairings"
    __table_args__ = (
        ForeignKeyConstraint(
            ["event", "round_number"], ["event_rounds.event", "event_rounds.number"], ondelete="CASCADE"
        ),
    )

    event: Mapped[str] = mapped_column(String(NAME), primary_key=True)
    round_number: Mapped[int] = mapped_column(Integer, primary_key=True)
    board: Mapped[int] = mapped_column(Integer, primary_key=True)
    seat_1: Mapped[str] = mapped_column(String(NAME), index=True)
    seat_2: Mapped[str] = mapped_column(String(NAME), index=True)


class EventResult(Base):
    """One game's result in a pairing of an event (migration 0007): game 1, 2, ... of the board."""

    __tablename__ = "event_results"
    __table_args__ = (
        CheckConstraint("kind IN ('played', 'no_show', 'double_no_show')", name="kind"),
        CheckConstraint("winner_seat IN (1, 2)", name="winner_seat"),
        ForeignKeyConstraint(
            ["event", "round_number", "board"],
            ["event_pairings.event", "event_pairings.round_number", "event_pairings.board"],
            ondelete="CASCADE",
        ),
    )

    event: Mapped[str] = mapped_column(String(NAME), primary_key=True)
    round_number: Mapped[int] = mapped_column(Integer, primary_key=True)
    board: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_number: Mapped[int] = mapped_column(Integer, primary_key=True)
    seat_1: Mapped[str] = mapped_column(String(NAME))
    seat_2: Mapped[str] = mapped_column(String(NAME))
    winner_seat: Mapped[int | None] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(SHORT))
    #: The match played (None for a no-show).
    match_id: Mapped[str | None] = mapped_column(ForeignKey("matches.id"))
    recorded_at: Mapped[float] = mapped_column(EpochTime())


class EventGame(Base):
    """Which game of an event a match plays (migration 0009), written with the match's start: a
    restarted arbiter knows a rebuilt match's event game, and a game has at most one match
    running."""

    __tablename__ = "event_games"
    __table_args__ = (
        ForeignKeyConstraint(
            ["event", "round_number", "board"],
            ["event_pairings.event", "event_pairings.round_number", "event_pairings.board"],
            ondelete="CASCADE",
        ),
        Index(None, "event", "round_number", "board", "game_number"),
    )

    match_id: Mapped[str] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True)
    event: Mapped[str] = mapped_column(String(NAME))
    round_number: Mapped[int] = mapped_column(Integer)
    board: Mapped[int] = mapped_column(Integer)
    game_number: Mapped[int] = mapped_column(Integer)
