"""``arbiter serve --web``: the hub for the arbiter's event bus, then the pages served, from a
process of their own (``web/relay.py``) or, with ``--web-in-process`` (or an in-memory store,
which another process cannot open), on the arbiter's own loop (docs/web.md)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from ..sessions.human import HumanSeats
from ..store import SqlStore
from .accounts import AccountSettings
from .app import WebServer, create_app
from .guard import WebLimits
from .live import MAX_SUBSCRIBERS, MAX_SUBSCRIBERS_PER_ADDRESS, LiveHub
from .process import WebSettings
from .relay import Relay, RelayHub, WebProcess, shareable


@dataclass(frozen=True)
class PagesOptions:
    host: str
    port: int
    limits: WebLimits = field(default_factory=WebLimits)
    default_delay: int = 0
    delays: Mapping[str, int] = field(default_factory=dict)
    max_spectators: int = MAX_SUBSCRIBERS
    max_per_address: int = MAX_SUBSCRIBERS_PER_ADDRESS
    in_process: bool = False
    log_level: str = "warning"
    #: The owners' pages (docs/accounts.md): ``--signup`` and the key of ``--web-secret-file``.
    signup: str = "invite"
    secret: bytes | None = None


class ServedPages:
    """``hub`` listens on the arbiter's bus from its start; ``start`` serves the pages (their
    address; OSError with one line when they cannot be), ``stop`` ends them."""

    def __init__(self, store: SqlStore, options: PagesOptions) -> None:
        self.store = store
        self.options = options
        self.relay = Relay() if not options.in_process and shareable(store) else None
        self.hub: LiveHub = (
            RelayHub(self.relay, options.delays, options.default_delay)
            if self.relay is not None
            else LiveHub(
                options.delays, options.default_delay, options.max_spectators, options.max_per_address
            )
        )
        self._served: WebServer | WebProcess | None = None

    async def start(
        self,
        connected: Callable[[str], bool],
        present: Callable[[], Iterable[str]],
        other_connections: int = 0,
        joined: Callable[[str], list[str]] | None = None,
        people: HumanSeats | None = None,
    ) -> str:
        """``connected`` (in process) or ``present`` (to the pages' process) tell which bots have
        a session; ``other_connections``: the gRPC port's cap, for the open-files limit;
        ``joined``: the ladders a bot has joined now (the owners' pages show it in process only);
        ``people``: the persons' seats whose play routes are served (``--guests-play``, which
        serves the pages in process: only the arbiter's process can seat a person)."""
        options = self.options
        if self.relay is not None:
            settings = WebSettings(
                self.store.url, options.host, options.port, options.limits,
                options.max_spectators, options.max_per_address, options.log_level,
                options.signup, options.secret,
            )  # fmt: skip
            served = WebProcess(settings, self.relay, present)
            self._served = served
            return await served.start()
        server = WebServer(
            create_app(
                self.store,
                self.hub,
                connected,
                accounts=AccountSettings(options.signup, options.secret, joined),
                people=people,
            ),
            options.host,
            options.port,
            options.limits,
            other_connections=other_connections,
        )
        self._served = server
        await server.start()
        return server.address

    async def stop(self) -> None:
        if self._served is not None:
            await self._served.stop()


__all__ = ["PagesOptions", "ServedPages"]
