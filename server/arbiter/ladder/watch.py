"""Archive and reopen take effect on a running arbiter: a periodic look at the loaded ladders.

``arbiter ladders archive`` (and ``reopen``, ``remove``) change only the store (the CLI is another
process). Every ``LADDER_CHECK`` seconds the arbiter reads the configuration of each ladder it has
loaded and passes it to ``LadderHost.reconfigure``: an archived ladder starts no new match.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from ..periodic import Periodic
from .host import LadderHost
from .model import LadderConfig

#: Seconds between two looks at the loaded ladders' configurations.
LADDER_CHECK = 2.0


class LadderWatch:
    """Reads each ladder ``host`` has loaded with ``lookup`` every ``every`` seconds."""

    def __init__(
        self, host: LadderHost, lookup: Callable[[str], LadderConfig | None], every: float = LADDER_CHECK
    ) -> None:
        self.host = host
        self.lookup = lookup
        self._rounds = Periodic(every, self.check, "ladder_check_failed")

    def start(self) -> None:
        self._rounds.start()

    def stop(self) -> None:
        self._rounds.stop()

    async def check(self) -> int:
        """One look; how many ladders changed."""
        names = list(self.host.ladders)
        found = await asyncio.to_thread(lambda: {name: self.lookup(name) for name in names})
        return sum(1 for name, config in found.items() if self.host.reconfigure(name, config))
