"""The first connection (issue 19 item 5): a bot given a wrong address stops within its connect
timeout (default 30 s) with one ``error:`` line naming the address and exit status 1, instead of
reconnecting forever; an address without a port means port 50051, not gRPC's 443; reconnects after
a first Welcome are not limited by the timeout."""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator

import pytest
from arbiter.node import ArbiterConfig
from arbiter.sessions.auth import BotDirectory
from arbiter.transport.server import BindError, RunningServer, create_server
from arbiter_bot import CONNECT_TIMEOUT, ConnectError, Session, run_bot, with_default_port
from arbiter_bot.client import Backoff
from arbiter_bot.examples.random_bot import RandomBot
from arbiter_games.timecontrol import TimeControl

from tests.conftest import ROOT

ENV = dict(os.environ, PYTHONPATH=f"{ROOT / 'server'}:{ROOT / 'clients' / 'python'}", PYTHONUNBUFFERED="1")
TOKENS = {"alice": "token-alice", "bob": "token-bob"}
SPEC = ("torrent", {"size": 5})
FAST = Backoff(initial=0.05, factor=2.0, maximum=0.2)


@contextlib.contextmanager
def closed_port() -> Iterator[int]:
    """A local port where nothing listens: bound (so nobody else takes it) but not listening."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield sock.getsockname()[1]


def run_example_bot(
    *args: str, env: dict[str, str] | None = None
) -> tuple[subprocess.CompletedProcess, float]:
    """The random example bot as a program (its output and how long it ran), stopped after 60 s."""
    command = [sys.executable, "-m", "arbiter_bot.examples.random_bot", "--token", "token-x", *args]
    started = time.monotonic()
    done = subprocess.run(command, env={**ENV, **(env or {})}, capture_output=True, text=True, timeout=60)
    return done, time.monotonic() - started


def error_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("error:")]


@pytest.mark.parametrize("how", ["flag", "environment"])
def test_a_closed_port_stops_the_bot_with_one_line(how: str) -> None:
    with closed_port() as port:
        address = f"127.0.0.1:{port}"
        if how == "flag":
            done, seconds = run_example_bot("--server", address, "--connect-timeout", "2")
        else:
            done, seconds = run_example_bot(env={"ARBITER_SERVER": address, "ARBITER_CONNECT_TIMEOUT": "2"})
    assert done.returncode == 1, done.stderr
    assert seconds < 40
    errors = error_lines(done.stderr)
    assert len(errors) == 1, done.stderr
    assert errors[0] == done.stderr.splitlines()[-1]  # the last thing it says
    assert f"cannot connect to the arbiter at {address} within 2 s" in errors[0], errors
    assert "Connection refused" in errors[0]
    assert "Traceback" not in done.stderr


def test_the_default_connect_timeout_is_30_seconds() -> None:
    assert CONNECT_TIMEOUT == 30.0
    assert Session(RandomBot(1), "localhost", "t").connect_timeout == 30.0
    with closed_port() as port:
        done, seconds = run_example_bot("--server", f"127.0.0.1:{port}")
    assert done.returncode == 1, done.stderr
    assert 29.5 <= seconds < 40, seconds
    assert error_lines(done.stderr) == [done.stderr.splitlines()[-1]]
    assert f"at 127.0.0.1:{port} within 30 s" in done.stderr
    help_text = subprocess.run(
        [sys.executable, "-m", "arbiter_bot.examples.random_bot", "--help"],
        env=ENV, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert "--connect-timeout S" in help_text and "ARBITER_CONNECT_TIMEOUT; default 30)" in help_text


def test_an_unknown_host_stops_the_bot_and_gets_port_50051() -> None:
    done, seconds = run_example_bot("--server", "no-such-host.invalid", "--connect-timeout", "2")
    assert done.returncode == 1, done.stderr
    assert seconds < 40
    errors = error_lines(done.stderr)
    assert len(errors) == 1 and "at no-such-host.invalid:50051 within 2 s" in errors[0], done.stderr
    assert ":443" not in done.stderr


def test_a_connect_timeout_is_checked() -> None:
    for bad in ("-1", "nan", "soon"):
        done, _ = run_example_bot("--connect-timeout", bad)
        assert done.returncode == 2, done.stderr
        assert "connect-timeout" in done.stderr.lower(), done.stderr
    with pytest.raises(ValueError, match="connect_timeout"):
        Session(RandomBot(1), "localhost", "t", connect_timeout=0)


@pytest.mark.parametrize(
    ("given", "target"),
    [
        ("localhost", "localhost:50051"),
        ("localhost:", "localhost:50051"),
        ("arbiter.example:7000", "arbiter.example:7000"),
        ("10.1.2.3", "10.1.2.3:50051"),
        ("[::1]", "[::1]:50051"),
        ("[::1]:7000", "[::1]:7000"),
        ("::1", "[::1]:50051"),
        ("unix:/run/arbiter.sock", "unix:/run/arbiter.sock"),
        ("dns:///arbiter.example:443", "dns:///arbiter.example:443"),
    ],
)
def test_an_address_without_a_port_gets_50051(given: str, target: str) -> None:
    assert with_default_port(given) == target


def test_every_seed_address_gets_the_default_port() -> None:
    session = Session(RandomBot(1), "a.example, b.example:7000 ,c.example", "t")
    assert session.seeds == ["a.example:50051", "b.example:7000", "c.example:50051"]
    assert session.target == "a.example:50051"


@contextlib.asynccontextmanager
async def arbiter(host: str = "127.0.0.1", port: int = 0) -> AsyncIterator[RunningServer]:
    bots = BotDirectory()
    for name, token in TOKENS.items():
        bots.add(name, token)
    config = ArbiterConfig(bots=bots, default_control=TimeControl(base=30.0, increment=1.0))
    server = await create_server(config, host=host, port=port)
    try:
        yield server
    finally:
        await server.stop(0.5)


async def play(address: str, timeout: float) -> tuple[int, int]:
    """alice and bob play one match through ``address``; the number of matches each finished."""
    alice, bob = (
        run_bot(RandomBot(i), address, TOKENS[name], SPEC, games=1, backoff=FAST, connect_timeout=timeout)
        for i, name in enumerate(TOKENS)
    )
    a, b = await asyncio.wait_for(asyncio.gather(alice, bob), 120)
    return len(a), len(b)


def test_a_server_on_port_50051_is_reached_by_its_bare_host() -> None:
    async def main() -> None:
        # A loopback address of our own (not 127.0.0.1, where a developer's arbiter may listen).
        for _ in range(20):
            host = f"127.{random.randint(1, 254)}.{random.randint(1, 254)}.1"
            try:
                async with arbiter(host, 50051):
                    assert await play(host, timeout=60) == (1, 1)
                    return
            except BindError:
                continue
        pytest.fail("no loopback address had port 50051 free")

    asyncio.run(main())


def test_reconnects_after_a_first_welcome_go_on_past_the_connect_timeout() -> None:
    async def main() -> None:
        async with arbiter() as first:
            port = first.port
            session = Session(RandomBot(1), f"127.0.0.1:{port}", TOKENS["alice"], SPEC, games=1,
                              backoff=FAST, connect_timeout=1)  # fmt: skip
            running = asyncio.create_task(session.run())
            for _ in range(600):
                if session.bot_name or running.done():
                    break
                await asyncio.sleep(0.1)
            assert session.bot_name == "alice"  # welcomed
        # The arbiter is gone: three times the connect timeout of reconnecting, and no ConnectError.
        await asyncio.sleep(3)
        assert not running.done(), running.exception() if running.done() else None
        assert session._attempt >= 3
        async with arbiter(port=port):
            opponent = run_bot(RandomBot(2), f"127.0.0.1:{port}", TOKENS["bob"], SPEC, games=1, backoff=FAST)
            summaries, theirs = await asyncio.wait_for(asyncio.gather(running, opponent), 120)
        assert len(summaries) == 1 and len(theirs) == 1
        assert summaries[0].match_id == theirs[0].match_id

    asyncio.run(main())


def test_session_raises_connect_error_naming_every_seed() -> None:
    async def main() -> None:
        with closed_port() as one, closed_port() as two:
            address = f"127.0.0.1:{one},127.0.0.1:{two}"
            session = Session(RandomBot(1), address, "t", SPEC, backoff=FAST, connect_timeout=1)
            with pytest.raises(ConnectError) as caught:
                await asyncio.wait_for(session.run(), 30)
        assert f"at 127.0.0.1:{one}, 127.0.0.1:{two} within 1 s" in str(caught.value)

    asyncio.run(main())
