"""The matchmaker of a cluster node: its seeks are rows of ``cluster_seeks`` (``seeks.py``), so a
seek pairs with a compatible seek of a bot connected to any live node."""

from __future__ import annotations

from dataclasses import dataclass, field

import structlog

from ..lobby import Pairing, Seek, SeekKey
from ..store import StoreError
from .seeks import Claim, Moved, SeekTable

log = structlog.get_logger("arbiter")


@dataclass
class Beat:
    """What a heartbeat's look at the seeks found (read off the event loop)."""

    claims: list[Claim] = field(default_factory=list)
    moved: list[Moved] = field(default_factory=list)


class ClusterMatchmaker:
    """The ``Matchmaker`` of a cluster node. A seek is written as a row and claimed at once with
    the oldest compatible open seek, if any; the seeks still open are tried again at every
    heartbeat (``beat``, in a worker thread), so two seeks that arrive at two nodes at the same
    moment still pair. A pairing names its match id: the claim recorded it."""

    def __init__(self, table: SeekTable) -> None:
        self.table = table
        #: This node's open seeks by row (the rows are the truth; this answers ``open_seeks``).
        self.open: dict[int, Seek] = {}

    def add(self, seek: Seek, may_pair: bool = True) -> list[Pairing]:
        row = self.table.add(seek.bot, seek.seek_id, seek.key)
        self.open[row] = seek
        try:
            claim = self.table.claim(row) if may_pair else None
        except StoreError as exc:  # the seek is written: the next heartbeat tries it again
            log.warning("cluster_seek_claim_failed", error=str(exc).splitlines()[0][:200])
            claim = None
        return [] if claim is None else [self.pairing(claim)]

    def pairing(self, claim: Claim) -> Pairing:
        """The pairing a claim made (its seeks are no longer open)."""
        for seek in claim.seats.values():
            self.open.pop(seek.row, None)
        seats = {seat: Seek(row.bot, row.seek_id, claim.key) for seat, row in claim.seats.items()}
        return Pairing(claim.key, seats, claim.match_id)

    def beat(self) -> Beat:
        """Blocking (a worker thread): forget the claimed seeks whose match has ended, try every
        open seek of this node again, and list this node's bots whose seek another node claimed."""
        self.table.forget_ended()
        beat = Beat()
        for row in self.table.open_rows():
            claim = self.table.claim(row)
            if claim is not None:
                beat.claims.append(claim)
        beat.moved = self.table.moved()
        return beat

    def forget(self, row: int) -> None:
        self.open.pop(row, None)

    def remove_bot(self, bot: str) -> None:
        rows = [row for row, seek in self.open.items() if seek.bot == bot]
        for row in rows:
            del self.open[row]
        self.table.drop(rows)

    def open_seeks(self, bot: str) -> int:
        return sum(1 for seek in self.open.values() if seek.bot == bot)

    def waiting(self, key: SeekKey) -> int:
        return self.table.waiting(key)

    def clear(self) -> None:
        rows = list(self.open)
        self.open.clear()
        self.table.drop(rows)
