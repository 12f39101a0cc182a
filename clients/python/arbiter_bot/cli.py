"""The command line every example bot shares, with defaults from the environment.

    python -m arbiter_bot.examples.random_bot --server HOST:PORT --token TOKEN --game torrent \\
        --size 7 --games 10 --base 60 --increment 1 --per-decision 5

- ``--server HOST:PORT``: ``$ARBITER_SERVER``, default ``localhost:50051``; a ``HOST`` without a port
  means port 50051
- ``--connect-timeout S``: ``$ARBITER_CONNECT_TIMEOUT``, default 30; with no Welcome from the arbiter
  within S seconds of starting, the bot stops with one ``error:`` line naming the address and exit
  status 1 (0: keep trying forever). Reconnects after a first Welcome are not limited by it
- ``--token TOKEN``: ``$ARBITER_TOKEN``, required
- ``--game torrent|fravan|surge``: ``$ARBITER_GAME``, default the bot's first game
- ``--size N`` (Torrent/Fravan): ``$ARBITER_SIZE``, default the arbiter's (7)
- ``--games N`` (0: until stopped): ``$ARBITER_GAMES``, default until stopped
- ``--base S``, ``--increment S``, ``--per-decision S``: ``$ARBITER_BASE``, ``$ARBITER_INCREMENT``,
  ``$ARBITER_PER_DECISION``, default the arbiter's default time control
- ``--ladder NAME``: ``$ARBITER_LADDER``; join that ladder instead of seeking (the arbiter then
  picks the game, the opponents and the clocks)
- ``--event NAME``: ``$ARBITER_EVENT``; enter that event instead of seeking, play the games the
  arbiter starts for it and stop once the event is over (logging the entry and the event's end)
- ``--version TEXT``: ``$ARBITER_BOT_VERSION``; the version this bot plays as (ladders rate per version)
- ``--tls``: ``$ARBITER_TLS`` (``1``, ``true`` or ``yes``); connect with TLS, trusting the system's root
  certificates, or ``--ca FILE`` (``$ARBITER_CA``; implies ``--tls``); for mutual TLS also
  ``--client-cert FILE`` and ``--client-key FILE`` (``$ARBITER_CLIENT_CERT``, ``$ARBITER_CLIENT_KEY``)

A command-line option wins over its environment variable. The local runner starts command bots
with these variables set. Logs go to standard error; one line per finished match to standard output.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from arbiter_games import GAMES, get_game
from arbiter_games.surge_seed import SeedMismatch
from arbiter_wire.text import visible

from .address import DEFAULT_PORT
from .bot import Bot, MatchInfo, MatchSummary, Rejection, TimeControl, TurnContext
from .client import CONNECT_TIMEOUT, configure_logging, run_bot, tls_credentials
from .errors import ArbiterError, AuthenticationError, ReplacedError

DEFAULT_SERVER = "localhost:50051"

ENV_SERVER = "ARBITER_SERVER"
ENV_CONNECT_TIMEOUT = "ARBITER_CONNECT_TIMEOUT"
ENV_TOKEN = "ARBITER_TOKEN"
ENV_GAME = "ARBITER_GAME"
ENV_SIZE = "ARBITER_SIZE"
ENV_GAMES = "ARBITER_GAMES"
ENV_LADDER = "ARBITER_LADDER"
ENV_EVENT = "ARBITER_EVENT"
ENV_VERSION = "ARBITER_BOT_VERSION"
ENV_BASE = "ARBITER_BASE"
ENV_INCREMENT = "ARBITER_INCREMENT"
ENV_PER_DECISION = "ARBITER_PER_DECISION"
ENV_TLS = "ARBITER_TLS"
ENV_CA = "ARBITER_CA"
ENV_CLIENT_CERT = "ARBITER_CLIENT_CERT"
ENV_CLIENT_KEY = "ARBITER_CLIENT_KEY"

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_AUTH = 3
EXIT_REPLACED = 4
EXIT_SEED = 5
EXIT_INTERRUPTED = 130


@dataclass(frozen=True)
class BotOptions:
    """What the command line and environment asked for."""

    server: str
    token: str
    game: str
    size: int | None = None
    games: int | None = None
    time_control: TimeControl | None = None
    max_concurrent: int = 1
    seed: int | None = None
    log_level: str = "info"
    tls: bool = False
    #: With TLS: the CA of the arbiter's certificate (None: the system's roots); this bot's
    #: certificate and key for mutual TLS.
    ca: str | None = None
    client_cert: str | None = None
    client_key: str | None = None
    strict_seed: bool = False
    ladder: str | None = None
    event: str | None = None
    version: str | None = None
    #: Seconds until the first Welcome before giving up (None: keep trying forever).
    connect_timeout: float | None = CONNECT_TIMEOUT

    @property
    def spec(self) -> tuple[str, dict[str, Any]]:
        """(game, options) for :func:`arbiter_bot.run_bot`."""
        return self.game, ({} if self.size is None else {"size": self.size})


def build_parser(description: str | None = None, games: Sequence[str] = GAMES) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        description=description, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    add = parser.add_argument
    add(
        "--server",
        metavar="HOST:PORT",
        help=(
            f"the arbiter's address (${ENV_SERVER}; default {DEFAULT_SERVER}; "
            f"port {DEFAULT_PORT} when none is given)"
        ),
    )
    add(
        "--connect-timeout",
        type=float,
        metavar="S",
        help=(
            f"give up (exit status 1) without an answer from the arbiter within S seconds, "
            f"0 = never (${ENV_CONNECT_TIMEOUT}; default {CONNECT_TIMEOUT:g})"
        ),
    )
    add("--token", help=f"this bot's token (${ENV_TOKEN}; safer than the command line, which others can see)")
    add("--game", choices=list(games), help=f"the game to seek (${ENV_GAME}; default {games[0]})")
    add(
        "--size",
        type=int,
        metavar="N",
        help=f"Torrent/Fravan board size (${ENV_SIZE}; default: the arbiter's)",
    )
    add(
        "--games",
        type=int,
        metavar="N",
        help=f"stop after N finished matches, 0 = never (${ENV_GAMES}; default 0)",
    )
    add("--base", type=float, metavar="S", help=f"seconds on each clock (${ENV_BASE})")
    add("--increment", type=float, metavar="S", help=f"seconds added per decision (${ENV_INCREMENT})")
    add("--per-decision", type=float, metavar="S", help=f"cap per decision in seconds (${ENV_PER_DECISION})")
    add("--max-concurrent", type=int, default=1, metavar="N", help="matches played at once (default 1)")
    add("--ladder", metavar="NAME", help=f"join this ladder instead of seeking (${ENV_LADDER})")
    add(
        "--event",
        metavar="NAME",
        help=f"enter this event instead of seeking; stop once it is over (${ENV_EVENT})",
    )
    add(
        "--version",
        dest="bot_version",
        metavar="TEXT",
        help=f"the version this bot plays as (${ENV_VERSION})",
    )
    add("--seed", type=int, help="seed of the bot's random choices (default: random)")
    add("--tls", action="store_true", help=f"connect with TLS (${ENV_TLS}=1; system root certificates)")
    add("--ca", metavar="FILE", help=f"with TLS: trust this CA's PEM certificate instead (${ENV_CA})")
    add("--client-cert", metavar="FILE", help=f"mutual TLS: this bot's PEM certificate (${ENV_CLIENT_CERT})")
    add("--client-key", metavar="FILE", help=f"mutual TLS: this bot's PEM private key (${ENV_CLIENT_KEY})")
    add("--strict-seed", action="store_true", help="stop with exit code 5 when a Surge seed check fails")
    add("--log-level", default="info", choices=("debug", "info", "warning", "error"))
    return parser


def _env_number(
    parser: argparse.ArgumentParser, env: Mapping[str, str], name: str, kind: Callable[[str], Any]
) -> Any:
    text = env.get(name, "").strip()
    if not text:
        return None
    try:
        return kind(text)
    except ValueError:
        parser.error(f"${name} must be a number, got {text!r}")


def _connect_timeout(
    parser: argparse.ArgumentParser, args: argparse.Namespace, env: Mapping[str, str]
) -> float | None:
    """Seconds until the first Welcome from ``--connect-timeout`` or its variable (None: forever)."""
    seconds = args.connect_timeout
    if seconds is None:
        seconds = _env_number(parser, env, ENV_CONNECT_TIMEOUT, float)
    if seconds is None:
        return CONNECT_TIMEOUT
    if not 0 <= seconds < float("inf"):  # also NaN
        parser.error(f"--connect-timeout must be a number of seconds, 0 or more, not {seconds:g}")
    return float(seconds) or None


def parse_options(
    argv: Sequence[str] | None = None,
    env: Mapping[str, str] | None = None,
    description: str | None = None,
    games: Sequence[str] = GAMES,
) -> BotOptions:
    """Options from ``argv`` (default ``sys.argv[1:]``) and ``env`` (default ``os.environ``).

    Exits with status 2 and a message on bad input, like any argparse program.
    """
    env = os.environ if env is None else env
    parser = build_parser(description, games)
    args = parser.parse_args(argv)
    server = args.server or env.get(ENV_SERVER) or DEFAULT_SERVER
    connect_timeout = _connect_timeout(parser, args, env)
    token = args.token or env.get(ENV_TOKEN, "")
    if not token:
        parser.error(f"no token: pass --token or set ${ENV_TOKEN}")
    game = args.game or env.get(ENV_GAME) or games[0]
    if game not in games:
        parser.error(f"this bot plays {', '.join(games)}, not {game!r} (from ${ENV_GAME})")
    size = args.size if args.size is not None else _env_number(parser, env, ENV_SIZE, int)
    size_option = next((o for o in get_game(game).options if o.name == "size"), None)
    if size_option is None:
        size = None  # e.g. Surge has no board size; a runner may set $ARBITER_SIZE for every game
    elif size is not None and size not in size_option.choices:
        sizes = ", ".join(map(str, size_option.choices))
        parser.error(f"{game} is played on sizes {sizes}, not {size}")
    count = args.games if args.games is not None else _env_number(parser, env, ENV_GAMES, int)
    if count is not None and count < 0:
        parser.error("--games must not be negative")
    base = args.base if args.base is not None else _env_number(parser, env, ENV_BASE, float)
    increment = (
        args.increment if args.increment is not None else _env_number(parser, env, ENV_INCREMENT, float)
    )
    per_decision = (
        args.per_decision
        if args.per_decision is not None
        else _env_number(parser, env, ENV_PER_DECISION, float)
    )
    time_control = None
    if base is not None or increment is not None or per_decision is not None:
        if increment and not base:
            parser.error("an increment needs a base time (--base)")
        try:
            time_control = TimeControl(
                base=base or None, increment=increment or 0.0, per_decision=per_decision or None
            )
        except ValueError as err:
            parser.error(str(err))
    if args.max_concurrent < 1:
        parser.error("--max-concurrent must be at least 1")
    ca = args.ca or env.get(ENV_CA) or None
    client_cert = args.client_cert or env.get(ENV_CLIENT_CERT) or None
    client_key = args.client_key or env.get(ENV_CLIENT_KEY) or None
    if (client_cert is None) != (client_key is None):
        parser.error("give --client-cert and --client-key together")
    tls = bool(args.tls or ca or client_cert or env.get(ENV_TLS, "").strip().lower() in ("1", "true", "yes"))
    ladder = args.ladder or env.get(ENV_LADDER) or None
    event = args.event or env.get(ENV_EVENT) or None
    if ladder is not None and event is not None:
        parser.error(f"give --ladder (${ENV_LADDER}) or --event (${ENV_EVENT}), not both")
    return BotOptions(
        server=server,
        token=token,
        game=game,
        size=size,
        games=count or None,
        time_control=time_control,
        max_concurrent=args.max_concurrent,
        seed=args.seed,
        log_level=args.log_level,
        tls=tls,
        ca=ca,
        client_cert=client_cert,
        client_key=client_key,
        strict_seed=args.strict_seed,
        ladder=ladder,
        event=event,
        version=args.bot_version or env.get(ENV_VERSION) or None,
        connect_timeout=connect_timeout,
    )


def summary_line(summary: MatchSummary) -> str:
    """One line per finished match, for standard output."""
    me, them = summary.my_score, summary.opponent_score
    score = f" {me}-{them}" if me is not None and them is not None else ""
    seed = ""
    if summary.seed_verified is not None:
        seed = "  seed verified" if summary.seed_verified else "  SEED CHECK FAILED"
    return (
        f"{visible(summary.match_id)}: {summary.outcome}{score} vs {visible(summary.opponent_name)} "
        f"({summary.game}, {summary.reason}){seed}"
    )


class _PrintingBot(Bot):
    """Delegates to the author's bot and prints one line per finished match."""

    def __init__(self, inner: Bot) -> None:
        self.inner = inner
        self.name = inner.name

    def choose(self, observation: Any, legal: Sequence[Any], context: TurnContext) -> Any:
        return self.inner.choose(observation, legal, context)

    def on_match_start(self, info: MatchInfo) -> None:
        self.inner.on_match_start(info)

    def on_match_end(self, summary: MatchSummary) -> None:
        print(summary_line(summary), flush=True)
        self.inner.on_match_end(summary)

    def on_move_rejected(self, rejection: Rejection) -> None:
        self.inner.on_move_rejected(rejection)


