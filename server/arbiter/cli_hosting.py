"""The options of ``arbiter serve`` for facing a network: TLS, rate limits, connections and metrics.

They are declared once here and reach ``serve`` as one :class:`HostingOptions` (``hosting``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import click

from .eventhost import EVENT_GRACE
from .hosting.host import MAX_MATCHES_PER_BOT
from .security.connections import (
    IDLE_SECONDS,
    MAX_CALLS_PER_ADDRESS,
    MAX_CONNECTIONS,
    METRICS_REQUEST_TIMEOUT,
    ConnectionLimits,
)
from .security.ratelimit import (
    BAD_TOKENS_PER_MINUTE,
    BAD_TOKENS_TOTAL_PER_MINUTE,
    LOBBY_PER_MINUTE,
    PLAY_CALLS_PER_MINUTE,
    REQUESTS_PER_SECOND,
    RateLimits,
)
from .security.tls import TlsError, TlsFiles, tls_files
from .sessions.revocation import CREDENTIAL_CHECK


@dataclass(frozen=True)
class HostingOptions:
    tls: TlsFiles | None
    rate_limits: RateLimits
    #: ``--metrics HOST:PORT``: where to serve Prometheus metrics (None: nowhere).
    metrics: tuple[str, int] | None
    #: The gRPC port's idle time and caps.
    connections: ConnectionLimits = field(default_factory=ConnectionLimits)
    #: ``--metrics-timeout``: seconds one connection to the metrics port may take.
    metrics_timeout: float = METRICS_REQUEST_TIMEOUT
    #: ``--credential-check S``: seconds between two checks of the connected bots' credentials.
    credential_check: float = CREDENTIAL_CHECK
    #: ``--max-matches-per-bot N``: the most matches one bot holds at once on a node.
    max_matches_per_bot: int = MAX_MATCHES_PER_BOT
    #: ``--event-grace S``: seconds a bot absent when its event game is due has before it forfeits.
    event_grace: float = EVENT_GRACE


_FILE = click.Path(exists=True, dir_okay=False)


def hosting_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """Add the options to a click command; it receives them as ``hosting``."""

    @functools.wraps(func)
    def command(*args: Any, **kwargs: Any) -> Any:
        kwargs["hosting"] = read_hosting_options(kwargs)
        return func(*args, **kwargs)

    decorators = [
        click.option("--tls-cert", type=_FILE, metavar="FILE", help="Serve TLS: the PEM certificate chain."),
        click.option("--tls-key", type=_FILE, metavar="FILE", help="Serve TLS: the PEM private key."),
        click.option(
            "--tls-client-ca",
            type=_FILE,
            metavar="FILE",
            help="Mutual TLS: accept only clients with a certificate signed by this PEM CA.",
        ),
        click.option(
            "--metrics",
            "metrics_address",
            metavar="HOST:PORT",
            help="Serve Prometheus metrics at http://HOST:PORT/metrics (docs/hosting.md).",
        ),
        click.option(
            "--metrics-timeout",
            type=click.FloatRange(min=0.1),
            metavar="SECONDS",
            default=METRICS_REQUEST_TIMEOUT,
            show_default=True,
            help="Seconds one connection to the metrics port may take (a partial request is closed then).",
        ),
        click.option(
            "--idle-timeout",
            type=click.FloatRange(min=0),
            metavar="SECONDS",
            default=IDLE_SECONDS,
            show_default=True,
            help="Close a gRPC connection that has had no call (or no handshake) this long (0: never).",
        ),
        click.option(
            "--max-connections",
            type=click.IntRange(min=0),
            metavar="N",
            default=MAX_CONNECTIONS,
            show_default=True,
            help="gRPC connections open at once; more are closed as they are accepted (0: no cap).",
        ),
        click.option(
            "--max-calls-per-address",
            type=click.IntRange(min=0),
            metavar="N",
            default=MAX_CALLS_PER_ADDRESS,
            show_default=True,
            help="Open gRPC calls per IP address (IPv6: per /64); more end at once with"
            " RESOURCE_EXHAUSTED (0: no cap).",
        ),
        click.option(
            "--limit-bad-tokens",
            type=click.IntRange(min=0),
            metavar="N",
            default=BAD_TOKENS_PER_MINUTE,
            show_default=True,
            help="Failed token checks per peer address (IPv6: per /64) per minute (0: no limit).",
        ),
        click.option(
            "--limit-bad-tokens-total",
            type=click.IntRange(min=0),
            metavar="N",
            default=BAD_TOKENS_TOTAL_PER_MINUTE,
            show_default=True,
            help="Failed token checks from all addresses together per minute (0: no limit).",
        ),
        click.option(
            "--limit-play-calls",
            type=click.IntRange(min=0),
            metavar="N",
            default=PLAY_CALLS_PER_MINUTE,
            show_default=True,
            help="Play calls one bot may open per minute (each replaces its open call; 0: no limit).",
        ),
        click.option(
            "--max-matches-per-bot",
            type=click.IntRange(min=1),
            metavar="N",
            default=MAX_MATCHES_PER_BOT,
            show_default=True,
            help="Matches one bot holds at once on this node, over all its ladders, seeks and challenges.",
        ),
        click.option(
            "--limit-lobby",
            type=click.IntRange(min=0),
            metavar="N",
            default=LOBBY_PER_MINUTE,
            show_default=True,
            help="Seeks, ladder joins and challenges per bot per minute (0: no limit).",
        ),
        click.option(
            "--limit-requests",
            type=click.IntRange(min=0),
            metavar="N",
            default=REQUESTS_PER_SECOND,
            show_default=True,
            help="Requests per bot per second other than moves answering its turns (0: no limit).",
        ),
        click.option(
            "--credential-check",
            type=click.FloatRange(min=0.05),
            metavar="S",
            default=CREDENTIAL_CHECK,
            show_default=True,
            help="Seconds between checks of the connected bots in the store (disable and rotate end calls).",
        ),
        click.option(
            "--event-grace",
            type=click.FloatRange(min=0),
            metavar="S",
            default=EVENT_GRACE,
            show_default=True,
            help="Seconds a bot not connected when its event game is due has before it forfeits the game.",
        ),
    ]
    wrapped: Callable[..., Any] = command
    for decorator in reversed(decorators):
        wrapped = decorator(wrapped)
    return wrapped


def read_hosting_options(kwargs: dict[str, Any]) -> HostingOptions:
    """Take the options out of a command's keyword arguments (a usage error when they disagree)."""
    from .cli_web import parse_address

    cert, key, client_ca = kwargs.pop("tls_cert"), kwargs.pop("tls_key"), kwargs.pop("tls_client_ca")
    try:
        tls = tls_files(cert, key, client_ca)
        if tls is not None:
            tls.credentials()  # a file that is not PEM stops here, before anything starts
    except TlsError as exc:
        raise click.UsageError(str(exc)) from exc
    metrics = kwargs.pop("metrics_address")
    limits = RateLimits.of(
        kwargs.pop("limit_bad_tokens"),
        kwargs.pop("limit_lobby"),
        kwargs.pop("limit_requests"),
        kwargs.pop("limit_bad_tokens_total"),
        kwargs.pop("limit_play_calls"),
    )
    connections = ConnectionLimits.of(
        kwargs.pop("idle_timeout"), kwargs.pop("max_connections"), kwargs.pop("max_calls_per_address")
    )
    return HostingOptions(
        tls,
        limits,
        parse_address(metrics) if metrics else None,
        connections,
        kwargs.pop("metrics_timeout"),
        kwargs.pop("credential_check"),
        kwargs.pop("max_matches_per_bot"),
        kwargs.pop("event_grace"),
    )
