"""Events hosted for real: an arbiter on a real store behind real sockets, with events in it.

``event_lab`` registers bots, adds an event and starts an arbiter serving on the store (its event
watch looks every ``CHECK`` seconds); ``start`` starts the event as ``arbiter events start`` does
(the store only); ``finished`` waits until the store says it is over.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Sequence
from typing import Any

from arbiter.cli import main
from arbiter.events.model import EventConfig, EventStatus, Format
from arbiter.node import Arbiter, ArbiterConfig
from arbiter.sessions.auth import BotDirectory
from arbiter.store import SqlStore
from arbiter.transport.server import create_server
from arbiter_games.timecontrol import TimeControl
from click.testing import CliRunner

from tests.ladder.harness import Lab, Watch

#: The event watch's period in these tests.
CHECK = 0.05


def torrent_event(name: str, form: Format, **changes: Any) -> EventConfig:
    """A Torrent 5 event with clocks long enough for instant bots on a busy machine."""
    return EventConfig(
        name=name,
        game="torrent",
        options={"size": 5},
        control=TimeControl(base=30.0, increment=1.0),
        format=form,
        **changes,
    )


def prepare(store_url: str, bots: Sequence[str], events: Sequence[EventConfig]) -> dict[str, str]:
    """Register ``bots`` and add ``events``; the bots' tokens."""
    store = SqlStore(store_url)
    store.upgrade()
    tokens = {name: store.add_bot(name, f"owner of {name}") for name in bots}
    for event in events:
        store.add_event(event)
    store.close()
    return tokens


@contextlib.asynccontextmanager
async def event_lab(
    store_url: str, tokens: dict[str, str], grace: float = 60.0, port: int = 0
) -> AsyncIterator[Lab]:
    """An arbiter serving on the store at ``store_url`` with a quick event watch (``port``: a
    given one, for an arbiter started again where the bots reconnect)."""
    store = SqlStore(store_url)
    config = ArbiterConfig(bots=BotDirectory(), event_check=CHECK, event_grace=grace)
    arbiter = Arbiter(config, store=store)
    watch = Watch()
    arbiter.bus.subscribe(watch)
    server = await create_server(config, port=port, arbiter=arbiter)
    lab = Lab(server, store, dict(tokens), watch)
    try:
        yield lab
    finally:
        for bot in lab.bots:
            await bot.close()
        await lab.stop(0.1)  # what still runs is aborted
        store.close()


def enter(store_url: str, event: str, bots: Sequence[str]) -> None:
    """The host enters ``bots`` in this order (seeds 1, 2, ...)."""
    store = SqlStore(store_url)
    for bot in bots:
        store.add_entrant(event, bot)
    store.close()


def cli(store_url: str, *args: str) -> str:
    result = CliRunner().invoke(main, [*args, "--database", store_url])
    assert result.exit_code == 0, result.output
    return result.stdout  # (the arbiter in this process logs to standard error meanwhile)


def start(store_url: str, event: str) -> None:
    cli(store_url, "events", "start", event)


def shown(store_url: str, event: str) -> dict[str, Any]:
    """``arbiter events show NAME --json``."""
    report: dict[str, Any] = json.loads(cli(store_url, "events", "show", event, "--json"))
    return report


async def status_becomes(store: SqlStore, event: str, status: EventStatus, timeout: float = 60.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        row = await asyncio.to_thread(store.get_event, event)
        if row is not None and row.status is status:
            return
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"event {event} is {row.status if row else None}, not {status}")
        await asyncio.sleep(0.05)
