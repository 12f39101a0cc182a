"""The server factory: a grpc.aio server with the bot service, health and reflection."""

from __future__ import annotations

import gc
from collections.abc import Sequence
from dataclasses import dataclass

import grpc
import structlog
from arbiter_wire.limits import MAX_REQUEST_BYTES, MIN_PING_INTERVAL_MS
from arbiter_wire.v1 import bot_service_pb2 as pb
from arbiter_wire.wire import serialize_response
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from ..hosting.looplag import VERDICT_GRACE, LoopLagMonitor, freeze_startup_objects
from ..node import Arbiter, ArbiterConfig
from ..security.tls import TlsFiles
from .calls import CallsPerAddress
from .servicer import BotServicer

#: Net new container objects between two collections of the youngest generation (Python's
#: default: 700). Each move allocates container objects that die young (events, dicts, tuples);
#: at the default the collector ran again and again over each move's survivors (its share of a
#: profile of the arbiter: docs/benchmarks.md, "The Turn's bytes written directly").
YOUNG_COLLECTION_THRESHOLD = 10_000


def collect_young_objects_less_often() -> None:
    """Set the collector's youngest threshold to ``YOUNG_COLLECTION_THRESHOLD`` (the older
    generations' stay as they are)."""
    _, middle, oldest = gc.get_threshold()
    gc.set_threshold(YOUNG_COLLECTION_THRESHOLD, middle, oldest)


SERVICE_NAME = pb.DESCRIPTOR.services_by_name["BotService"].full_name

#: Calls gRPC's core may hold before the arbiter's event loop has taken them. grpc.aio takes
#: incoming calls one at a time, so a burst of bots opening their Play streams at once (every
#: bot reconnecting after a restart, say) waits in the core's queue. With gRPC's defaults (1,000;
#: beyond it a growing share of new calls is refused at random, all of them from 3,000) some of
#: 2,000 simultaneous calls were cancelled before the servicer saw them (bench/streams.py);
#: the bots saw CANCELLED, or INTERNAL "Internal error from Core" on a write.
MAX_PENDING_CALLS = 20_000
MAX_PENDING_CALLS_HARD = 40_000
#: How long a call may wait in that queue before gRPC cancels it (gRPC's default: 30 s). The
#: loop takes one call per turn of the loop, and each turn also runs every stream's reads and
#: writes that are ready, so while 1,000 matches of instant bots were played the loop took the
#: last of 2,000 simultaneous calls 64 to 73 s after the first (bench/concurrency.py --matches
#: 1000 --games 1, load average 8 to 20) and, with the default, gRPC cancelled the rest. A bot
#: waiting for its Welcome is charged nothing, so a longer wait is better than a refusal.
MAX_UNTAKEN_CALL_SECONDS = 300


def add_bot_service(servicer: BotServicer, server: grpc.aio.Server) -> None:
    """The bot service, as the generated ``add_BotServiceServicer_to_server`` adds it but for its
    responses' serialiser: a Turn the transport has serialised already (``EncodedResponse``)
    goes out as it is."""
    handlers = {
        "Play": grpc.stream_stream_rpc_method_handler(
            servicer.Play,
            request_deserializer=pb.PlayRequest.FromString,
            response_serializer=serialize_response,
        )
    }
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(SERVICE_NAME, handlers),))
    server.add_registered_method_handlers(SERVICE_NAME, handlers)


class BindError(OSError):
    """The arbiter cannot listen where it was asked to (a one-line reason for people)."""


@dataclass
class RunningServer:
    """A started arbiter: its gRPC server, the port it bound and the arbiter state."""

    server: grpc.aio.Server
    port: int
    host: str
    arbiter: Arbiter
    health: health.aio.HealthServicer
    #: Measures the loop's lag, which the matches do not charge to the bots.
    loop_lag: LoopLagMonitor
    #: The port of its own a worker of ``arbiter serve --processes N`` also bound (else None).
    private_port: int | None = None

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"

    async def stop(self, grace: float = 5.0) -> None:
        """Graceful stop: not serving, matches get ``grace`` seconds, then streams close."""
        await self.health.set(SERVICE_NAME, health_pb2.HealthCheckResponse.NOT_SERVING)
        await self.health.set("", health_pb2.HealthCheckResponse.NOT_SERVING)
        await self.arbiter.shutdown(grace)
        await self.server.stop(1.0)
        self.loop_lag.stop()
        structlog.get_logger("arbiter").info("loop_lag", **self.loop_lag.summary())


def check_port(port: int) -> None:
    if not 0 <= port <= 65535:
        raise BindError(f"port {port} is out of range: use 0 (a free port) to 65535")