def run_cli(
    make_bot: Callable[[BotOptions], Bot],
    argv: Sequence[str] | None = None,
    description: str | None = None,
    games: Sequence[str] = GAMES,
    env: Mapping[str, str] | None = None,
) -> int:
    """Parse options, build the bot with ``make_bot(options)``, play; the process exit status."""
    options = parse_options(argv, env, description, games)
    configure_logging(options.log_level)
    bot = _PrintingBot(make_bot(options))
    try:
        credentials = (
            tls_credentials(options.ca, options.client_cert, options.client_key) if options.tls else None
        )
    except OSError as err:
        print(f"error: cannot read a TLS file: {err}", file=sys.stderr)
        return EXIT_USAGE
    try:
        asyncio.run(
            run_bot(
                bot,
                options.server,
                options.token,
                options.spec,
                games=options.games,
                time_control=options.time_control,
                max_concurrent=options.max_concurrent,
                credentials=credentials,
                strict_seed=options.strict_seed,
                ladder=options.ladder,
                event=options.event,
                version=options.version,
                connect_timeout=options.connect_timeout,
            )
        )
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except AuthenticationError as err:
        print(f"error: {err}", file=sys.stderr)
        return EXIT_AUTH
    except ReplacedError as err:
        print(f"error: {err}", file=sys.stderr)
        return EXIT_REPLACED
    except SeedMismatch as err:
        print(f"error: {err}", file=sys.stderr)
        return EXIT_SEED
    except ArbiterError as err:
        print(f"error: {err}", file=sys.stderr)
        return EXIT_ERROR
    return EXIT_OK
