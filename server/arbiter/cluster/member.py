"""One node's part in a cluster at run time: its registration, heartbeats, takeovers and the
placement answers behind redirects (docs/cluster.md)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import structlog

from ..store import SqlStore, StoreError
from .registry import LIVE, Host, NodeRegistry, TakenOver
from .tokens import UsedTokens, make_join_token, read_join_token

log = structlog.get_logger("arbiter")

#: Seconds a registration's lease lasts after each heartbeat.
LEASE = 5.0
#: Seconds between heartbeats (each also looks for expired registrations to take over).
HEARTBEAT = 1.0
#: Seconds a join token stays valid.
JOIN_TOKEN_TTL = 30.0
#: Seconds a match of two seeks paired across nodes waits for both bots before it is aborted.
SEEK_ARRIVAL = 30.0

MATCHES, LADDER, DRAINING = "matches", "ladder", "draining"


@dataclass(frozen=True)
class ClusterSettings:
    """``arbiter serve --advertise HOST:PORT [--lease S] [--heartbeat S]``."""

    advertise: str
    lease: float = LEASE
    heartbeat: float = HEARTBEAT
    join_token_ttl: float = JOIN_TOKEN_TTL
    seek_arrival: float = SEEK_ARRIVAL

    def __post_init__(self) -> None:
        if not 0 < self.heartbeat < self.lease:
            raise ValueError("the heartbeat interval must be positive and shorter than the lease")


@dataclass(frozen=True)
class Placement:
    """Where a bot must play instead of here: what a Redirect carries."""

    address: str
    join_token: str
    expires_in: float
    #: ``matches``, ``ladder`` or ``draining``.
    reason: str
    ladder: str = ""


async def _nothing() -> None:
    return None


class ClusterMember:
    """This node in the cluster. ``on_adopt`` hosts the matches of a takeover (they are this
    node's in the store by then); ``on_lost`` stops the node when its registration was taken
    over (its writes are refused from then on anyway)."""

    def __init__(
        self,
        store: SqlStore,
        settings: ClusterSettings,
        wall: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.settings = settings
        self.registry = NodeRegistry(store, settings.advertise, settings.lease)
        self.wall = wall
        self.secret = b""
        self.on_adopt: Callable[[TakenOver], None] = lambda taken: None
        self.on_lost: Callable[[], None] = lambda: None
        #: Run at every heartbeat of a live node (the seeks: claims, bots claimed elsewhere).
        self.on_beat: Callable[[], Awaitable[None]] = _nothing
        self.draining = False
        self.handed_over = False
        self.lost = False
        #: The ladders this node knows it hosts (its in-memory ladder state is fresh for them).
        self.hosted: set[str] = set()
        #: The join tokens this node accepted, until they expire (each is good once).
        self.used_tokens = UsedTokens()
        self._task: asyncio.Task[None] | None = None

    @property
    def epoch(self) -> int:
        return self.registry.epoch

    @property
    def address(self) -> str:
        return self.settings.advertise

    # --- start and stop -----------------------------------------------------------------------
    def register(self) -> list[TakenOver]:
        """Register (a new epoch), fence the store's match writes by it, and take over the earlier
        registrations at this address (this node restarted). Blocking; call before serving."""
        epoch = self.registry.register()
        self.store.fence_epoch = epoch
        self.secret = self.registry.secret()
        taken = [t for old in self.registry.same_address() if (t := self.registry.take_over(old, force=True))]
        self.hosted.update(name for t in taken for name in t.ladders)
        log.info(
            "cluster_registered",
            node=self.address,
            epoch=epoch,
            lease=self.settings.lease,
            took_over=[t.dead_epoch for t in taken],
        )
        return taken

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._beat())

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            self._task = None

    async def drain(self) -> None:
        """Stop taking matches (and taking other nodes over)."""
        self.draining = True
        await asyncio.to_thread(self.registry.drain)
        log.info("cluster_draining", node=self.address, epoch=self.epoch)

    async def hand_over(self) -> dict[str, str]:
        """Once this draining node's matches are over: its ladders go to other live nodes
        (ladder -> address). Not before, so that one node alone rates a ladder at any time."""
        moved = await asyncio.to_thread(self.registry.hand_over)
        self.hosted -= set(moved)
        self.handed_over = True
        log.info("cluster_handed_over", node=self.address, epoch=self.epoch, ladders_moved=moved)
        return moved

    async def leave(self) -> None:
        await self.close()
        if not self.lost:
            await asyncio.to_thread(self.registry.stopped)
            log.info("cluster_left", node=self.address, epoch=self.epoch)

    # --- the heartbeat ------------------------------------------------------------------------
    async def _beat(self) -> None:
        while True:
            await self.tick()
            if self.lost:
                return
            await asyncio.sleep(self.settings.heartbeat)

    async def tick(self) -> None:
        """One heartbeat, then a takeover of every expired registration another node has not
        taken yet (and this node is active)."""
        try:
            state = await asyncio.to_thread(self.registry.heartbeat)
        except StoreError as exc:
            log.warning("cluster_heartbeat_failed", error=str(exc).splitlines()[0][:200])
            return
        if state is None:
            self.lost = True
            log.error("cluster_lease_lost", node=self.address, epoch=self.epoch)
            self.on_lost()
            return
        await self.on_beat()
        if self.draining:
            return
        try:
            for dead in await asyncio.to_thread(self.registry.expired):
                self.adopt(await asyncio.to_thread(self.registry.take_over, dead))
        except StoreError as exc:
            log.warning("cluster_takeover_failed", error=str(exc).splitlines()[0][:200])

    def adopt(self, taken: TakenOver | None) -> bool:
        if taken is None:
            return False
        log.warning(
            "cluster_took_over",
            node=self.address,
            epoch=self.epoch,
            dead_epoch=taken.dead_epoch,
            matches=len(taken.match_ids),
            ladders=list(taken.ladders),
        )
        self.on_adopt(taken)
        return True

    # --- join tokens --------------------------------------------------------------------------
    def join_token(self, bot: str, epoch: int) -> str:
        """A join token for ``bot`` on the node of ``epoch``, bound to the bot's token now."""
        found = self.store.credentials([bot]).get(bot)
        credential = "" if found is None else found.token_hash
        expires = self.wall() + self.settings.join_token_ttl
        return make_join_token(self.secret, bot, epoch, expires, credential)

    def identify(self, token: str, credential_of: Callable[[str], str | None]) -> str | None:
        """The bot a join token for this node names, or None; a token is accepted once.
        ``credential_of``: the bot's token hash in the store now (a rotate kills its tokens)."""
        now = self.wall()
        bot = read_join_token(self.secret, token, self.epoch, now, credential_of)
        if bot is None or not self.used_tokens.use(token, now):
            return None
        return bot

    def _placement(self, bot: str, host: Host, reason: str, ladder: str = "") -> Placement:
        token = self.join_token(bot, host.epoch)
        return Placement(host.address, token, self.settings.join_token_ttl, reason, ladder)

    def place_at(self, bot: str, epoch: int, address: str) -> Placement:
        """Send the bot to the node of ``epoch``, which hosts its match now (a claimed seek)."""
        return self._placement(bot, Host(epoch, address, "active", True), MATCHES)

    # --- where a bot plays --------------------------------------------------------------------
    def _settle(self, host: Host) -> bool:
        """For a host that is not live: take it over now if its lease ran out (True when this
        node then hosts what it had)."""
        if host.state in LIVE and not host.leased and not self.draining:
            return self.adopt(self.registry.take_over(host.epoch))
        return False

    def place_bot(self, bot: str) -> Placement | None:
        """Where the bot's running matches are, when that is another node; None: here."""
        hosts = self.registry.hosts_of_bot(bot)
        if hosts and not hosts[0].live and hosts[0].epoch != self.epoch and self._settle(hosts[0]):
            hosts = self.registry.hosts_of_bot(bot)  # taken over by this node just now
        for host in hosts:
            if host.epoch == self.epoch:
                return None
            return self._placement(bot, host, MATCHES)
        return None

    def place_ladder(self, bot: str, ladder: str) -> Placement | None:
        """Where ``ladder`` is scheduled (claimed by this node when it has no live host); None: here."""
        if self.draining:
            return self.place_after_drain(bot, ladder)  # None: it waits here for the hand-over
        host = self.registry.claim_ladder(ladder)
        if host.epoch != self.epoch and not host.live:
            self._settle(host)  # its lease ran out: take it over now (or another node just did)
            host = self.registry.claim_ladder(ladder)
        if host.epoch == self.epoch:
            return None
        return self._placement(bot, host, LADDER, ladder)

    def place_after_drain(self, bot: str, ladder: str) -> Placement | None:
        """Where a bot of a draining node goes: the ladder's live host when that is another node."""
        host = self.registry.ladder_host(ladder)
        if host is None or host.epoch == self.epoch or not host.live:
            return None
        return self._placement(bot, host, DRAINING, ladder)
