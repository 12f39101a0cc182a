"""``arbiter web`` (the web pages as a separate process that only reads the store) and what
``arbiter serve --web`` shares with it."""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Callable

import click

from .security.connections import (
    MAX_SPECTATORS,
    MAX_SPECTATORS_PER_ADDRESS,
    WEB_HEADER_TIMEOUT,
    WEB_MAX_CONNECTIONS,
    WEB_MAX_CONNECTIONS_PER_ADDRESS,
)


def parse_address(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (or just ``PORT``) -> (host, port); port 0 picks a free one."""
    host, _, port = text.rpartition(":")
    host = host.strip("[]") or "127.0.0.1"
    try:
        number = int(port)
    except ValueError:
        raise click.BadParameter(f"{text!r} is not HOST:PORT") from None
    if not 0 <= number <= 65535:
        raise click.BadParameter(f"port {number} is out of range")
    return host, number


def parse_delays(specs: tuple[str, ...]) -> tuple[int, dict[str, int]]:
    """``--live-delay N`` (every ladder) and ``--live-delay LADDER=N``: (default, per ladder)."""
    default, per_ladder = 0, {}
    for spec in specs:
        name, _, count = spec.rpartition("=")
        try:
            moves = int(count)
        except ValueError:
            raise click.BadParameter(f"{spec!r}: give N or LADDER=N (a number of moves)") from None
        if moves < 0:
            raise click.BadParameter(f"{spec!r}: the delay cannot be negative")
        if name:
            per_ladder[name] = moves
        else:
            default = moves
    return default, per_ladder


def live_delay_option(func: Callable[..., None]) -> Callable[..., None]:
    return click.option(
        "--live-delay",
        "live_delay",
        multiple=True,
        metavar="[LADDER=]N",
        help="Spectators see running matches N moves late (every ladder, or one; repeatable).",
    )(func)


def spectator_options(func: Callable[..., None]) -> Callable[..., None]:
    """``--web-max-spectators`` and ``--web-max-spectators-per-address``: caps on the live views'
    event streams (server-sent events) open at once."""
    func = click.option(
        "--web-max-spectators-per-address",
        type=click.IntRange(min=1),
        default=MAX_SPECTATORS_PER_ADDRESS,
        show_default=True,
        metavar="N",
        help="Live event streams open at once from one address (an IPv6 /64); more get 429.",
    )(func)
    return click.option(
        "--web-max-spectators",
        type=click.IntRange(min=1),
        default=MAX_SPECTATORS,
        show_default=True,
        metavar="N",
        help="Live event streams open at once in all; more get 503.",
    )(func)


def connection_options(func: Callable[..., None]) -> Callable[..., None]:
    """``--web-header-timeout``, ``--web-max-connections`` and
    ``--web-max-connections-per-address``: the web port's limits on slow and many clients
    (web/guard.py)."""
    func = click.option(
        "--web-max-connections-per-address",
        type=click.IntRange(min=0),
        default=WEB_MAX_CONNECTIONS_PER_ADDRESS,
        show_default=True,
        metavar="N",
        help="Connections to the web port open at once from one address (an IPv6 /64); more are"
        " answered 503 and closed as they are accepted (0: no cap).",
    )(func)
    func = click.option(
        "--web-max-connections",
        type=click.IntRange(min=0),
        default=WEB_MAX_CONNECTIONS,
        show_default=True,
        metavar="N",
        help="Connections to the web port open at once; more are answered 503 and closed as they"
        " are accepted (0: no cap).",
    )(func)
    return click.option(
        "--web-header-timeout",
        type=click.FloatRange(min=0),
        default=WEB_HEADER_TIMEOUT,
        show_default=True,
        metavar="SECONDS",
        help="Seconds a web connection has to send a whole request head; then it is closed (0: none).",
    )(func)


def account_options(func: Callable[..., None]) -> Callable[..., None]:
    """``--signup`` and ``--web-secret-file``: the bot owners' pages (docs/accounts.md)."""
    func = click.option(
        "--web-secret-file",
        type=click.Path(dir_okay=False),
        default=None,
        metavar="PATH",
        help="A file holding the key that signs session cookies (at least 32 bytes) [default: a key"
        " made once and kept in the store].",
    )(func)
    return click.option(
        "--signup",
        type=click.Choice(["open", "invite", "closed"]),
        default="invite",
        show_default=True,
        help="Who may make an account on the web pages: anyone, holders of an invite code"
        " (arbiter invites add), or nobody.",
    )(func)


#: The shortest key ``--web-secret-file`` may hold (bytes).
MIN_SECRET = 32


def read_secret(path: str | None) -> bytes | None:
    """The key in ``path`` (surrounding white space left out), or None without a path; a file that
    cannot be read or is too short is a usage error."""
    if path is None:
        return None
    try:
        with open(path, "rb") as file:
            secret = file.read().strip()
    except OSError as exc:
        message = f"cannot read {path}: {exc.strerror or exc}"
        raise click.BadParameter(message, param_hint="--web-secret-file") from None
    if len(secret) < MIN_SECRET:
        raise click.BadParameter(
            f"{path} holds {len(secret)} bytes: a key is at least {MIN_SECRET}",
            param_hint="--web-secret-file",
        )
    return secret


@click.command("web")
@click.option(
    "--database",
    default=None,
    envvar="ARBITER_DATABASE",
    metavar="URL",
    help="The store to show: sqlite:///FILE or postgresql://... ($ARBITER_DATABASE)"
    " [default: sqlite:///arbiter.db here]",
)
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=int, default=8080, show_default=True, help="Port (0 picks a free one).")
@click.option(
    "--poll", type=float, default=0.5, show_default=True, help="Seconds between looks at running matches."
)
@live_delay_option
@spectator_options
@connection_options
@account_options
def web(
    database: str | None,
    host: str,
    port: int,
    poll: float,
    signup: str,
    web_secret_file: str | None,
    live_delay: tuple[str, ...],
    web_max_spectators: int,
    web_max_spectators_per_address: int,
    web_header_timeout: float,
    web_max_connections: int,
    web_max_connections_per_address: int,
) -> None:
    """Serve the web pages of a store (ladders, bots, replays, live matches, the JSON API, and
    the bot owners' accounts).

    Live matches are followed by polling their moves; this process writes to the store only
    what the owners' pages change (accounts, their bots, tokens, pauses lifted).
    """
    from .cli_text import fail
    from .logging_setup import configure_logging
    from .store import SqlStore, StoreError, open_store
    from .web.accounts import AccountSettings
    from .web.app import LIVE_WAIT, WebServer, create_app
    from .web.guard import WebLimits
    from .web.live import LiveHub
    from .web.poller import StorePoller

    if not poll > 0:
        raise click.BadParameter("--poll must be more than 0 seconds")
    default, per_ladder = parse_delays(live_delay)
    accounts = AccountSettings(signup=signup, secret=read_secret(web_secret_file))
    configure_logging("warning")
    try:
        store: SqlStore = open_store(database)
    except StoreError as exc:
        fail(str(exc))
    hub = LiveHub(per_ladder, default, web_max_spectators, web_max_spectators_per_address)

    async def run() -> None:
        # A match's event stream waits up to a few polls for a match the store has just started.
        app = create_app(store, hub, live_wait=max(LIVE_WAIT, 10 * poll), accounts=accounts)
        limits = WebLimits.of(web_header_timeout, web_max_connections, web_max_connections_per_address)
        server = WebServer(app, host, port, limits)
        await server.start()
        click.echo(f"web pages on {server.address}")
        poller = asyncio.create_task(StorePoller(store, hub, poll).run())
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        await stop.wait()
        poller.cancel()
        await server.stop()

    try:
        asyncio.run(run())
    except OSError as exc:
        fail(str(exc))
    finally:
        store.close()


def register(group: click.Group) -> None:
    group.add_command(web)
