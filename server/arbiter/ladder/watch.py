"""Archive and reopen take effect on a running arbiter: a periodic look at the loaded ladders.

``arbiter ladders archive`` (and ``reopen``, ``remove``) change only the store (the CLI is another
process). Every ``LADDER_CHECK`` seconds the arbiter reads the configuration of each ladder it has
loaded and passes it to ``LadderHost.reconfigure``: an archived ladder starts no new match.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import structlog

from ..store import StoreError
from .host import LadderHost
from .model import LadderConfig

log = structlog.get_logger("arbiter")

#: Seconds between two looks at the loaded ladders' configurations.
LADDER_CHECK = 2.0


class LadderWatch:
    """Reads each ladder ``host`` has loaded with ``lookup`` every ``every`` seconds."""

    def __init__(
        self, host: LadderHost, lookup: Callable[[str], LadderConfig | None], every: float = LADDER_CHECK
    ) -> None:
        self.host = host
        self.lookup = lookup
        self.every = every
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run())

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            self._task = None

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.every)
            try:
                await self.check()
            except StoreError as exc:  # the database is away: the next look tries again
                log.warning("ladder_check_failed", error=str(exc).splitlines()[0][:200])
            except Exception:
                log.exception("ladder_check_failed")

    async def check(self) -> int:
        """One look; how many ladders changed."""
        names = list(self.host.ladders)
        found = await asyncio.to_thread(lambda: {name: self.lookup(name) for name in names})
        return sum(1 for name, config in found.items() if self.host.reconfigure(name, config))
