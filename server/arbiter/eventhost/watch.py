"""What the store says of events, noticed by a running arbiter: a periodic look.

``arbiter events start``, ``cancel`` and ``entrants --remove`` change only the store (the CLI is
another process). Every ``EVENT_CHECK`` seconds the arbiter reads the events: a scheduled event
whose start time has come is started (its status written ``running``); a running event it does
not host yet is hosted (``EventHost.begin``); a hosted event that was cancelled stops, and bots
withdrawn by the host forfeit their games not started yet.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass

import structlog

from ..events.model import EventStatus
from ..periodic import Periodic
from ..store import StoreError
from .host import EventHost, EventStore

log = structlog.get_logger("arbiter")

#: Seconds between two looks at the events in the store.
EVENT_CHECK = 1.0


@dataclass(frozen=True)
class _Seen:
    name: str
    status: EventStatus
    withdrawn: frozenset[str]


class EventWatch:
    """Looks at the events in ``store`` every ``every`` seconds, for ``host``."""

    def __init__(
        self,
        host: EventHost,
        store: EventStore,
        every: float = EVENT_CHECK,
        wall: Callable[[], float] = time.time,
    ) -> None:
        self.host = host
        self.store = store
        self.wall = wall
        self._rounds = Periodic(every, self.check, "event_check_failed")

    def start(self) -> None:
        self._rounds.start()

    def stop(self) -> None:
        self._rounds.stop()

    async def check(self) -> int:
        """One look; how many events this host began, stopped or saw withdrawals in."""
        if self.host.stopping:
            return 0
        hosted = set(self.host.events)
        seen = await asyncio.to_thread(self._look, hosted)
        changed = 0
        for found in seen:
            if found.status is EventStatus.RUNNING and found.name not in self.host.events:
                changed += self.host.begin(found.name)
            elif found.status is EventStatus.CANCELLED:
                changed += found.name in self.host.events
                self.host.cancelled(found.name)
            hosted_event = self.host.events.get(found.name)
            if hosted_event is not None and found.withdrawn - hosted_event.withdrawn:
                self.host.withdrawn(found.name, set(found.withdrawn))
                changed += 1
        return changed

    def _look(self, hosted: set[str]) -> list[_Seen]:
        """On a worker thread: start the events whose time has come, and read the running ones
        and those hosted here."""
        now = self.wall()
        seen: list[_Seen] = []
        for row in self.store.list_events():
            name, status = row.config.name, row.status
            starts = row.config.starts_at
            if status is EventStatus.SCHEDULED and starts is not None and starts <= now:
                try:
                    self.store.set_event_status(name, EventStatus.RUNNING)
                except StoreError:
                    continue  # started or cancelled in between: the next look sees it
                status = EventStatus.RUNNING
                log.info("event_started", event_name=name, by="its start time")
            if status is EventStatus.RUNNING or name in hosted:
                withdrawn = frozenset(
                    entry.bot for entry in self.store.entrants(name) if entry.withdrawn_at is not None
                )
                seen.append(_Seen(name, status, withdrawn))
        return seen
