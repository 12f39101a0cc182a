"""``SqlStore``: the one store, on SQLite or PostgreSQL. Each method is one transaction.

Writes about a match are idempotent by match id: a repeated start, move, finish or mail changes
nothing. Times are epoch seconds.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from arbiter_wire.text import BadName, check_name, shown, text_problem
from sqlalchemy import delete, func, or_, select, text
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import InterfaceError, OperationalError, SQLAlchemyError
from sqlalchemy.orm import Session, defer, sessionmaker

from arbiter.events.model import Game
from arbiter.ladder.model import BotVersion, LadderConfig, RatedResult, Termination, one_owner
from arbiter.ladder.model import Rating as RatingValue
from arbiter.sessions.auth import hash_token, new_token

from . import bot_reads, convert, migrate
from .accounts import AccountStore
from .convert import ABORTED, FINISHED, RUNNING
from .engine import BEGIN_MODE, default_url, make_engine
from .events import EventStore
from .rows import (
    BotCredential,
    BotRow,
    FencedWrite,
    LadderFacts,
    MatchResult,
    MatchRow,
    MatchStart,
    MoveRow,
    RatingRow,
    RatingTally,
    RatingUpdate,
    RunningMatch,
    StoreError,
)
from .schema import (
    DESCRIPTION,
    OWNER,
    Account,
    Base,
    Bot,
    BotVersionSeen,
    Ladder,
    LadderChallenge,
    LadderStatus,
    Mail,
    Match,
    Move,
    Rating,
)

#: PostgreSQL advisory lock that serialises the numbering of finished matches.
SEQUENCE_LOCK = 0x41524249
#: Bot names per query of ``credentials`` (well under SQLite's limit of bound parameters).
CREDENTIALS_PER_QUERY = 500


class SqlStore(EventStore, AccountStore):
    """The durable store at a SQLAlchemy URL (``sqlite:///FILE`` or ``postgresql://...``)."""

    def __init__(self, url: str, clock: Callable[[], float] = time.time, create: bool = True) -> None:
        """``create=False``: a SQLite file that does not exist is MissingDatabase (not created)."""
        self.url = url
        self._engine = make_engine(url, create)
        self._postgres = self._engine.dialect.name == "postgresql"
        self._reads = sessionmaker(self._engine, expire_on_commit=False)
        writer = self._engine.execution_options(**{BEGIN_MODE: "IMMEDIATE"})
        self._writes = sessionmaker(writer, expire_on_commit=False)
        self._clock = clock
        #: In a cluster: the epoch of this node's registration. Every write about a match is then
        #: fenced by it (see ``_fence``); None (a single node) writes unfenced.
        self.fence_epoch: int | None = None

    @property
    def postgres(self) -> bool:
        return self._postgres

    @contextmanager
    def transaction(self) -> Iterator[Session]:
        """One write transaction (for the cluster's registry, which keeps its SQL in its package)."""
        with self._write() as session:
            yield session

    def close(self) -> None:
        """Close the store's connections."""
        self._engine.dispose()

    # --- transactions -------------------------------------------------------------------------
    @contextmanager
    def _read(self) -> Iterator[Session]:
        with _store_errors(), self._reads.begin() as session:
            yield session

    @contextmanager
    def _write(self) -> Iterator[Session]:
        with _store_errors(), self._writes.begin() as session:
            yield session

    def _insert_new(self, session: Session, model: Any, rows: Sequence[dict[str, Any]]) -> None:
        """Insert ``rows``; a row whose primary key exists already is left as it is."""
        if rows:
            dialect = postgresql if self._postgres else sqlite
            session.execute(dialect.insert(model).on_conflict_do_nothing(), list(rows))

    # --- schema -------------------------------------------------------------------------------
    def upgrade(self) -> None:
        """Migrate the database to the schema this arbiter needs (creating it if empty)."""
        with _store_errors():
            migrate.upgrade(self._engine)

    def schema_revision(self) -> str | None:
        """The database's schema revision (None for a database this arbiter never migrated)."""
        with _store_errors(), self._engine.connect() as connection:
            return migrate.current_revision(connection)

    def check_schema(self) -> None:
        """Raise OutdatedSchema unless the database has the schema this arbiter needs."""
        with _store_errors():
            migrate.check(self._engine)

    # --- bots ---------------------------------------------------------------------------------
    def add_bot(self, name: str, owner: str) -> str:
        """Register a bot; returns its token, which the store does not keep (only its hash)."""
        _check_name("bot", name)
        _check_owner(owner)
        token = new_token()
        bot = Bot(
            name=name, owner=owner, token_hash=hash_token(token), enabled=True, created_at=self._clock()
        )
        with self._write() as session:
            if session.get(Bot, name) is not None:
                raise StoreError(f"a bot named {name!r} exists already")
            session.add(bot)
        return token

    def rotate_token(self, name: str) -> str:
        """A new token for ``name``; the old one stops working."""
        token = new_token()
        with self._write() as session:
            _bot(session, name).token_hash = hash_token(token)
        return token

    def set_bot_enabled(self, name: str, enabled: bool) -> None:
        with self._write() as session:
            _bot(session, name).enabled = enabled

    def remove_bot(self, name: str) -> None:
        """Remove a bot that never played (a mistake): its row and what refers to it (versions,
        mail, ladder status). A bot with a match is a StoreError: disable it instead."""
        with self._write() as session:
            _bot(session, name)
            played = session.scalar(
                select(func.count())
                .select_from(Match)
                .where(or_(Match.seat_1_bot == name, Match.seat_2_bot == name))
            )
            if played:
                raise StoreError(
                    f"bot {name!r} has played {played} match(es) and stays in their records: "
                    f"disable it instead (arbiter bots disable {name})"
                )
            paired = self._paired_in(session, name)
            if paired:
                raise StoreError(
                    f"bot {name!r} was paired in event {paired[0]!r} and stays in its records: "
                    f"disable it instead (arbiter bots disable {name})"
                )
            _delete_referring(session, "bots", name)
            session.delete(_bot(session, name))

    def list_bots(self) -> list[BotRow]:
        with self._read() as session:
            return [convert.bot_row(bot) for bot in session.scalars(select(Bot).order_by(Bot.name))]

    def get_bot(self, name: str) -> BotRow | None:
        """The registered bot ``name``, or None."""
        with self._read() as session:
            bot = session.get(Bot, name)
            return None if bot is None else convert.bot_row(bot)

    def authenticate(self, token: str) -> BotRow | None:
        """The bot whose token this is (disabled bots too: the caller decides), or None."""
        if not token:
            return None
        with self._read() as session:
            bot = session.scalars(select(Bot).where(Bot.token_hash == hash_token(token))).first()
            if bot is None:
                return None
            row = convert.bot_row(bot)
            account = session.get(Account, bot.account_id) if bot.account_id is not None else None
            # A disabled account's bots are refused as disabled bots are.
            return replace(row, enabled=False) if account is not None and account.disabled else row

    def credentials(self, names: Collection[str]) -> dict[str, BotCredential]:
        """The token hash and enabled flag of each of ``names`` that is registered (a bot of a
        disabled account is not enabled)."""
        found: dict[str, BotCredential] = {}
        wanted = sorted(set(names))
        with self._read() as session:
            for start in range(0, len(wanted), CREDENTIALS_PER_QUERY):
                chunk = wanted[start : start + CREDENTIALS_PER_QUERY]
                query = (
                    select(Bot.name, Bot.token_hash, Bot.enabled, Account.disabled)
                    .outerjoin(Account, Bot.account_id == Account.id)
                    .where(Bot.name.in_(chunk))
                )
                for name, token_hash, enabled, account_disabled in session.execute(query):
                    # A disabled account's bots are disabled bots (their calls end).
                    found[name] = BotCredential(name, token_hash, enabled and not account_disabled)
        return found

    def bots_with_token_hashes(self, hashes: Collection[str]) -> dict[str, str]:
        """The registered bot each of ``hashes`` is the token hash of (hash -> name), if any."""
        found: dict[str, str] = {}
        wanted = sorted(set(hashes))
        with self._read() as session:
            for begin in range(0, len(wanted), CREDENTIALS_PER_QUERY):
                chunk = wanted[begin : begin + CREDENTIALS_PER_QUERY]
                query = select(Bot.token_hash, Bot.name).where(Bot.token_hash.in_(chunk))
                found.update({str(token_hash): str(name) for token_hash, name in session.execute(query)})
        return found

    # --- ladders ------------------------------------------------------------------------------
    def add_ladder(self, config: LadderConfig) -> None:
        """Create a ladder; its name must be new."""
        _check_name("ladder", config.name)
        with self._write() as session:
            if session.get(Ladder, config.name) is not None:
                raise StoreError(f"a ladder named {config.name!r} exists already")
            session.add(convert.ladder_model(config, self._clock()))

    def set_ladder_enabled(self, name: str, enabled: bool) -> None:
        """Archive (``False``: no new match; standings and matches stay) or reopen a ladder."""
        with self._write() as session:
            _ladder(session, name).enabled = enabled

    def set_ladder_description(self, name: str, description: str) -> None:
        """What the ladder is for, shown on its page: printable text, at most 500 characters."""
        problem = text_problem(description, DESCRIPTION)
        if problem is not None:
            raise StoreError(f"bad description {shown(description)}: {problem}")
        with self._write() as session:
            _ladder(session, name).description = description

    def remove_ladder(self, name: str) -> None:
        """Remove a ladder that never had a match (a mistake), with what refers to it. One with
        matches is a StoreError: archive it instead."""
        with self._write() as session:
            _ladder(session, name)
            played = session.scalar(select(func.count()).select_from(Match).where(Match.ladder == name))
            if played:
                raise StoreError(
                    f"ladder {name!r} has {played} match(es): archive it instead "
                    f"(arbiter ladders archive {name})"
                )
            _delete_referring(session, "ladders", name)
            session.delete(_ladder(session, name))

    def get_ladder(self, name: str) -> LadderConfig | None:
        with self._read() as session:
            ladder = session.get(Ladder, name)
            return None if ladder is None else convert.ladder_config(ladder)

    def list_ladders(self) -> list[LadderConfig]:
        with self._read() as session:
            ladders = session.scalars(select(Ladder).order_by(Ladder.name))
            return [convert.ladder_config(ladder) for ladder in ladders]

    # --- matches ------------------------------------------------------------------------------
    def match_started(self, start: MatchStart) -> bool:
        """Record a started match (status running). False if it was recorded already.

        Fenced (in a cluster): refused with FencedWrite unless this node's registration is still
        active or draining; the match is recorded as owned by this node's epoch."""
        with self._write() as session:
            if self.fence_epoch is not None:
                # (SQLite has no row locks: its write transaction holds the whole database.)
                share = " FOR SHARE" if self._postgres else ""
                state = session.scalar(
                    text("SELECT state FROM cluster_nodes WHERE epoch = :e" + share),
                    {"e": self.fence_epoch},
                )
                if state not in ("active", "draining"):
                    raise FencedWrite(
                        f"node epoch {self.fence_epoch} is {state}: match {start.match_id} refused"
                    )
            if session.get(Match, start.match_id) is not None:
                return False
            model = convert.match_model(start)
            model.owner_epoch = self.fence_epoch
            model.same_owner = _one_owner(session, start.seat_1.bot, start.seat_2.bot)
            session.add(model)
            if start.event is not None:
                session.flush()  # the match's row before the row that refers to it
                self._tag_event_game(session, start.match_id, start.event)
            return True

    def _fence(self, match: Match) -> None:
        """In a cluster, a write about ``match`` must come from the epoch that owns it (its row is
        locked by the caller, so a takeover cannot pass in between)."""
        if self.fence_epoch is not None and match.owner_epoch != self.fence_epoch:
            raise FencedWrite(
                f"match {match.id} is owned by epoch {match.owner_epoch}, not {self.fence_epoch}: refused"
            )

    def append_moves(self, match_id: str, moves: Sequence[MoveRow]) -> None:
        """Record played moves; a ply recorded already is kept as it was (fenced in a cluster)."""
        with self._write() as session:
            lock = {"read": True} if self.fence_epoch is not None else None
            match = session.get(Match, match_id, with_for_update=lock)
            if match is None:
                raise StoreError(f"no match {match_id!r}")
            self._fence(match)
            self._insert_new(session, Move, [convert.move_values(match_id, move) for move in moves])

    def finish_match(
        self,
        match_id: str,
        result: MatchResult,
        rating_updates: Sequence[RatingUpdate] | None = None,
        new_ratings: Mapping[BotVersion, RatingTally] | None = None,
        event_game: Game | None = None,
    ) -> bool:
        """Record the end of a match, what it did to the ratings and the new ratings, together;
        ``event_game``: the result of the event game the match played, kept in the same
        transaction (``EventStore._put_event_game``).

        False (and nothing written) if the match had ended already.
        """
        with self._write() as session:
            match = session.get(Match, match_id, with_for_update=True)
            if match is None:
                raise StoreError(f"no match {match_id!r}")
            if match.status != RUNNING:
                return False
            self._fence(match)
            self._end_match(session, match, result)
            if rating_updates:
                session.add(convert.rating_update_model(match, rating_updates))
            if new_ratings:
                self._put_ratings(session, convert.ladder_of(match), new_ratings)
            if event_game is not None:
                self._put_event_game(session, match_id, event_game)
            return True

    def _end_match(self, session: Session, match: Match, result: MatchResult) -> None:
        if self._postgres:
            session.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": SEQUENCE_LOCK})
        last = session.scalar(select(func.max(Match.sequence)))
        aborted = result.termination is Termination.ABORTED
        match.status = ABORTED if aborted else FINISHED
        match.rated = match.rated and not aborted
        match.winner_seat = result.winner_seat
        match.scores = {str(seat): score for seat, score in result.scores.items()}
        match.reason = result.reason
        match.termination = result.termination.value
        match.faulty_seat = result.faulty_seat
        match.detail = result.detail
        match.ended_at = result.ended_at
        match.sequence = (last or 0) + 1
        match.record = None if result.record is None else dict(result.record)

    def _put_ratings(self, session: Session, ladder: str, tallies: Mapping[BotVersion, RatingTally]) -> None:
        now = self._clock()
        for version, tally in tallies.items():
            row = session.get(Rating, (ladder, version.bot, version.version))
            if row is None:
                row = Rating(ladder=ladder, bot=version.bot, version=version.version)
                session.add(row)
            convert.set_tally(row, tally, now)

    def replace_ratings(self, ladder: str, tallies: Mapping[BotVersion, RatingTally]) -> None:
        """Replace all ratings of ``ladder`` (after a recompute from ``finished_results``)."""
        with self._write() as session:
            session.execute(delete(Rating).where(Rating.ladder == ladder))
            self._put_ratings(session, ladder, tallies)

    def running_matches(self, owner_epoch: int | None = None) -> list[RunningMatch]:
        """Matches that had not ended, with their moves: to resume (or abort) after a restart.
        ``owner_epoch``: only those a cluster node owns under that epoch (after its takeover)."""
        query = select(Match).where(Match.status == RUNNING).order_by(Match.id)
        if owner_epoch is not None:
            query = query.where(Match.owner_epoch == owner_epoch)
        with self._read() as session:
            matches = list(session.scalars(query))
            if not matches:
                return []
            moves: dict[str, list[MoveRow]] = {match.id: [] for match in matches}
            plies = select(Move).where(Move.match_id.in_(list(moves))).order_by(Move.match_id, Move.ply)
            for move in session.scalars(plies):
                moves[move.match_id].append(convert.move_row(move))
            refs = self._event_games(session, list(moves))
            return [
                RunningMatch(replace(convert.match_start(match), event=refs.get(match.id)), moves[match.id])
                for match in matches
            ]

    def moves_of(self, match_id: str) -> list[MoveRow]:
        """The recorded moves of a match, by ply."""
        with self._read() as session:
            query = select(Move).where(Move.match_id == match_id).order_by(Move.ply)
            return [convert.move_row(move) for move in session.scalars(query)]

    def finished_results(self, ladder: str) -> list[RatedResult]:
        """The finished (not aborted) matches of ``ladder`` in the order they finished."""
        query = select(Match).where(Match.ladder == ladder, Match.status == FINISHED).order_by(Match.sequence)
        with self._read() as session:
            return [convert.rated_result(match) for match in session.scalars(query)]

    def ratings(self, ladder: str) -> list[RatingRow]:
        """The ratings of ``ladder``, best first (by ``mu - 3 sigma``)."""
        ordinal = Rating.mu - 3 * Rating.sigma
        query = (
            select(Rating).where(Rating.ladder == ladder).order_by(ordinal.desc(), Rating.bot, Rating.version)
        )
        with self._read() as session:
            return [convert.rating_row(row) for row in session.scalars(query)]

    def matches(self, ladder: str | None = None, bot: str | None = None, limit: int = 50) -> list[MatchRow]:
        """The latest matches (newest first), of a ladder and/or a bot if given."""
        query = select(Match)
        if ladder is not None:
            query = query.where(Match.ladder == ladder)
        if bot is not None:
            query = query.where(or_(Match.seat_1_bot == bot, Match.seat_2_bot == bot))
        query = query.order_by(Match.started_at.desc(), Match.id).limit(limit)
        with self._read() as session:
            return [convert.match_row(match) for match in session.scalars(query)]

    def finished_records(
        self, ladder: str, after: int = 0, limit: int = 200
    ) -> list[tuple[int, str, dict[str, Any] | None]]:
        """Up to ``limit`` finished matches of ``ladder`` that finished after the one numbered
        ``after``, in finishing order: (finishing number, match id, record or None). Pass the last
        number back as ``after`` for the next page; fewer than ``limit`` means the end."""
        query = (
            select(Match.sequence, Match.id, Match.record)
            .where(Match.ladder == ladder, Match.status == FINISHED, Match.sequence > after)
            .order_by(Match.sequence)
            .limit(limit)
        )
        with self._read() as session:
            return [(int(number), match_id, record) for number, match_id, record in session.execute(query)]

    def match_record(self, match_id: str) -> dict[str, Any] | None:
        """The JSON record of an ended match, or None."""
        with self._read() as session:
            return session.scalar(select(Match.record).where(Match.id == match_id))

    # --- mailbox ------------------------------------------------------------------------------
    def add_mail(self, bot: str, match_id: str, payload: bytes) -> None:
        """Keep ``payload`` for ``bot``; a second mail about the same match is dropped."""
        values = {"bot": bot, "match_id": match_id, "payload": payload, "created_at": self._clock()}
        with self._write() as session:
            self._insert_new(session, Mail, [values])

    def take_mail(self, bot: str) -> list[tuple[str, bytes]]:
        """The mail kept for ``bot`` (oldest first) as (match id, payload); it is deleted."""
        taking = delete(Mail).where(Mail.bot == bot).returning(Mail.created_at, Mail.match_id, Mail.payload)
        with self._write() as session:
            taken = sorted((row.created_at, row.match_id, row.payload) for row in session.execute(taking))
        return [(match_id, payload) for _, match_id, payload in taken]

    # --- ladder status ------------------------------------------------------------------------
    def record_outcome_for_bot(self, ladder: str, bot: str, failed: bool, threshold: int) -> bool:
        """Count a failed match, or end a run of them; pause after ``threshold`` in a row.

        Returns whether the bot is (now) paused on the ladder.
        """
        if threshold < 1:
            raise ValueError(f"the failure threshold must be at least 1, got {threshold}")
        with self._write() as session:
            status = self._status(session, ladder, bot)
            status.consecutive_failures = status.consecutive_failures + 1 if failed else 0
            if failed and status.consecutive_failures >= threshold and not status.paused:
                status.paused = True
                status.paused_reason = f"paused after {status.consecutive_failures} failed matches in a row"
            return status.paused

    def _status(self, session: Session, ladder: str, bot: str) -> LadderStatus:
        fresh = {"ladder": ladder, "bot": bot, "consecutive_failures": 0, "paused": False}
        self._insert_new(session, LadderStatus, [fresh])
        status = session.get(LadderStatus, (ladder, bot), with_for_update=True)
        assert status is not None
        return status

    def resume_bot(self, ladder: str, bot: str) -> None:
        """Lift a pause and forget the bot's run of failures on ``ladder``."""
        with self._write() as session:
            status = session.get(LadderStatus, (ladder, bot))
            if status is not None:
                status.consecutive_failures, status.paused, status.paused_reason = 0, False, None

    def failures_in_a_row(self, ladder: str, bot: str) -> int:
        """The bot's current run of failed matches on ``ladder``."""
        with self._read() as session:
            status = session.get(LadderStatus, (ladder, bot))
            return 0 if status is None else status.consecutive_failures

    def pauses_of(self, bot: str) -> dict[str, str]:
        """Every ladder on which ``bot`` is paused, with the reason."""
        query = select(LadderStatus).where(LadderStatus.bot == bot, LadderStatus.paused.is_(True))
        with self._read() as session:
            return {row.ladder: row.paused_reason or "paused" for row in session.scalars(query)}

    def paused(self, ladder: str, bot: str) -> str | None:
        """Why ``bot`` is paused on ``ladder``, or None when it is not."""
        with self._read() as session:
            status = session.get(LadderStatus, (ladder, bot))
            if status is None or not status.paused:
                return None
            return status.paused_reason or "paused"

    # --- ladder counts kept across restarts (migration 0005) ---------------------------------------
    def take_challenge(
        self, ladder: str, challenger: str, opponent: str, now: float, limit: int, window: float
    ) -> bool:
        """Count a challenge from ``challenger`` to ``opponent`` sent at ``now``, unless ``limit``
        of them were sent in the ``window`` seconds before: then False and nothing is written."""
        with self._write() as session:
            if self._postgres:  # one count-then-insert at a time per ladder
                session.execute(select(Ladder.name).where(Ladder.name == ladder).with_for_update())
            sent = session.scalar(
                select(func.count())
                .select_from(LadderChallenge)
                .where(
                    LadderChallenge.ladder == ladder,
                    LadderChallenge.challenger == challenger,
                    LadderChallenge.opponent == opponent,
                    LadderChallenge.sent_at > now - window,
                )
            )
            if (sent or 0) >= limit:
                return False
            session.add(LadderChallenge(ladder=ladder, challenger=challenger, opponent=opponent, sent_at=now))
            return True

    def admit_version(self, bot: str, version: str, now: float, limit: int, window: float) -> bool:
        """Whether ``bot`` may play as ``version``: yes for a version it had before; a new one is
        recorded (first seen ``now``) unless ``limit`` new ones were first seen in the ``window``
        seconds before, and then False and nothing is written."""
        with self._write() as session:
            if session.get(BotVersionSeen, (bot, version)) is not None:
                return True
            session.get(Bot, bot, with_for_update=True)  # one new version at a time per bot
            recent = session.scalar(
                select(func.count())
                .select_from(BotVersionSeen)
                .where(
                    BotVersionSeen.bot == bot,
                    BotVersionSeen.first_seen > now - window,
                )
            )
            if (recent or 0) >= limit:
                return False
            self._insert_new(session, BotVersionSeen, [{"bot": bot, "version": version, "first_seen": now}])
            return True

    def versions_of(self, bot: str) -> list[tuple[str, float]]:
        """The versions ``bot`` joined ladders with, and when first, oldest first."""
        query = select(BotVersionSeen).where(BotVersionSeen.bot == bot).order_by(BotVersionSeen.first_seen)
        with self._read() as session:
            return [(row.version, row.first_seen) for row in session.scalars(query)]

    def latest_versions(self, ladder: str) -> dict[str, BotVersion]:
        """Per bot, the version it played its last rated match on ``ladder`` with (a new version
        starts from that one's rating: ``ratings.starting_tally``)."""
        last: dict[str, tuple[int, BotVersion]] = {}
        with self._read() as session:
            seats = ((Match.seat_1_bot, Match.seat_1_version), (Match.seat_2_bot, Match.seat_2_version))
            for bot, version in seats:
                newest = (
                    select(bot.label("bot"), func.max(Match.sequence).label("sequence"))
                    .where(Match.ladder == ladder, Match.status == FINISHED, Match.rated.is_(True))
                    .group_by(bot)
                    .subquery()
                )
                query = select(bot, version, Match.sequence).join(
                    newest, (bot == newest.c.bot) & (Match.sequence == newest.c.sequence)
                )
                for name, seen, sequence in session.execute(query):
                    if sequence is not None and (name not in last or sequence >= last[name][0]):
                        last[name] = (sequence, BotVersion(name, seen))
        return {name: version for name, (_, version) in sorted(last.items())}

    # --- reads for the web pages (server/arbiter/web) ---------------------------------------------
    # Read-only queries the pages and the JSON API make; each is one indexed query (or a few) so that
    # a page stays fast with thousands of bots and a hundred thousand matches. A match's record (its
    # largest column) is loaded only by ``match_record``.
    def running_counts(self) -> dict[str | None, int]:
        """How many matches are running now, per ladder (None: matches from seeks)."""
        query = select(Match.ladder, func.count()).where(Match.status == RUNNING).group_by(Match.ladder)
        with self._read() as session:
            return {ladder: int(count) for ladder, count in session.execute(query)}

    def match_rows(
        self,
        ladder: str | None = None,
        bot: str | None = None,
        status: str | None = None,
        limit: int = 50,
    ) -> list[MatchRow]:
        """Like ``matches`` (newest first) without loading records; ``status`` filters too."""
        query = select(Match).options(defer(Match.record), defer(Match.seed))
        if ladder is not None:
            query = query.where(Match.ladder == ladder)
        if bot is not None:
            query = query.where(or_(Match.seat_1_bot == bot, Match.seat_2_bot == bot))
        if status is not None:
            query = query.where(Match.status == status)
        query = query.order_by(Match.started_at.desc(), Match.id).limit(limit)
        with self._read() as session:
            return [convert.match_row(match) for match in session.scalars(query)]

    def pair_scores(self, ladder: str) -> dict[tuple[str, str], tuple[float, int]]:
        """Every pair's score on ``ladder`` by bot (all versions, finished matches): (bot,
        opponent) -> (bot's points, games), a win 1 and a draw 1/2; counted in the database."""
        query = (
            select(Match.seat_1_bot, Match.seat_2_bot, Match.winner_seat, func.count())
            .where(Match.ladder == ladder, Match.status == FINISHED)
            .group_by(Match.seat_1_bot, Match.seat_2_bot, Match.winner_seat)
        )
        table: dict[tuple[str, str], tuple[float, int]] = {}
        with self._read() as session:
            for one, two, winner, count in session.execute(query):
                if one == two:
                    continue
                for me, them, seat in ((one, two, 1), (two, one, 2)):
                    points = count * (1.0 if winner == seat else 0.5 if winner is None else 0.0)
                    had_points, had_games = table.get((me, them), (0.0, 0))
                    table[(me, them)] = (had_points + points, had_games + count)
        return table

    def final_colours(self, match_ids: Collection[str]) -> dict[str, dict[int, str]]:
        """Each ended match's colour per seat at its end (from its record: a Torrent or Fravan
        swap changes them), for the listings; a match without a record is left out."""
        found: dict[str, dict[int, str]] = {}
        ids = list(match_ids)
        if not ids:
            return found
        colours = Match.record["result"]["colours"]
        with self._read() as session:
            for start in range(0, len(ids), CREDENTIALS_PER_QUERY):
                query = select(Match.id, colours).where(
                    Match.id.in_(ids[start : start + CREDENTIALS_PER_QUERY])
                )
                for match_id, by_seat in session.execute(query):
                    if isinstance(by_seat, dict):
                        found[match_id] = {int(seat): str(colour) for seat, colour in by_seat.items()}
        return found

    def match_row(self, match_id: str) -> MatchRow | None:
        """One match as the listings show it, or None."""
        query = select(Match).options(defer(Match.record), defer(Match.seed)).where(Match.id == match_id)
        with self._read() as session:
            match = session.scalars(query).first()
            return None if match is None else convert.match_row(match)

    def running_match(self, match_id: str) -> RunningMatch | None:
        """A running match with its moves so far (its seed is in it: never show it), or None."""
        with self._read() as session:
            match = session.get(Match, match_id)
            if match is None or match.status != RUNNING:
                return None
            query = select(Move).where(Move.match_id == match_id).order_by(Move.ply)
            moves = [convert.move_row(move) for move in session.scalars(query)]
            return RunningMatch(convert.match_start(match), moves)

    def bot_row(self, name: str) -> BotRow | None:
        with self._read() as session:
            bot = session.get(Bot, name)
            return None if bot is None else convert.bot_row(bot)

    def ratings_of_bot(self, bot: str) -> list[RatingRow]:
        """Every rating of ``bot`` (all ladders, all versions)."""
        query = select(Rating).where(Rating.bot == bot).order_by(Rating.ladder, Rating.version)
        with self._read() as session:
            return [convert.rating_row(row) for row in session.scalars(query)]

    def bot_summary(self, bot: str, max_points: int = bot_reads.MAX_POINTS) -> bot_reads.BotSummary:
        """``bot``'s ended matches counted per (ladder, version), per opponent, its failures, and
        its rating history downsampled to at most ``max_points`` points (``bot_reads.summary``)."""
        with self._read() as session:
            return bot_reads.summary(session, bot, max_points)

    def bot_matches(self, bot: str, before: int | None = None, limit: int = 30) -> bot_reads.MatchPage:
        """A page of ``bot``'s matches (``bot_reads.matches``): keyset paging on finishing order."""
        with self._read() as session:
            return bot_reads.matches(session, bot, before, limit)

    def ladder_facts(self, ladder: str) -> LadderFacts:
        """The ratings of ``ladder`` (as ``ratings`` gives them) and what the standings add: each
        rated bot version's last game (a bot's current version is the one of its last game),
        failures by kind, pauses."""
        facts = LadderFacts()

        def latest(seat_bot: Any, seat_version: Any, column: Any) -> Any:
            # A few index entries per rated bot version (the indexes of migration 0002).
            return (
                select(func.max(column))
                .where(Match.ladder == Rating.ladder, seat_bot == Rating.bot, seat_version == Rating.version)
                .scalar_subquery()
            )

        seats = ((Match.seat_1_bot, Match.seat_1_version), (Match.seat_2_bot, Match.seat_2_version))
        ordinal = Rating.mu - 3 * Rating.sigma
        rated = (
            select(
                Rating.bot, Rating.version, Rating.mu, Rating.sigma, Rating.games, Rating.wins,
                Rating.losses, Rating.draws, Rating.updated_at,
                *(latest(bot, version, Match.ended_at) for bot, version in seats),
            )
            .where(Rating.ladder == ladder)
            .order_by(ordinal.desc(), Rating.bot, Rating.version)
        )  # fmt: skip
        with self._read() as session:
            for row in session.execute(rated):
                bot, version, mu, sigma, games, wins, losses, draws, updated, *found = row
                key = BotVersion(bot, version)
                tally = RatingTally(RatingValue(mu, sigma), games, wins, losses, draws)
                facts.ratings.append(RatingRow(ladder, key, tally, _epoch(updated) or 0.0))
                ends = [when for when in map(_epoch, found) if when is not None]
                if not ends:
                    continue
                facts.last_game[key] = last = max(ends)
                if last >= facts.latest_game.get(bot, (float("-inf"), ""))[0]:
                    facts.latest_game[bot] = (last, version)
            failing = (
                select(
                    Match.faulty_seat, Match.seat_1_bot, Match.seat_1_version, Match.seat_2_bot,
                    Match.seat_2_version, Match.termination, func.count(),
                )
                .where(Match.ladder == ladder, Match.faulty_seat.is_not(None), Match.status == FINISHED)
                .group_by(
                    Match.faulty_seat, Match.seat_1_bot, Match.seat_1_version, Match.seat_2_bot,
                    Match.seat_2_version, Match.termination,
                )
            )  # fmt: skip
            for seat, bot_1, version_1, bot_2, version_2, termination, count in session.execute(failing):
                key = BotVersion(bot_1, version_1) if seat == 1 else BotVersion(bot_2, version_2)
                kinds = facts.failures.setdefault(key, {})
                kind = termination or "unknown"
                kinds[kind] = kinds.get(kind, 0) + int(count)
            paused = select(LadderStatus.bot, LadderStatus.paused_reason).where(
                LadderStatus.ladder == ladder, LadderStatus.paused.is_(True)
            )
            facts.paused = {bot: reason or "paused" for bot, reason in session.execute(paused)}
        return facts


def open_store(url: str | None = None) -> SqlStore:
    """The store at ``url`` (default: ``arbiter.db`` here), after checking its schema; a SQLite
    file that does not exist is MissingDatabase (and stays so)."""
    store = SqlStore(url or default_url(), create=False)
    try:
        store.check_schema()
    except StoreError:
        store.close()
        raise
    return store


@contextmanager
def _store_errors() -> Iterator[None]:
    """Database errors become a one-line StoreError."""
    try:
        yield
    except SQLAlchemyError as exc:
        cause = getattr(exc, "orig", None) or exc
        lines = str(cause).strip().splitlines() or [type(cause).__name__]
        transient = isinstance(exc, OperationalError | InterfaceError) or bool(
            getattr(exc, "connection_invalidated", False)
        )
        raise StoreError(f"database error: {lines[0]}", transient=transient) from exc


def _check_name(kind: str, name: str) -> None:
    """The name rule (``arbiter_wire.text``): a bad name is a StoreError."""
    try:
        check_name(name, kind)
    except BadName as exc:
        raise StoreError(str(exc)) from None


def _check_owner(owner: str) -> None:
    problem = text_problem(owner, OWNER)
    if problem is not None:
        raise StoreError(f"bad owner {shown(owner)}: {problem}")


def _one_owner(session: Session, bot_1: str, bot_2: str) -> bool:
    """Whether a match's two bots have one owner (``ladder.host.one_owner``; unregistered: none)."""
    owners = dict(session.execute(select(Bot.name, Bot.owner).where(Bot.name.in_([bot_1, bot_2]))).all())
    return one_owner(bot_1, bot_2, owners.get(bot_1, ""), owners.get(bot_2, ""))


def _ladder(session: Session, name: str) -> Ladder:
    ladder = session.get(Ladder, name)
    if ladder is None:
        raise StoreError(f"no ladder named {name!r}")
    return ladder


def _delete_referring(session: Session, table: str, name: str) -> None:
    """Delete the rows of every table whose foreign key points at ``table``'s row ``name``."""
    for other in Base.metadata.sorted_tables:
        for key in other.foreign_keys:
            if key.column.table.name == table and other.name != table:
                session.execute(delete(other).where(key.parent == name))


def _bot(session: Session, name: str) -> Bot:
    bot = session.get(Bot, name)
    if bot is None:
        raise StoreError(f"no bot named {name!r}")
    return bot


def _epoch(value: Any) -> float | None:
    """A time from an aggregate (SQLite gives text for max() of a timestamp column)."""
    if value is None:
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    if isinstance(value, datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=UTC)
        return float(value.timestamp())
    raise TypeError(f"not a time: {value!r}")
