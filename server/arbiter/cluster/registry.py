"""The cluster's rows and the SQL that changes them (PostgreSQL only).

Every change is one transaction that locks the rows it decides on, so two nodes deciding at the
same moment are serialised by the database: at most one takes a dead node over, at most one
claims a free ladder. Times are the database's clock (``clock_timestamp()``), never a node's, so
the nodes' clocks need not agree.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import text
from sqlalchemy.orm import Session

from ..store import SqlStore
from .seeks import ACTIVE_CLAIM, drop_with_node

#: States of a registration: ``active`` (hosting), ``draining`` (stopping: no new matches),
#: ``stopped`` (left cleanly), ``dead`` (its lease ran out and another node took it over).
LIVE = ("active", "draining")


class NotPostgres(ValueError):
    """A cluster needs PostgreSQL (row locks shared by several processes on several machines)."""


@dataclass(frozen=True)
class NodeInfo:
    epoch: int
    address: str
    state: str
    #: Whether its lease is still running (by the database's clock).
    leased: bool
    taken_by: int | None


@dataclass(frozen=True)
class Host:
    """Who hosts something (a ladder, a bot's matches): a registration and its address."""

    epoch: int
    address: str
    state: str
    leased: bool

    @property
    def live(self) -> bool:
        return self.state in LIVE and self.leased


@dataclass(frozen=True)
class TakenOver:
    """What a takeover moved to the taker: the dead registration's running matches and ladders."""

    dead_epoch: int
    match_ids: tuple[str, ...]
    ladders: tuple[str, ...]


def _one(session: Session, sql: str, **params: Any) -> Any:
    return session.execute(text(sql), params).first()


class NodeRegistry:
    """One node's view of the cluster's rows in ``store``; ``epoch`` is set by ``register``."""

    def __init__(self, store: SqlStore, address: str, lease: float) -> None:
        if not store.postgres:
            raise NotPostgres("a cluster of nodes needs a PostgreSQL database (--database postgresql://...)")
        self.store = store
        self.address = address
        self.lease = lease
        self.epoch = 0

    # --- this node's registration -------------------------------------------------------------
    def register(self) -> int:
        """A new registration (a new epoch, larger than every earlier one); returns the epoch."""
        with self.store.transaction() as session:
            row = _one(
                session,
                "INSERT INTO cluster_nodes (address, state, started_at, heartbeat_at, lease_expires)"
                " VALUES (:address, 'active', clock_timestamp(), clock_timestamp(),"
                " clock_timestamp() + make_interval(secs => :lease)) RETURNING epoch",
                address=self.address,
                lease=self.lease,
            )
            session.execute(
                text("INSERT INTO cluster_secret (id, secret) VALUES (1, :s) ON CONFLICT (id) DO NOTHING"),
                {"s": secrets.token_hex(32)},
            )
        self.epoch = int(row[0])
        return self.epoch

    def secret(self) -> bytes:
        with self.store.transaction() as session:
            return bytes.fromhex(str(_one(session, "SELECT secret FROM cluster_secret WHERE id = 1")[0]))

    def heartbeat(self) -> str | None:
        """Renew the lease; this registration's state, or None when it is no longer live (it was
        taken over: the node must stop hosting at once)."""
        with self.store.transaction() as session:
            row = _one(
                session,
                "UPDATE cluster_nodes SET heartbeat_at = clock_timestamp(),"
                " lease_expires = clock_timestamp() + make_interval(secs => :lease)"
                " WHERE epoch = :epoch AND state IN ('active', 'draining') RETURNING state",
                epoch=self.epoch,
                lease=self.lease,
            )
        return None if row is None else str(row[0])

    def drain(self) -> None:
        """This registration drains: it starts no match and takes nothing over any more."""
        with self.store.transaction() as session:
            session.execute(
                text("UPDATE cluster_nodes SET state = 'draining' WHERE epoch = :e AND state = 'active'"),
                {"e": self.epoch},
            )

    def hand_over(self) -> dict[str, str]:
        """The ladders of this (draining) registration go, each, to the live active node hosting
        the fewest ladders (none moves when no other node is live). Returns each moved ladder
        with its new host's address."""
        moved: dict[str, str] = {}
        with self.store.transaction() as session:
            ladders = session.execute(
                text("SELECT ladder FROM ladder_hosts WHERE epoch = :e ORDER BY ladder FOR UPDATE"),
                {"e": self.epoch},
            ).scalars()
            for ladder in list(ladders):
                target = _one(
                    session,
                    "SELECT n.epoch, n.address FROM cluster_nodes n"
                    " LEFT JOIN ladder_hosts h ON h.epoch = n.epoch"
                    " WHERE n.state = 'active' AND n.lease_expires > clock_timestamp() AND n.epoch <> :e"
                    " GROUP BY n.epoch, n.address ORDER BY count(h.ladder), n.epoch LIMIT 1",
                    e=self.epoch,
                )
                if target is None:
                    break
                session.execute(
                    text(
                        "UPDATE ladder_hosts SET epoch = :t, claimed_at = clock_timestamp() WHERE ladder = :l"
                    ),
                    {"t": target[0], "l": ladder},
                )
                moved[str(ladder)] = str(target[1])
        return moved

    def stopped(self) -> None:
        """Leave the cluster cleanly: the ladders still hosted here are free to claim; the open
        seeks of this node, and the seeks it claimed for matches that have ended, go."""
        with self.store.transaction() as session:
            session.execute(text("DELETE FROM ladder_hosts WHERE epoch = :e"), {"e": self.epoch})
            session.execute(
                text("DELETE FROM cluster_seeks WHERE epoch = :e AND claimed_by IS NULL"), {"e": self.epoch}
            )
            session.execute(
                text(
                    "DELETE FROM cluster_seeks c WHERE c.claimed_by = :e AND EXISTS"
                    " (SELECT 1 FROM matches f WHERE f.id = c.match_id AND f.status <> 'running')"
                ),
                {"e": self.epoch},
            )
            session.execute(
                text(
                    "UPDATE cluster_nodes SET state = 'stopped'"
                    " WHERE epoch = :e AND state IN ('active', 'draining')"
                ),
                {"e": self.epoch},
            )

    # --- others -------------------------------------------------------------------------------
    def nodes(self) -> list[NodeInfo]:
        with self.store.transaction() as session:
            rows = session.execute(
                text(
                    "SELECT epoch, address, state, lease_expires > clock_timestamp(), taken_by"
                    " FROM cluster_nodes ORDER BY epoch"
                )
            ).all()
        return [NodeInfo(int(r[0]), str(r[1]), str(r[2]), bool(r[3]), r[4]) for r in rows]

    def expired(self) -> list[int]:
        """Live registrations whose lease ran out (candidates for a takeover)."""
        with self.store.transaction() as session:
            found = session.execute(
                text(
                    "SELECT epoch FROM cluster_nodes WHERE state IN ('active', 'draining')"
                    " AND lease_expires < clock_timestamp() AND epoch <> :e ORDER BY epoch"
                ),
                {"e": self.epoch},
            ).scalars()
            return [int(epoch) for epoch in found]

    def same_address(self) -> list[int]:
        """Earlier live registrations at this node's address: this node restarted (it could bind
        its port, so the old process is gone) and takes them over without waiting for the lease."""
        with self.store.transaction() as session:
            found = session.execute(
                text(
                    "SELECT epoch FROM cluster_nodes WHERE state IN ('active', 'draining')"
                    " AND address = :a AND epoch < :e ORDER BY epoch"
                ),
                {"a": self.address, "e": self.epoch},
            ).scalars()
            return [int(epoch) for epoch in found]

    def take_over(self, dead: int, *, force: bool = False) -> TakenOver | None:
        """Take registration ``dead`` over: it is marked dead, and its running matches and its
        ladders become this registration's, in one transaction. None when another node did it
        first, when its lease still runs (unless ``force``), or when this node is not active."""
        with self.store.transaction() as session:
            mine = _one(session, "SELECT state FROM cluster_nodes WHERE epoch = :e FOR SHARE", e=self.epoch)
            if mine is None or mine[0] != "active":
                return None
            row = _one(
                session,
                "UPDATE cluster_nodes SET state = 'dead', taken_by = :me WHERE epoch = :dead"
                " AND state IN ('active', 'draining') AND (lease_expires < clock_timestamp() OR :force)"
                " RETURNING epoch",
                me=self.epoch,
                dead=dead,
                force=force,
            )
            if row is None:
                return None
            matches = session.execute(
                text(
                    "UPDATE matches SET owner_epoch = :me WHERE owner_epoch = :dead AND status = 'running'"
                    " RETURNING id"
                ),
                {"me": self.epoch, "dead": dead},
            ).scalars()
            match_ids = tuple(sorted(str(m) for m in matches))
            ladders = session.execute(
                text(
                    "UPDATE ladder_hosts SET epoch = :me, claimed_at = clock_timestamp() WHERE epoch = :dead"
                    " RETURNING ladder"
                ),
                {"me": self.epoch, "dead": dead},
            ).scalars()
            ladder_names = tuple(sorted(str(name) for name in ladders))
            drop_with_node(session, dead, self.epoch)
            return TakenOver(dead, match_ids, ladder_names)

    # --- placement ----------------------------------------------------------------------------
    def hosts_of_bot(self, bot: str) -> list[Host]:
        """The registrations owning the bot's running matches, or the matches its claimed seeks
        start (normally one or none)."""
        with self.store.transaction() as session:
            rows = session.execute(
                text(
                    "SELECT DISTINCT n.epoch, n.address, n.state, n.lease_expires > clock_timestamp()"
                    " FROM matches m JOIN cluster_nodes n ON n.epoch = m.owner_epoch"
                    " WHERE m.status = 'running' AND (m.seat_1_bot = :b OR m.seat_2_bot = :b)"
                    " UNION SELECT n.epoch, n.address, n.state, n.lease_expires > clock_timestamp()"
                    " FROM cluster_seeks c JOIN cluster_nodes n ON n.epoch = c.claimed_by"
                    " WHERE c.bot = :b AND " + ACTIVE_CLAIM + " ORDER BY 1"
                ),
                {"b": bot},
            ).all()
        return [Host(int(r[0]), str(r[1]), str(r[2]), bool(r[3])) for r in rows]

    def ladder_host(self, ladder: str) -> Host | None:
        with self.store.transaction() as session:
            return _host(session, ladder, lock=False)

    def claim_ladder(self, ladder: str) -> Host:
        """The ladder's host after this call: this node when the ladder had no host or its host
        has left (stopped or dead); else the host it has. A draining host keeps its ladders until
        its hand-over (its last matches of them may still be running, and it rates them), and an
        expired host that has not been taken over yet is returned as it is (the caller takes it
        over first): either way one node alone rates a ladder."""
        with self.store.transaction() as session:
            session.execute(
                text(
                    "INSERT INTO ladder_hosts (ladder, epoch, claimed_at) VALUES (:l, :e, clock_timestamp())"
                    " ON CONFLICT (ladder) DO NOTHING"
                ),
                {"l": ladder, "e": self.epoch},
            )
            host = _host(session, ladder, lock=True)
            assert host is not None  # inserted above or there already
            if host.epoch == self.epoch or host.state in LIVE:
                return host
            session.execute(
                text("UPDATE ladder_hosts SET epoch = :e, claimed_at = clock_timestamp() WHERE ladder = :l"),
                {"e": self.epoch, "l": ladder},
            )
            return Host(self.epoch, self.address, "active", True)

    def epochs_hosting(self, ladders: Sequence[str]) -> dict[str, Host]:
        with self.store.transaction() as session:
            return {name: host for name in ladders if (host := _host(session, name, lock=False)) is not None}


def _host(session: Session, ladder: str, lock: bool) -> Host | None:
    row = _one(
        session,
        "SELECT h.epoch, n.address, n.state, n.lease_expires > clock_timestamp()"
        " FROM ladder_hosts h JOIN cluster_nodes n ON n.epoch = h.epoch WHERE h.ladder = :l"
        + (" FOR UPDATE OF h" if lock else ""),
        l=ladder,
    )
    return None if row is None else Host(int(row[0]), str(row[1]), str(row[2]), bool(row[3]))
