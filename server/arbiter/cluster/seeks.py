"""Seeks of a cluster: rows in ``cluster_seeks`` that any live node may pair (PostgreSQL only).

A node writes each seek of a bot connected to it as a row. A **claim** is one transaction, run by
the node of one of the two seeks, which hosts their match: it locks its own open seek and the
oldest open seek with the same key of another bot on a live ``active`` node (``FOR UPDATE SKIP
LOCKED``), takes a transaction-scoped advisory lock on each of the two bots (in name order), checks
again that both bots may play, and sets ``claimed_by``, ``match_id`` and ``seat`` on both rows. So
two nodes never claim one seek (the row lock and ``claimed_by IS NULL``), a match never has two
seeks in one seat (the unique ``(match_id, seat)``), and two claims for one bot are serialised (the
advisory lock), so each sees the other's.

Who may play: a bot whose seek is on the claiming node (it is connected here) may have matches
here, but none on another node and no seek claimed by another node; a bot whose seek is on another
node (it moves here for the match) must have no running match at all and no seek claimed anywhere.
A claimed seek counts as a running match until the match's row says it ended.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from arbiter_games.timecontrol import TimeControl
from sqlalchemy import text
from sqlalchemy.orm import Session

from ..hosting.host import new_match_id
from ..lobby import SeekKey
from ..store import SqlStore

#: A seek claimed and not yet ended (its match has no row yet, or a running one).
ACTIVE_CLAIM = (
    "c.claimed_by IS NOT NULL AND NOT EXISTS"
    " (SELECT 1 FROM matches f WHERE f.id = c.match_id AND f.status <> 'running')"
)

#: True when bot :b may not play a match hosted by :me (``:remote``: its session is on another
#: node, so it would move here and may have nothing running anywhere).
_BUSY = (
    "(EXISTS (SELECT 1 FROM matches r WHERE r.status = 'running'"
    " AND (r.seat_1_bot = {b} OR r.seat_2_bot = {b}) AND (r.owner_epoch IS DISTINCT FROM :me OR {remote}))"
    " OR EXISTS (SELECT 1 FROM cluster_seeks c WHERE c.bot = {b} AND " + ACTIVE_CLAIM + ""
    " AND (c.claimed_by <> :me OR {remote})))"
)


RETRY: Literal["retry"] = "retry"


def pairing_key(key: SeekKey) -> str:
    """The text two seeks must share to pair: the game, its normalised options, the clocks."""
    clocks = [key.control.base, key.control.increment, key.control.per_decision]
    return json.dumps([key.game, [list(pair) for pair in key.options], clocks], separators=(",", ":"))


def key_of(text: str) -> SeekKey:
    """The SeekKey a ``pairing_key`` was made from."""
    game, options, (base, increment, per_decision) = json.loads(text)
    control = TimeControl(base=base, increment=increment, per_decision=per_decision)
    return SeekKey(str(game), tuple((str(name), int(value)) for name, value in options), control)


@dataclass(frozen=True)
class SeekRow:
    """A seek as the claim read it."""

    row: int
    bot: str
    seek_id: str
    #: The registration holding the bot's session when it sought.
    epoch: int


@dataclass(frozen=True)
class Claim:
    """Two seeks paired by this node: ``seats[1]`` moves first; the match is ``match_id``."""

    match_id: str
    key: SeekKey
    seats: Mapping[int, SeekRow]


@dataclass(frozen=True)
class Moved:
    """A seek of a bot connected to this node, claimed by another node: the bot must go there."""

    row: int
    bot: str
    match_id: str
    epoch: int
    address: str


def _one(session: Session, sql: str, **params: Any) -> Any:
    return session.execute(text(sql), params).first()


class SeekTable:
    """This node's (``epoch``) part of ``cluster_seeks``."""

    def __init__(self, store: SqlStore, epoch: int) -> None:
        self.store = store
        self.epoch = epoch

    def add(self, bot: str, seek_id: str, key: SeekKey) -> int:
        """Write an open seek of a bot connected here; its row id."""
        with self.store.transaction() as session:
            row = _one(
                session,
                "INSERT INTO cluster_seeks (seek_id, bot, game, pairing_key, epoch, created_at)"
                " VALUES (:s, :b, :g, :k, :me, clock_timestamp()) RETURNING id",
                s=seek_id,
                b=bot,
                g=key.game,
                k=pairing_key(key),
                me=self.epoch,
            )
        return int(row[0])

    def waiting(self, key: SeekKey) -> int:
        """Open seeks of this key on live active nodes (what SeekPending's ``waiting`` says)."""
        with self.store.transaction() as session:
            row = _one(
                session,
                "SELECT count(*) FROM cluster_seeks s JOIN cluster_nodes n ON n.epoch = s.epoch"
                " WHERE s.pairing_key = :k AND s.claimed_by IS NULL AND n.state = 'active'"
                " AND n.lease_expires > clock_timestamp()",
                k=pairing_key(key),
            )
        return int(row[0])

    def drop(self, rows: list[int]) -> None:
        """Delete open seeks of this node (their bot left, or this node stops pairing)."""
        self._on_own_rows(
            "DELETE FROM cluster_seeks WHERE id = ANY(:ids) AND epoch = :me AND claimed_by IS NULL", rows
        )

    def open_rows(self) -> list[int]:
        """This node's open seeks, oldest first."""
        with self.store.transaction() as session:
            found = session.execute(
                text(
                    "SELECT id FROM cluster_seeks WHERE epoch = :me AND claimed_by IS NULL"
                    " ORDER BY created_at, id"
                ),
                {"me": self.epoch},
            ).scalars()
            return [int(row) for row in found]

    def claim(self, row: int) -> Claim | None:
        """Pair this node's open seek ``row`` with the oldest compatible open seek (above); None
        when there is none now (or this node is not active, or the seek is gone or taken)."""
        for _ in range(3):  # a candidate found busy once its bot is locked: try the next one
            outcome = self._claim_once(row)
            if outcome != RETRY:
                return outcome if isinstance(outcome, Claim) else None
        return None

    def _claim_once(self, row: int) -> Claim | Literal["retry"] | None:
        """A Claim, None (nothing to pair), or RETRY (the candidate proved busy: try the next)."""
        with self.store.transaction() as session:
            mine = _one(session, "SELECT state FROM cluster_nodes WHERE epoch = :me FOR SHARE", me=self.epoch)
            if mine is None or mine[0] != "active":
                return None
            own = _one(
                session,
                "SELECT id, bot, seek_id, pairing_key FROM cluster_seeks"
                " WHERE id = :id AND epoch = :me AND claimed_by IS NULL FOR UPDATE SKIP LOCKED",
                id=row,
                me=self.epoch,
            )
            if own is None or self._busy(session, str(own[1]), remote=False):
                return None
            other = _one(
                session,
                "SELECT s.id, s.bot, s.seek_id, s.epoch FROM cluster_seeks s"
                " JOIN cluster_nodes n ON n.epoch = s.epoch"
                " WHERE s.pairing_key = :k AND s.claimed_by IS NULL AND s.bot <> :b AND s.id <> :id"
                " AND n.state = 'active' AND n.lease_expires > clock_timestamp()"
                " AND NOT " + _BUSY.format(b="s.bot", remote="s.epoch <> :me") + ""
                " ORDER BY s.created_at, s.id LIMIT 1 FOR UPDATE OF s SKIP LOCKED",
                k=own[3],
                b=own[1],
                id=row,
                me=self.epoch,
            )
            if other is None:
                return None
            ours = SeekRow(int(own[0]), str(own[1]), str(own[2]), self.epoch)
            theirs = SeekRow(int(other[0]), str(other[1]), str(other[2]), int(other[3]))
            for bot in sorted({ours.bot, theirs.bot}):
                session.execute(text("SELECT pg_advisory_xact_lock(hashtextextended(:b, 0))"), {"b": bot})
            # Read again now that no other claim of these bots is in flight: it may have committed.
            if self._busy(session, ours.bot, remote=False) or self._busy(
                session, theirs.bot, remote=theirs.epoch != self.epoch
            ):
                return RETRY
            seats = self._seats(session, waiting=theirs, arriving=ours)
            match_id = new_match_id()
            for seat, seek in seats.items():
                session.execute(
                    text(
                        "UPDATE cluster_seeks SET claimed_by = :me, claimed_at = clock_timestamp(),"
                        " match_id = :m, seat = :seat WHERE id = :id AND claimed_by IS NULL"
                    ),
                    {"me": self.epoch, "m": match_id, "seat": seat, "id": seek.row},
                )
            return Claim(match_id, key_of(str(own[3])), seats)

    def _busy(self, session: Session, bot: str, remote: bool) -> bool:
        sql = "SELECT " + _BUSY.format(b=":bot", remote=":remote")
        row = _one(session, sql, bot=bot, remote=remote, me=self.epoch)
        return bool(row[0])

    def _seats(self, session: Session, waiting: SeekRow, arriving: SeekRow) -> dict[int, SeekRow]:
        """Seats alternate between two bots from one match of seeks to the next, wherever it was
        hosted; their first match gives the waiting (older) seek seat 1."""
        last = _one(
            session,
            "SELECT seat_1_bot FROM matches WHERE ladder IS NULL AND ((seat_1_bot = :a AND seat_2_bot = :b)"
            " OR (seat_1_bot = :b AND seat_2_bot = :a)) ORDER BY started_at DESC LIMIT 1",
            a=waiting.bot,
            b=arriving.bot,
        )
        if last is None or str(last[0]) == arriving.bot:
            return {1: waiting, 2: arriving}
        return {1: arriving, 2: waiting}

    def moved(self) -> list[Moved]:
        """Seeks of bots whose session is here, claimed by another node (the bots must go there)."""
        with self.store.transaction() as session:
            rows = session.execute(
                text(
                    "SELECT c.id, c.bot, c.match_id, c.claimed_by, n.address FROM cluster_seeks c"
                    " JOIN cluster_nodes n ON n.epoch = c.claimed_by"
                    " WHERE c.epoch = :me AND c.claimed_by <> :me AND " + ACTIVE_CLAIM + " ORDER BY c.id"
                ),
                {"me": self.epoch},
            ).all()
        return [Moved(int(r[0]), str(r[1]), str(r[2]), int(r[3]), str(r[4])) for r in rows]

    def sent(self, rows: list[int]) -> None:
        """The bots of these claimed seeks were sent to the claiming node: their session is there now."""
        self._on_own_rows(
            "UPDATE cluster_seeks SET epoch = claimed_by WHERE id = ANY(:ids) AND epoch = :me", rows
        )

    def _on_own_rows(self, statement: str, rows: list[int]) -> None:
        """Run ``statement`` (with ``:ids`` and ``:me``, this node's epoch) on ``rows``, if any."""
        if not rows:
            return
        with self.store.transaction() as session:
            session.execute(text(statement), {"ids": rows, "me": self.epoch})

    def forget_ended(self) -> int:
        """Delete the seeks this node claimed whose match has ended; how many."""
        with self.store.transaction() as session:
            result = session.execute(
                text(
                    "DELETE FROM cluster_seeks c WHERE c.claimed_by = :me AND EXISTS"
                    " (SELECT 1 FROM matches f WHERE f.id = c.match_id AND f.status <> 'running')"
                ),
                {"me": self.epoch},
            )
            return int(getattr(result, "rowcount", 0) or 0)


def drop_with_node(session: Session, dead: int, taker: int) -> None:
    """In a takeover (or a restart's) transaction: the open seeks of registration ``dead`` go
    (its bots' sessions are gone); its claimed seeks whose match was recorded become the taker's
    (the match moved there), and those whose match was never recorded go."""
    session.execute(text("DELETE FROM cluster_seeks WHERE epoch = :d AND claimed_by IS NULL"), {"d": dead})
    session.execute(
        text(
            "DELETE FROM cluster_seeks c WHERE c.claimed_by = :d"
            " AND NOT EXISTS (SELECT 1 FROM matches m WHERE m.id = c.match_id)"
        ),
        {"d": dead},
    )
    moves = {"t": taker, "d": dead}
    session.execute(text("UPDATE cluster_seeks SET claimed_by = :t WHERE claimed_by = :d"), moves)
    session.execute(text("UPDATE cluster_seeks SET epoch = :t WHERE epoch = :d"), moves)
