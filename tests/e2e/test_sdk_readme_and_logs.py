"""The SDK README's bot runs as written (with run_cli), and the SDK logs to stderr at info level."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
import structlog

pytest.importorskip("arbiter.transport.server")

from arbiter.node import ArbiterConfig
from arbiter.sessions.auth import BotDirectory
from arbiter.transport.server import create_server
from arbiter_bot import run_bot
from arbiter_bot.examples.random_bot import RandomBot
from arbiter_games.timecontrol import TimeControl

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "clients" / "python" / "README.md"
TOKENS = {"alice": "token-alice", "bob": "token-bob"}
SPEC = ("torrent", {"size": 5})


@contextlib.contextmanager
def arbiter_with_opponent(games: int = 1) -> Iterator[str]:
    """An arbiter in a thread of its own, with bob (a random bot) seeking ``games`` Torrent 5 games.

    Yields the address; alice's token is free for the bot under test.
    """
    started: list[tuple[str, asyncio.AbstractEventLoop, asyncio.Event]] = []
    failure: list[BaseException] = []
    ready = threading.Event()

    async def main() -> None:
        bots = BotDirectory()
        for name, token in TOKENS.items():
            bots.add(name, token)
        config = ArbiterConfig(bots=bots, default_control=TimeControl(base=30.0, increment=1.0))
        server = await create_server(config)
        stop = asyncio.Event()
        started.append((server.address, asyncio.get_running_loop(), stop))
        ready.set()
        opponent = asyncio.create_task(
            run_bot(RandomBot(2), server.address, TOKENS["bob"], SPEC, games=games)
        )
        try:
            await stop.wait()
        finally:
            opponent.cancel()
            await asyncio.gather(opponent, return_exceptions=True)
            await server.stop(grace=0.5)

    def thread_main() -> None:
        try:
            asyncio.run(main())
        except BaseException as exc:  # noqa: BLE001 - reported to the test
            failure.append(exc)
            ready.set()

    thread = threading.Thread(target=thread_main, daemon=True)
    thread.start()
    assert ready.wait(30), "the arbiter did not start"
    if failure:
        raise failure[0]
    address, loop, stop = started[0]
    try:
        yield address
    finally:
        loop.call_soon_threadsafe(stop.set)
        thread.join(30)


def python_blocks(text: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", text, flags=re.DOTALL)


@pytest.fixture
def own_structlog() -> Iterator[None]:
    """run_cli configures structlog for the whole process (here: onto pytest's capture): undo it."""
    configured, saved = structlog.is_configured(), structlog.get_config()
    try:
        yield
    finally:
        if configured:
            structlog.configure(**saved)
        else:
            structlog.reset_defaults()


@pytest.mark.usefixtures("own_structlog")
def test_the_readme_bot_runs_with_run_cli(capsys, monkeypatch) -> None:
    text = README.read_text(encoding="utf-8")
    writing = text[text.index("## Writing a bot") :]
    bot_code = python_blocks(writing)[0]
    cli_code = next(block for block in python_blocks(text) if "run_cli(" in block)
    import arbiter_bot

    def no_run(*args: object, **kwargs: object) -> None:
        raise AssertionError("the README's bot module plays when imported (no __main__ guard)")

    monkeypatch.setattr(arbiter_bot, "run", no_run)
    module = type(sys)("my_bot")
    exec(compile(bot_code, "README: my_bot.py", "exec"), module.__dict__)
    assert "MyBot" in module.__dict__
    monkeypatch.setitem(sys.modules, "my_bot", module)
    with arbiter_with_opponent() as address:
        argv = ["my_bot", "--server", address, "--token", TOKENS["alice"], "--game", "torrent"]
        monkeypatch.setattr(sys, "argv", [*argv, "--size", "5", "--games", "1"])
        with pytest.raises(SystemExit) as info:
            exec(compile(cli_code, "README: run_cli", "exec"), {"__name__": "__main__"})
    assert info.value.code == 0
    out = capsys.readouterr().out
    assert re.search(r": (win|loss|draw) \d+-\d+ vs bob \(torrent, ", out), out


def test_run_logs_to_stderr_at_info_level_and_keeps_stdout_free() -> None:
    env = dict(os.environ, PYTHONPATH=f"{ROOT / 'server'}:{ROOT / 'clients' / 'python'}")
    with arbiter_with_opponent() as address:
        script = (
            "from arbiter_bot import run\n"
            "from arbiter_bot.examples.random_bot import RandomBot\n"
            f"run(RandomBot(1), {address!r}, {TOKENS['alice']!r}, ('torrent', {{'size': 5}}), games=1)\n"
        )
        done = subprocess.run(
            [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120
        )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "", done.stdout[:2000]
    assert "[info" in done.stderr and "match ended" in done.stderr, done.stderr
    assert "debug" not in done.stderr and "move" not in done.stderr.replace("moves", ""), done.stderr
