"""A check run every few seconds on the running event loop, whose failures are logged and tried
again at the next round (the store may be away for a while): the credential watch and the
ladder watch run this way."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import structlog

from .store import StoreError

log = structlog.get_logger("arbiter")


class Periodic:
    """Awaits ``check()`` every ``every`` seconds between ``start()`` and ``stop()``; a failure is
    logged as ``event`` (a StoreError in one line, anything else with its traceback)."""

    def __init__(self, every: float, check: Callable[[], Awaitable[Any]], event: str) -> None:
        if not every > 0:
            raise ValueError(f"the interval of {event.removesuffix('_failed')} must be positive")
        self.every = every
        self._check = check
        self._event = event
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
                await self._check()
            except StoreError as exc:  # the database is away: the next round tries again
                log.warning(self._event, error=str(exc).splitlines()[0][:200])
            except Exception:
                log.exception(self._event)
