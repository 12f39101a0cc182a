"""A real arbiter with its web pages, real bots on real ladders, and a real browser (chromium).

The arbiter runs in a thread of its own (its own asyncio loop), so that the tests can drive
Playwright's synchronous API from the main thread. The browser is Debian's ``chromium`` package,
launched by its path; ``deploy/dev test`` installs it when it is missing (see the README). These
tests fail, never skip, without it.
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from collections.abc import Callable, Coroutine, Iterator
from pathlib import Path
from typing import Any

import pytest
from arbiter.ladder.model import LadderConfig
from arbiter.node import Arbiter, ArbiterConfig
from arbiter.sessions.auth import BotDirectory
from arbiter.store import SqlStore
from arbiter.transport.server import RunningServer, create_server
from arbiter.web.app import WebServer, create_app
from arbiter.web.live import LiveHub
from arbiter_bot.bot import Bot
from arbiter_bot.client import Session
from arbiter_bot.examples.greedy_flank import GreedyFlankBot
from arbiter_bot.examples.random_bot import RandomBot
from arbiter_bot.examples.surge_tips import SurgeTipsBot
from arbiter_games.timecontrol import TimeControl

from tests.ladder_games import play_each

CHROMIUM = os.environ.get("ARBITER_CHROMIUM", "/usr/bin/chromium")
#: Set to a folder to save a screenshot of each page there (docs/screenshots is the committed set).
SCREENSHOTS = os.environ.get("ARBITER_WEB_SCREENSHOTS")

FLANK_BOTS = ("ann", "ben", "cat", "dan", "eve")
SURGE_BOTS = ("sol", "tia")
SLOW_BOTS = ("uma", "vic")
CONTROL = TimeControl(base=60.0, increment=1.0)


class Slow(Bot):
    """A bot that thinks ``delay`` seconds per move (so that a match is still running)."""

    def __init__(self, inner: Bot, delay: float) -> None:
        self.inner = inner
        self.delay = delay
        self.name = inner.name

    def choose(self, observation: Any, legal: Any, context: Any) -> Any:
        time.sleep(self.delay)
        return self.inner.choose(observation, legal, context)


class Site:
    """An arbiter (gRPC) and its web pages on free local ports, run in a background thread."""

    def __init__(self, store: SqlStore) -> None:
        self.store = store
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="arbiter", daemon=True)
        self.thread.start()
        self.hub = LiveHub({"slow-surge": 0})
        self.tokens: dict[str, str] = {}
        self.states: dict[str, list[object]] = {}
        self.grpc: RunningServer | None = None
        self.web: WebServer | None = None

    def run(self, coroutine: Coroutine[Any, Any, Any], timeout: float = 60.0) -> Any:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    def submit(self, coroutine: Coroutine[Any, Any, Any]) -> Any:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop)

    async def start(self) -> None:
        config = ArbiterConfig(bots=BotDirectory(), default_control=CONTROL)
        arbiter = Arbiter(config, store=self.store, listeners=[self.hub])
        self.grpc = await create_server(config, "127.0.0.1", 0, arbiter=arbiter)
        self.web = WebServer(create_app(self.store, self.hub, arbiter.sessions.connected), "127.0.0.1", 0)
        await self.web.start()

    async def stop(self) -> None:
        if self.web is not None:
            await self.web.stop()
        if self.grpc is not None:
            await self.grpc.stop(1.0)

    @property
    def url(self) -> str:
        assert self.web is not None
        return self.web.address

    async def play(self, ladder: str, spec: Any, bots: dict[str, Bot], games: int) -> list[Any]:
        """Each bot plays at least ``games`` matches on ``ladder`` (all stay until all have them)."""
        assert self.grpc is not None
        address = self.grpc.address
        sessions = {
            name: Session(bot, address, self.tokens[name], spec, None, ladder=ladder, version="v1")
            for name, bot in bots.items()
        }
        return list((await play_each(sessions, games, timeout=110)).values())


def wait_for(condition: Callable[[], Any], timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def until(page: Any, expression: str, arg: Any = None, timeout: float = 15.0) -> None:
    """Wait until ``expression`` (or a function of ``arg``) is true in ``page``. Playwright's
    ``wait_for_function`` polls by evaluating a string inside the page, which the pages' policy
    (no ``unsafe-eval``) refuses; ``evaluate`` goes through the browser's debugger instead."""
    deadline = time.monotonic() + timeout
    while not page.evaluate(expression, arg):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {expression}")
        page.wait_for_timeout(50)


@pytest.fixture(scope="package")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    """Ladders t5 (Torrent 5), surge and slow-surge, with a short run of real bots played on the first two."""
    folder = tmp_path_factory.mktemp("web")
    store = SqlStore(f"sqlite:///{folder / 'arbiter.db'}")
    store.upgrade()
    store.add_ladder(LadderConfig("t5", "torrent", {"size": 5}, CONTROL))
    store.add_ladder(LadderConfig("surge", "surge", {}, CONTROL))
    store.add_ladder(LadderConfig("slow-surge", "surge", {}, CONTROL))
    site = Site(store)
    for name in FLANK_BOTS + SURGE_BOTS + SLOW_BOTS:
        site.tokens[name] = store.add_bot(name, f"owner of {name}")
    site.run(site.start())
    flank = {name: (GreedyFlankBot(i) if i % 2 else RandomBot(i)) for i, name in enumerate(FLANK_BOTS)}
    surge = {name: SurgeTipsBot(i) for i, name in enumerate(SURGE_BOTS)}

    async def short_run() -> None:
        await asyncio.gather(
            site.play("t5", ("torrent", {"size": 5}), flank, 4),  # type: ignore[arg-type]
            site.play("surge", "surge", surge, 1),  # type: ignore[arg-type]
        )

    site.run(short_run(), timeout=120)
    yield site
    site.run(site.stop())
    site.loop.call_soon_threadsafe(site.loop.stop)
    site.thread.join(5)
    store.close()


@pytest.fixture(scope="package")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        pytest.fail(
            f"no browser at {CHROMIUM}: install Debian's chromium ('sudo apt-get install chromium'), "
            "or run deploy/dev test as root",
            pytrace=False,
        )
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    opened = context.new_page()
    opened.set_default_timeout(15_000)
    yield opened
    context.close()


def screenshot(page: Any, name: str) -> None:
    if SCREENSHOTS:
        Path(SCREENSHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SCREENSHOTS) / f"{name}.png"), full_page=True)
