"""Prometheus metrics of one arbiter (``arbiter serve --metrics HOST:PORT``; docs/hosting.md).

Each :class:`ArbiterMetrics` owns its own ``CollectorRegistry`` (tests run many arbiters in one
process). Match counters come from the event bus (:meth:`ArbiterMetrics.listener` follows the
match events, the match itself counts nothing); live figures (sessions, running matches, bots
joined per ladder, rate-limit refusals) are read from the arbiter when Prometheus scrapes; RPC
counts come from a gRPC server interceptor; store latency from the store writer's transactions.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import socket
import socketserver
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from enum import IntEnum
from typing import TYPE_CHECKING, Any, Protocol
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer

import grpc
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, make_wsgi_app
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.registry import Collector

from .match.events import ActionApplied, AutoAction, MatchEnded, MatchEvent, MatchStarted, MoveRefused
from .security.connections import METRICS_MAX_CONNECTIONS, METRICS_REQUEST_TIMEOUT
from .transport.calls import wrap_handler

if TYPE_CHECKING:
    from .node import Arbiter

#: Every kind of event the metrics listener follows.
KINDS = (MatchStarted, ActionApplied, MoveRefused, MatchEnded)

#: Seconds charged to a seat per move; the buckets reach from a fast bot to a slow human-sized think.
CHARGED_BUCKETS = (0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)
#: Seconds one store transaction takes (SQLite on a disk, PostgreSQL over a network).
STORE_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)

#: The ``method`` label of every call to a method this server does not serve: the label's values
#: are the served methods and this one, whatever paths clients make up.
UNKNOWN_METHOD = "unknown"


class LeaseState(IntEnum):
    """The value of ``arbiter_node_lease_state``: what this node holds in a cluster of nodes."""

    NONE = 0  # a single node (no lease), or not registered yet
    HOLDING = 1  # holds its lease and hosts matches
    DRAINING = 2  # stopping: takes no new matches, lets its running matches finish


class LeaseHolder(Protocol):
    """What the lease gauge reads of a cluster member (``arbiter.cluster.ClusterMember``)."""

    lost: bool
    draining: bool


class _LiveCollector(Collector):
    """Figures read from the arbiter at scrape time."""

    def __init__(self, arbiter: Arbiter) -> None:
        self.arbiter = arbiter

    def collect(self) -> Iterator[GaugeMetricFamily | CounterMetricFamily]:
        arbiter = self.arbiter
        yield GaugeMetricFamily("arbiter_sessions", "Bots connected now", len(arbiter.sessions.sessions))
        yield GaugeMetricFamily(
            "arbiter_matches_running", "Matches this node hosts now", len(arbiter.hosting.matches)
        )
        joined = GaugeMetricFamily(
            "arbiter_ladder_bots_joined", "Bots joined to a ladder now", labels=["ladder"]
        )
        if arbiter.ladders is not None:
            for name in sorted(arbiter.ladders.ladders):
                joined.add_metric([name], arbiter.ladders.joined_count(name))
        yield joined
        limited = CounterMetricFamily(
            "arbiter_rate_limited", "Requests refused by a rate limit (RATE_LIMITED)", labels=["limit"]
        )
        for limit, count in sorted(arbiter.limiter.refusals.items()):
            limited.add_metric([limit], count)
        yield limited


class ArbiterMetrics:
    """The metrics of one arbiter, in a registry of its own."""

    def __init__(self, arbiter: Arbiter) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.started = Counter("arbiter_matches_started", "Matches started", ["game"], registry=r)
        self.ended = Counter(
            "arbiter_matches_ended", "Matches ended, by how they ended", ["game", "termination"], registry=r
        )
        self.moves = Counter(
            "arbiter_moves", "Actions played (the arbiter's own included)", ["game"], registry=r
        )
        self.charged = Histogram(
            "arbiter_move_charged_seconds",
            "Seconds charged to the seat's clock per decision",
            ["game"],
            buckets=CHARGED_BUCKETS,
            registry=r,
        )
        self.flags = Counter(
            "arbiter_flags",
            "Seats whose time ran out, by what the policy did (loss, default_action)",
            ["game", "outcome"],
            registry=r,
        )
        self.rejected = Counter(
            "arbiter_moves_rejected", "Answers not played, by reason", ["reason"], registry=r
        )
        self.store_seconds = Histogram(
            "arbiter_store_transaction_seconds",
            "Seconds per store writer transaction, by write",
            ["write"],
            buckets=STORE_BUCKETS,
            registry=r,
        )
        self.rpcs_started = Counter("arbiter_rpcs_started", "gRPC calls started", ["method"], registry=r)
        self.rpcs_handled = Counter(
            "arbiter_rpcs_handled", "gRPC calls finished, by status code", ["method", "code"], registry=r
        )
        self.lease_state = Gauge(
            "arbiter_node_lease_state",
            "0: single node or no lease; 1: holding the lease; 2: draining",
            registry=r,
        )
        r.register(_LiveCollector(arbiter))
        self._per_game: dict[str, tuple[Any, Any]] = {}

    # --- the event bus ------------------------------------------------------------------------
    def listener(self, event: MatchEvent) -> None:
        """Subscribe to the bus with :data:`KINDS`."""
        if isinstance(event, ActionApplied):
            game = event.facts.game_name
            children = self._per_game.get(game)
            if children is None:  # labels() once per game: the hot path skips its lock and lookup
                children = self._per_game[game] = (self.moves.labels(game), self.charged.labels(game))
            children[0].inc()
            if event.charged is not None and event.auto is not AutoAction.FORCED:
                children[1].observe(event.charged)
            if event.auto is AutoAction.DEFAULT:
                self.flags.labels(game, "default_action").inc()
        elif isinstance(event, MoveRefused):
            self.rejected.labels(event.reason.value).inc()
        elif isinstance(event, MatchStarted):
            self.started.labels(event.facts.game_name).inc()
        elif isinstance(event, MatchEnded):
            game = event.facts.game_name
            self.ended.labels(game, event.end.reason).inc()
            if event.end.reason == "timeout":
                self.flags.labels(game, "loss").inc()

    # --- the store writer (its worker thread) -------------------------------------------------
    def store_write(self, write: str, seconds: float) -> None:
        self.store_seconds.labels(write).observe(seconds)

    # --- a cluster of nodes -------------------------------------------------------------------
    def set_lease_state(self, state: LeaseState) -> None:
        """Set what the node holds by hand (a node outside a cluster keeps ``NONE``)."""
        self.lease_state.set(int(state))

    def follow_cluster(self, member: LeaseHolder) -> None:
        """From now on the gauge is read from ``member`` at each scrape: draining, holding its
        lease, or nothing once the registration was lost."""

        def state() -> float:
            if member.lost:
                return float(LeaseState.NONE)
            return float(LeaseState.DRAINING if member.draining else LeaseState.HOLDING)

        self.lease_state.set_function(state)

    # --- gRPC ---------------------------------------------------------------------------------
    def interceptor(self) -> grpc.aio.ServerInterceptor:
        return RpcCounter(self)

    def serve(
        self,
        host: str,
        port: int,
        request_timeout: float = METRICS_REQUEST_TIMEOUT,
        max_connections: int = METRICS_MAX_CONNECTIONS,
    ) -> MetricsServer:
        """Serve ``/metrics`` over HTTP on a thread of its own (port 0: a free one).

        Each connection has ``request_timeout`` seconds in all; beyond ``max_connections`` at
        once, new connections are closed unanswered."""
        server = BoundedWSGIServer(host, port, request_timeout, max_connections)
        server.set_app(make_wsgi_app(self.registry))
        return MetricsServer(server)


class _QuietHandler(WSGIRequestHandler):
    """One request per connection, logged nowhere; a timed-out or cut connection just ends."""

    def log_message(self, format: str, *args: Any) -> None:
        """Nothing: a scrape is no event, and a flood of bad requests must not fill a log."""

    def parse_request(self) -> bool:
        return super().parse_request() and not self.server.expired(self.connection)  # type: ignore[attr-defined]

    def handle(self) -> None:
        try:
            super().handle()
        except OSError:  # TimeoutError, or the watchdog shut the socket: nothing to answer
            self.close_connection = True


class BoundedWSGIServer(socketserver.ThreadingMixIn, WSGIServer):
    """A thread per connection, as prometheus-client's server, but each connection has a deadline
    (a watchdog thread shuts its socket when it passes) and there are at most ``max_connections``."""

    daemon_threads = True
    #: The listen backlog (socketserver's default: 5): a burst of connections waits to be accepted
    #: (and closed at once beyond the cap) rather than in the kernel's SYN retries.
    request_queue_size = 128

    def __init__(self, host: str, port: int, request_timeout: float, max_connections: int) -> None:
        family, _, _, _, sockaddr = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
        self.address_family = family
        self.request_timeout = request_timeout
        self.max_connections = max_connections
        self._deadlines: dict[socket.socket, float] = {}
        self._expired: set[socket.socket] = set()
        self._lock = threading.Lock()
        self._stopped = threading.Event()
        handler = type("Handler", (_QuietHandler,), {"timeout": request_timeout})
        super().__init__((str(sockaddr[0]), int(sockaddr[1])), handler)
        self._watchdog = threading.Thread(target=self._watch, name="metrics-watchdog", daemon=True)
        self._watchdog.start()

    def process_request(self, request: Any, client_address: Any) -> None:
        with self._lock:
            full = len(self._deadlines) >= self.max_connections
            if not full:
                self._deadlines[request] = time.monotonic() + self.request_timeout
        if full:
            self.shutdown_request(request)
            return
        super().process_request(request, client_address)

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            with self._lock:
                self._deadlines.pop(request, None)
                self._expired.discard(request)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Nothing printed: what fails here is a client's connection, not the arbiter."""

    def expired(self, request: socket.socket) -> bool:
        with self._lock:
            return request in self._expired

    def _watch(self) -> None:
        tick = min(0.25, self.request_timeout / 4)
        while not self._stopped.wait(tick):
            now = time.monotonic()
            with self._lock:
                late = [sock for sock, deadline in self._deadlines.items() if deadline <= now]
                self._expired.update(late)
            for sock in late:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)

    def server_close(self) -> None:
        self._stopped.set()
        super().server_close()


