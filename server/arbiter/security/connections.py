"""Limits on the connections of the gRPC port (``arbiter serve --idle-timeout --max-connections
--max-calls-per-address``; docs/hosting.md, docs/reliability.md "Idle gRPC connections").

What gRPC's core enforces itself: a connection that has no call for ``idle_seconds`` gets a GOAWAY
and is closed (``grpc.max_connection_idle_ms``; a connection that has not finished its handshake by
then is closed too, ``grpc.server_handshake_timeout_ms``), and beyond ``max_connections`` open at
once a new connection is closed as soon as it is accepted (``grpc.max_allowed_incoming_connections``).
gRPC's core says nothing of a connection to Python until it opens a call, so the cap per address
counts calls: beyond ``max_calls_per_address`` open calls from one address (an IPv6 /64) the next
call ends at once with RESOURCE_EXHAUSTED, before anything else is looked at
(``transport.calls.CallsPerAddress``).
"""

from __future__ import annotations

import resource
from dataclasses import dataclass

import structlog

#: The defaults of ``arbiter serve``.
IDLE_SECONDS = 30.0
MAX_CONNECTIONS = 10_000
#: Above the 2,000 bots the benchmarks run from one machine (bench/concurrency.py).
MAX_CALLS_PER_ADDRESS = 2_500
#: Seconds one connection to the metrics port may take, from its accept to its answer sent
#: (``arbiter serve --metrics-timeout``): a partial request is closed then.
METRICS_REQUEST_TIMEOUT = 10.0
#: Connections the metrics port serves at once, one thread each; more are closed at accept.
METRICS_MAX_CONNECTIONS = 32
#: Spectator event streams (the web pages' live views) open at once, in all and from one address
#: (an IPv6 /64): ``--web-max-spectators``, ``--web-max-spectators-per-address``.
MAX_SPECTATORS = 5000
MAX_SPECTATORS_PER_ADDRESS = 100
#: Seconds a web connection has to send a whole request head (``--web-header-timeout``), and the
#: web port's connections open at once, in all (``--web-max-connections``: room for every spectator
#: stream and the pages besides) and from one address (``--web-max-connections-per-address``: an
#: address's spectator streams and more); server/arbiter/web/guard.py.
WEB_HEADER_TIMEOUT = 10.0
WEB_MAX_CONNECTIONS = MAX_SPECTATORS + 1000
WEB_MAX_CONNECTIONS_PER_ADDRESS = 256
#: Descriptors kept for everything but the gRPC connections (the store, the web port, records).
RESERVED_FILES = 512


@dataclass(frozen=True)
class ConnectionLimits:
    """``None`` turns a limit off."""

    idle_seconds: float | None = IDLE_SECONDS
    max_connections: int | None = MAX_CONNECTIONS
    max_calls_per_address: int | None = MAX_CALLS_PER_ADDRESS

    @classmethod
    def of(cls, idle_seconds: float, max_connections: int, max_calls_per_address: int) -> ConnectionLimits:
        """From the serve options (0 turns a limit off)."""
        return cls(idle_seconds or None, max_connections or None, max_calls_per_address or None)

    @classmethod
    def off(cls) -> ConnectionLimits:
        return cls(None, None, None)

    def grpc_options(self) -> list[tuple[str, int]]:
        """The gRPC server options that enforce the idle time and the overall cap."""
        options = []
        if self.idle_seconds is not None:
            millis = max(1, round(self.idle_seconds * 1000))
            options += [("grpc.max_connection_idle_ms", millis), ("grpc.server_handshake_timeout_ms", millis)]
        if self.max_connections is not None:
            options.append(("grpc.max_allowed_incoming_connections", fit_file_limit(self.max_connections)))
        return options


def fit_file_limit(connections: int) -> int:
    """``connections``, after raising the soft limit of open files towards the hard one so that
    they fit; if they cannot, the most that fit (with a warning): a cap above the descriptors
    would let them run out before the cap refuses anything."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = connections + RESERVED_FILES
    if soft != resource.RLIM_INFINITY and soft < wanted:
        raised = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (raised, hard))
            soft = raised
        except (ValueError, OSError):
            pass
    if soft != resource.RLIM_INFINITY and soft < wanted:
        fitted = max(1, soft - RESERVED_FILES)
        structlog.get_logger("arbiter").warning(
            "max_connections_lowered", asked=connections, fitted=fitted, open_files_limit=soft
        )
        return fitted
    return connections