async def create_server(
    config: ArbiterConfig,
    host: str = "127.0.0.1",
    port: int = 0,
    arbiter: Arbiter | None = None,
    tls: TlsFiles | None = None,
    interceptors: Sequence[grpc.aio.ServerInterceptor] = (),
    shared_port: bool = False,
    private_host: str | None = None,
) -> RunningServer:
    """Build and start a server; ``port=0`` binds a free port (tests), read it from the result.

    ``tls``: serve TLS (mutual TLS when it has a client CA) instead of plain text; raises
    security.tls.TlsError when its files cannot be used. The arbiter's metrics interceptor
    counts every call; the cap of calls per address (``config.connections``) runs next, then
    ``interceptors``.

    Raises BindError when the port is out of range or already in use (by another arbiter too:
    the port is never shared, except by the workers of ``arbiter serve --processes N``:
    ``shared_port`` binds it with SO_REUSEPORT, and ``private_host`` binds a free port of the
    worker's own there as well, read from the result's ``private_port``).
    """
    check_port(port)
    arbiter = arbiter or Arbiter(config)
    credentials = tls.credentials() if tls is not None else None
    limits = config.connections
    cap = [] if limits.max_calls_per_address is None else [CallsPerAddress(limits.max_calls_per_address)]
    server = grpc.aio.server(
        interceptors=[arbiter.metrics.interceptor(), *cap, *interceptors],
        options=[
            # Idle connections closed, connections capped (security/connections.py).
            *limits.grpc_options(),
            # Never share a port with another process (gRPC's default on Linux would split the
            # bots), but among the workers of one `arbiter serve --processes N`.
            ("grpc.so_reuseport", 1 if shared_port else 0),
            ("grpc.keepalive_time_ms", 20_000),
            ("grpc.keepalive_timeout_ms", 10_000),
            ("grpc.http2.max_pings_without_data", 0),
            ("grpc.keepalive_permit_without_calls", 1),
            # Bots ping every 20 s to notice dead connections (the SDK does): allow it.
            ("grpc.http2.min_recv_ping_interval_without_data_ms", MIN_PING_INTERVAL_MS),
            ("grpc.http2.max_ping_strikes", 0),
            ("grpc.max_receive_message_length", MAX_REQUEST_BYTES),
            ("grpc.server.max_pending_requests", MAX_PENDING_CALLS),
            ("grpc.server.max_pending_requests_hard_limit", MAX_PENDING_CALLS_HARD),
            ("grpc.server_max_unrequested_time_in_server", MAX_UNTAKEN_CALL_SECONDS),
            # No bandwidth-delay probing of what the bots send: it pings a connection as data
            # arrives, to grow the receive window for large transfers, and a bot's requests are
            # small (MAX_REQUEST_BYTES). With it, each move cost more TCP segments and CPU on both
            # sides (docs/benchmarks.md, "Cutting the arbiter's CPU per move").
            ("grpc.http2.bdp_probe", 0),
        ],
    )
    add_bot_service(BotServicer(arbiter), server)
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    reflection.enable_server_reflection(
        (SERVICE_NAME, health_pb2.DESCRIPTOR.services_by_name["Health"].full_name, reflection.SERVICE_NAME),
        server,
    )
    try:
        if credentials is not None:
            bound = server.add_secure_port(f"{host}:{port}", credentials)
        else:
            bound = server.add_insecure_port(f"{host}:{port}")
    except RuntimeError as exc:  # grpc raises RuntimeError when it cannot bind
        raise BindError(f"cannot listen on {host}:{port}: the address is in use or not available") from exc
    if bound == 0:
        raise BindError(f"cannot listen on {host}:{port}: the address is in use or not available")
    private_port = None
    if private_host is not None:
        address = f"{private_host}:0"
        private_port = (
            server.add_secure_port(address, credentials)
            if credentials is not None
            else server.add_insecure_port(address)
        )
        if private_port == 0:
            raise BindError(f"cannot listen on {address}: the address is not available")
    await server.start()
    loop_lag = LoopLagMonitor()
    loop_lag.start()
    arbiter.hosting.lag = loop_lag.lag
    arbiter.hosting.verdict_grace = VERDICT_GRACE
    arbiter.restore_from_store()
    arbiter.start_watching()
    freeze_startup_objects()
    collect_young_objects_less_often()
    await health_servicer.set(SERVICE_NAME, health_pb2.HealthCheckResponse.SERVING)
    await health_servicer.set("", health_pb2.HealthCheckResponse.SERVING)
    return RunningServer(server, bound, host, arbiter, health_servicer, loop_lag, private_port)