class MetricsServer:
    """The HTTP server of ``/metrics``."""

    def __init__(self, server: BoundedWSGIServer) -> None:
        self.server = server
        self.thread = threading.Thread(target=server.serve_forever, name="metrics", daemon=True)
        self.thread.start()

    @property
    def port(self) -> int:
        return int(self.server.server_address[1])

    @property
    def address(self) -> str:
        host = str(self.server.server_address[0])
        return f"[{host}]:{self.port}" if ":" in host else f"{host}:{self.port}"

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(5.0)


def _code_name(context: Any, error: BaseException | None) -> str:
    if isinstance(error, asyncio.CancelledError):
        return "CANCELLED"
    if error is not None and not isinstance(error, grpc.aio.AbortError):
        return "UNKNOWN"
    code = context.code() if hasattr(context, "code") else None
    if code is None:
        return "OK"
    return code.name if isinstance(code, grpc.StatusCode) else str(code)


class RpcCounter(grpc.aio.ServerInterceptor):  # type: ignore[misc]
    """Counts every call by method when it starts, and by status code when it ends."""

    def __init__(self, metrics: ArbiterMetrics) -> None:
        self.metrics = metrics

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler:
        handler = await continuation(details)
        if handler is None:  # a method this server does not serve: its path is not a label
            self.metrics.rpcs_started.labels(UNKNOWN_METHOD).inc()
            self.metrics.rpcs_handled.labels(UNKNOWN_METHOD, "UNIMPLEMENTED").inc()
            return handler
        method = str(details.method)
        return wrap_handler(handler, lambda behaviour: _counted(behaviour, method, self.metrics))


def _counted(behaviour: Callable[..., Any], method: str, metrics: ArbiterMetrics) -> Callable[..., Any]:
    def finished(context: Any, error: BaseException | None) -> None:
        metrics.rpcs_handled.labels(method, _code_name(context, error)).inc()

    if inspect.isasyncgenfunction(behaviour):

        async def streaming(request: Any, context: Any) -> AsyncIterator[Any]:
            metrics.rpcs_started.labels(method).inc()
            error: BaseException | None = None
            try:
                async for response in behaviour(request, context):
                    yield response
            except BaseException as exc:
                error = exc
                raise
            finally:
                finished(context, error)

        return streaming

    async def call(request: Any, context: Any) -> Any:
        metrics.rpcs_started.labels(method).inc()
        error: BaseException | None = None
        try:
            result = behaviour(request, context)
            return await result if inspect.isawaitable(result) else result
        except BaseException as exc:
            error = exc
            raise
        finally:
            finished(context, error)

    return call
