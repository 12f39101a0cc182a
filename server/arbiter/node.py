"""One arbiter node, composed: sessions, the lobby's matchmaker and match hosting, behind the calls
the transport makes (attach, seek, move, detach, shutdown). Built once per server."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import structlog
from arbiter_games import ActionError, OptionsError, get_game
from arbiter_games.policy import MatchPolicy
from arbiter_games.timecontrol import TimeControl
from arbiter_wire import reasons
from arbiter_wire.limits import SEEK_LIMIT, UNVERSIONED
from arbiter_wire.status import status_for
from arbiter_wire.text import BadName, check_name
from arbiter_wire.v1 import bot_service_pb2 as pb

from .cluster import ClusterMember, Placement
from .cluster.matchmaker import ClusterMatchmaker
from .cluster.registry import TakenOver
from .cluster.seeks import SeekTable
from .eventhost import EVENT_GRACE
from .eventhost.entries import Entered, EventRefused, Over, Spec
from .eventhost.host import EventHost
from .eventhost.watch import EVENT_CHECK, EventWatch
from .hosting import EventBus, Listener, MatchHosting
from .hosting.host import MAX_MATCHES_PER_BOT, RESUME_GRACE
from .hosting.persistence import StoreWriter
from .hosting.records import RecordWriter
from .ladder.adapters import BotsFromFlagsThenStore, StoreBots, StoreLadders, StoreMailbox
from .ladder.host import JoinAccepted, LadderHost, LadderRefused
from .ladder.memory import MemoryLadders
from .ladder.model import LadderConfig
from .ladder.watch import LADDER_CHECK, LadderWatch
from .lobby import FifoMatchmaker, Matchmaker, Pairing, Seek, SeekKey
from .match.events import (
    ActionApplied,
    MatchEnded,
    MatchEvent,
    MatchStarted,
    MoveAcknowledged,
    MoveRefused,
    SeatResumed,
    TurnIssued,
)
from .match.match import Match, MatchSetup, PlayedAction
from .metrics import KINDS as METRIC_KINDS
from .metrics import ArbiterMetrics
from .security.connections import ConnectionLimits
from .security.ratelimit import RateLimiter, RateLimits
from .sessions.auth import BotDirectory
from .sessions.human import HumanSeats
from .sessions.identity import BotIdentity, BotStore
from .sessions.registry import SessionRegistry
from .sessions.revocation import CREDENTIAL_CHECK, CredentialWatch
from .sessions.session import BotSession
from .store import SqlStore, StoreError
from .transport.encode import ladder_joined, welcome
from .transport.encode import redirect as encode_redirect
from .transport.event_messages import event_ended
from .transport.router import SeatRouter
from .workers import WorkerRole

log = structlog.get_logger("arbiter")


@dataclass
class ArbiterConfig:
    """What ``arbiter serve`` is configured with."""

    bots: BotDirectory
    default_control: TimeControl = field(default_factory=lambda: TimeControl(base=60.0, increment=1.0))
    policy: MatchPolicy = field(default_factory=MatchPolicy)
    records_dir: Path | None = None
    #: Stop pairing after this many matches (the local runner uses it); None: no limit.
    max_matches: int | None = None
    #: Tokens to bots when they come from a store (the ladder's); else ``bots`` answers.
    bot_store: BotStore | None = None
    #: After a restart, seconds a match rebuilt from the store waits for both of its bots.
    resume_grace: float = RESUME_GRACE
    #: Rate limits of the bot service (server/arbiter/security/ratelimit.py; docs/protocol.md).
    rate_limits: RateLimits = field(default_factory=RateLimits)
    #: Idle time and caps of the gRPC port's connections (server/arbiter/security/connections.py).
    connections: ConnectionLimits = field(default_factory=ConnectionLimits)
    #: Seconds between two checks of the connected bots' tokens and enabled flags in the store:
    #: a disabled or rotated bot's calls end at the next one (sessions/revocation.py).
    credential_check: float = CREDENTIAL_CHECK
    #: The most matches one bot holds at once here, over ladders, seeks and challenges.
    max_matches_per_bot: int = MAX_MATCHES_PER_BOT
    #: Seconds between two looks at the loaded ladders in the store (archived: no new match).
    ladder_check: float = LADDER_CHECK
    #: Seconds a bot not connected when its event game is due has before it forfeits it.
    event_grace: float = EVENT_GRACE
    #: Seconds between two looks at the events in the store (started, cancelled, withdrawals).
    event_check: float = EVENT_CHECK


class SeekRefused(Exception):
    """A seek the arbiter does not take, with its machine-readable reason."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message


class Redirected(Exception):
    """In a cluster: the request is for another node (the bot is sent there)."""

    def __init__(self, placement: Placement) -> None:
        super().__init__(f"redirected to {placement.address}")
        self.placement = placement


@dataclass(frozen=True)
class SeekAccepted:
    """A seek taken: ``waiting`` seeks of its key wait (0 when it was paired at once)."""

    key: SeekKey
    waiting: int


class Arbiter:
    """Sessions, matchmaking and hosting of one node, wired to one event bus."""

    def __init__(
        self,
        config: ArbiterConfig,
        listeners: Sequence[Listener] = (),
        matchmaker: Matchmaker | None = None,
        now: Callable[[], float] | None = None,
        store: SqlStore | None = None,
        ladders: Sequence[LadderConfig] = (),
    ) -> None:
        """``store``: the durable store; with it the arbiter runs ladders, takes tokens from the
        store, keeps missed results there and writes every match as it goes. Without a store,
        ``ladders`` run in memory (nothing survives the process)."""
        self.config = config
        self.store = store
        self.sessions = SessionRegistry(StoreMailbox(store) if store is not None else None)
        self.bus = EventBus()
        self.hosting = MatchHosting(self.bus, now=now) if now is not None else MatchHosting(self.bus)
        self.writer = StoreWriter(store) if store is not None else None
        #: The ladders, when the arbiter has a store.
        self.ladders: LadderHost | None = None
        #: The events, when the arbiter has a store (hosted by a lone node of one process).
        self.events: EventHost | None = None
        if store is not None and self.writer is not None:
            # The --bot flags and tokens file first, then the bots registered in the store.
            config.bot_store = config.bot_store or BotsFromFlagsThenStore(config.bots, StoreBots(store))
            self.ladders = LadderHost(StoreLadders(store), self.writer, self.hosting, self.sessions.connected)
            self.events = EventHost(
                store,
                self.writer,
                self.hosting,
                self.sessions.connected,
                self._tell_event,
                config.event_grace,
            )
            # Order matters: the ladder (and the event host) reckon a result, the writer commits
            # it, then the seats hear.
            self.bus.subscribe(self.ladders, [MatchEnded])
            self.bus.subscribe(self.events, [MatchEnded])
            self.bus.subscribe(self.writer, [MatchStarted, ActionApplied, MatchEnded])
        elif ladders:
            memory = MemoryLadders(ladders)
            self.ladders = LadderHost(memory, memory, self.hosting, self.sessions.connected)
            self.bus.subscribe(self.ladders, [MatchEnded])
        # ActionApplied is for no seat (the next TurnIssued or MatchEnded carries the position).
        seat_kinds = [MatchStarted, SeatResumed, TurnIssued, MoveRefused, MoveAcknowledged, MatchEnded]
        # A bot's slot is taken until it has been told the result (the writer holds the
        # MatchEnded until the result is committed): never more matches at once than it asked for.
        self.hosting.hold_slots_until_told = True
        self.hosting.max_per_bot = config.max_matches_per_bot
        self.hosting.connected = self.sessions.connected
        self.bus.subscribe(SeatRouter(self.sessions, self.writer, self.hosting.told), seat_kinds)
        self.records = RecordWriter(config.records_dir) if config.records_dir is not None else None
        if self.records is not None:
            self.bus.subscribe(self.records, [MatchEnded])
        for listener in listeners:
            self.bus.subscribe(listener)
        #: Persons' seats (``arbiter serve --web ... --guests-play``): matches of guests against bots.
        self.people = HumanSeats(
            self.hosting, self.ladders, self.sessions.connected, self._version_of, config.policy
        )
        self.bus.subscribe(self.people, [MoveRefused])
        #: Prometheus metrics in a registry of this arbiter's own (served by ``--metrics``).
        self.metrics = ArbiterMetrics(self)
        self.bus.subscribe(self.metrics.listener, METRIC_KINDS)
        if self.writer is not None:
            self.writer.timed = self.metrics.store_write
        self.matchmaker: Matchmaker = matchmaker or FifoMatchmaker()
        self.stopping = False
        #: The servicer asks it before acting on a request (tests may replace it, clock and all).
        self.limiter = RateLimiter(config.rate_limits)
        #: In a cluster (``arbiter serve --advertise``): this node's member; see ``join_cluster``.
        self.cluster: ClusterMember | None = None
        #: Bots to send to another node once their matches here are over: bot -> (ladder, slots).
        self.moving: dict[str, tuple[str, int]] = {}
        self._mover: asyncio.Task[None] | None = None
        #: A worker of ``arbiter serve --processes N``: its part (docs/processes.md); else None.
        self.workers: WorkerRole | None = None
        #: With a store: ends the sessions of bots disabled or rotated there (``start_watching``).
        self.credentials: CredentialWatch | None = None
        #: With a store: archived ladders start no new match (``start_watching``).
        self.ladder_watch: LadderWatch | None = None
        if store is not None:
            self.credentials = CredentialWatch(
                self.sessions, store.credentials, self.revoke, config.credential_check
            )
            if self.ladders is not None:
                self.ladder_watch = LadderWatch(self.ladders, store.get_ladder, config.ladder_check)
        #: With a store: events started, cancelled or withdrawn from in the store (``start_watching``).
        self.event_watch: EventWatch | None = None
        if store is not None and self.events is not None:
            self.event_watch = EventWatch(self.events, store, config.event_check)

    def _version_of(self, bot: str) -> str:
        session = self.sessions.sessions.get(bot)
        return UNVERSIONED if session is None else session.version

    # --- the cluster --------------------------------------------------------------------------
    def join_cluster(self, member: ClusterMember, on_lost: Callable[[], None]) -> None:
        """Be one node of a cluster: ``member`` is registered (the store is fenced by its epoch).
        A takeover's matches are rebuilt here from their move logs; ``on_lost`` runs when this
        node's registration was taken over (it must stop at once)."""
        self.cluster = member
        self.metrics.follow_cluster(member)
        member.on_adopt = self._adopt
        member.on_lost = on_lost
        if self.store is not None:
            # Seeks pair across the cluster (docs/cluster.md, "Seeks across the cluster").
            self.matchmaker = ClusterMatchmaker(SeekTable(self.store, member.epoch))
            member.on_beat = self._seek_beat

    async def _seek_beat(self) -> None:
        """At each heartbeat: start what the seeks still open here now pair with, and send the
        bots of this node whose seek another node claimed there."""
        matchmaker, cluster = self.matchmaker, self.cluster
        if not isinstance(matchmaker, ClusterMatchmaker) or cluster is None or self.stopping:
            return
        try:
            beat = await asyncio.to_thread(matchmaker.beat)
        except StoreError as exc:
            log.warning("cluster_seeks_failed", error=str(exc).splitlines()[0][:200])
            return
        for claim in beat.claims:
            self.start_pairing(matchmaker.pairing(claim))
        sent = []
        for moved in beat.moved:
            matchmaker.forget(moved.row)
            session = self.sessions.sessions.get(moved.bot)
            if session is not None:
                if self.hosting.running_ids(moved.bot) or self.result_unsent(moved.bot):
                    continue  # not before its matches here are over (tried again next beat)
                self.redirect(session, cluster.place_at(moved.bot, moved.epoch, moved.address))
            sent.append(moved.row)
        try:
            await asyncio.to_thread(matchmaker.table.sent, sent)
        except StoreError as exc:
            log.warning("cluster_seeks_failed", error=str(exc).splitlines()[0][:200])

    def _adopt(self, taken: TakenOver) -> None:
        for name in taken.ladders:
            self._gain(name)
        restored = self.restore_from_store(only=set(taken.match_ids))
        log.info(
            "matches_adopted", dead_epoch=taken.dead_epoch, matches=len(taken.match_ids), restored=restored
        )

    def _gain(self, ladder: str) -> None:
        """This node hosts ``ladder`` from now on: what it may hold of it in memory (read while
        another node hosted it) is dropped, so its ratings are read afresh from the store."""
        if self.cluster is not None and ladder not in self.cluster.hosted:
            self.cluster.hosted.add(ladder)
            if self.ladders is not None:
                self.ladders.ladders.pop(ladder, None)

    def start_cluster(self) -> None:
        """Start the heartbeats and the loop that sends idle bots on (call on the running loop)."""
        if self.cluster is not None and self._mover is None:
            self.cluster.start()
            self._mover = asyncio.get_running_loop().create_task(self._move_bots())

    def placement(self, bot_name: str) -> Placement | None:
        """Where the bot must connect instead (its matches run on another node, or it is held by
        another worker of this arbiter), or None."""
        if self.workers is not None:
            return self.workers.place_bot(bot_name)
        return None if self.cluster is None else self.cluster.place_bot(bot_name)

    def redirect(self, session: BotSession, placement: Placement) -> None:
        """Send the session's bot to another node: a Redirect, then the call ends."""
        session.send(encode_redirect(placement))
        log.info("bot_redirected", bot=session.bot_name, to=placement.address, why=placement.reason)
        self.detach(session)
        session.end()

    async def _move_bots(self, every: float = 0.2) -> None:
        while True:
            await asyncio.sleep(every)
            self.move_idle_bots()

    def move_idle_bots(self) -> None:
        """Redirect each bot waiting to move once it has no running match on this node."""
        cluster = self.cluster
        if cluster is None:
            return
        for bot, (ladder, slots) in list(self.moving.items()):
            session = self.sessions.sessions.get(bot)
            if session is None:
                del self.moving[bot]
                continue
            if self.hosting.running_ids(bot) or self.result_unsent(bot):
                continue
            if cluster.draining and not cluster.handed_over:
                continue  # its ladder moves once this node's matches are over
            del self.moving[bot]
            if cluster.draining:
                placement = cluster.place_after_drain(bot, ladder)
            else:
                placement = cluster.place_ladder(bot, ladder)
            if placement is not None:
                self.redirect(session, placement)
            elif not cluster.draining and self.ladders is not None:
                self._gain(ladder)
                session.send(_joined_or_refused(self.ladders, session, ladder, slots))

    # --- sessions -----------------------------------------------------------------------------
    def start_watching(self) -> None:
        """Start the credential checks (call on the running loop; the server does)."""
        if self.credentials is not None:
            self.credentials.start()
        if self.ladder_watch is not None:
            self.ladder_watch.start()
        if self.event_watch is not None and self._hosts_events():
            self.event_watch.host.resume()
            self.event_watch.start()

    def _hosts_events(self) -> bool:
        """Events are hosted by an arbiter of one node and one process (not in a cluster, not
        with --processes): every bot of an event is connected to it."""
        return self.events is not None and self.cluster is None and self.workers is None

    def revoke(self, session: BotSession, reason: str, message: str) -> None:
        """End ``session`` (its bot was disabled or its token rotated): the call ends with
        ``reason``, and the bot leaves its seeks and ladders at once (it is scheduled no more)."""
        session.close(reason, message)
        self.detach(session)

    def identify(self, token: str | None) -> BotIdentity | None:
        if self.cluster is not None and self.store is not None and token and token.startswith("jt1."):
            return self._identify_join_token(token)
        if self.config.bot_store is not None:
            return self.config.bot_store.identify(token)
        name = self.config.bots.authenticate(token)
        return None if name is None else BotIdentity(name)

    def _identify_join_token(self, token: str) -> BotIdentity | None:
        """The bot a join token names, if it is still good: made for this node, not expired, not
        used before, and made while the bot had the token the store has now (a rotate kills it)."""
        assert self.cluster is not None and self.store is not None
        store = self.store

        def credential_of(bot: str) -> str | None:
            found = store.credentials([bot]).get(bot)
            return None if found is None else found.token_hash

        name = self.cluster.identify(token, credential_of)
        found = None if name is None else store.credentials([name]).get(name)
        return None if found is None else BotIdentity(found.name, found.enabled, found.token_hash)

    def authenticate(self, token: str | None) -> str | None:
        identity = self.identify(token)
        return None if identity is None else identity.name

    def attach(self, bot_name: str, version: str = UNVERSIONED, credential: str | None = None) -> BotSession:
        """Open a session (an older one is replaced), greet it, hand it its mail and its matches.
        ``credential``: the store's token hash the call was authenticated with (checked later)."""
        replaced = bot_name in self.sessions.sessions
        session = self.sessions.open(bot_name, version, credential)
        if replaced:
            self.matchmaker.remove_bot(bot_name)
            if self.ladders is not None:
                self.ladders.drop(bot_name)
        running = self.hosting.running_ids(bot_name)
        mail = self.sessions.take_mail(bot_name)
        ended = [message.match_ended.match_id for message in mail]
        pauses = self.ladders.pauses(bot_name) if self.ladders is not None else {}
        session.send(welcome(bot_name, running, ended, self.config.default_control, version, pauses))
        for message in mail:
            session.send(message)
        self.hosting.resume(bot_name)
        self.hosting.wake(self.sessions.connected)
        if self.events is not None and self._hosts_events():
            self.events.bot_connected(bot_name)
        log.info("session_opened", bot=bot_name, session=session.id, resumed=len(running))
        return session

    def detach(self, session: BotSession) -> None:
        if self.sessions.close(session):
            self.matchmaker.remove_bot(session.bot_name)
            if self.ladders is not None:
                self.ladders.drop(session.bot_name)
            if self.workers is not None:
                self.workers.session_closed(session.bot_name)

    # --- ladders ------------------------------------------------------------------------------
    def _ladder_host(self) -> LadderHost:
        if self.ladders is None:
            raise LadderRefused(reasons.LADDER_NOT_FOUND, "this arbiter runs no ladders (it has no store)")
        if self.stopping:
            raise LadderRefused(reasons.SHUTTING_DOWN, "the arbiter is shutting down")
        return self.ladders

    def join_ladder(self, session: BotSession, ladder: str, max_concurrent: int) -> JoinAccepted | None:
        """Join here; in a cluster, raises Redirected when another node schedules the ladder, or
        returns None when the bot must first finish its matches here (it is redirected then).
        On a worker of several processes other than worker 0 the bot is sent to worker 0 (None)."""
        _check_names(ladder)
        if self.workers is not None and self.workers.ladder_elsewhere(session, ladder):
            return None
        if self.cluster is not None and self.store is not None and not self.cluster.lost:
            config = self.store.get_ladder(ladder)
            if config is not None and config.enabled:
                placement = self.cluster.place_ladder(session.bot_name, ladder)
                if placement is not None and not self.hosting.running_ids(session.bot_name):
                    raise Redirected(placement)
                if placement is not None or self.cluster.draining:
                    # Answered later: when its matches here are over, or this node hands over.
                    self.moving[session.bot_name] = (ladder, max_concurrent)
                    return None
                self._gain(ladder)
        return self._ladder_host().join(session.bot_name, session.version, ladder, max_concurrent)

    def leave_ladder(self, session: BotSession, ladder: str) -> None:
        _check_names(ladder)
        self._ladder_host().leave(session.bot_name, ladder)

    def challenge(self, session: BotSession, ladder: str, opponent: str) -> None:
        _check_names(ladder, opponent)
        if self.workers is not None and self.workers.ladder_elsewhere(session, ladder):
            return
        self._ladder_host().challenge(session.bot_name, ladder, opponent)

    # --- events -------------------------------------------------------------------------------
    def _event_host(self) -> EventHost:
        if self.events is None or not self._hosts_events():
            raise EventRefused(
                reasons.BAD_REQUEST,
                "this arbiter hosts no events (events need a store, one node and one process)",
            )
        if self.stopping:
            raise EventRefused(reasons.SHUTTING_DOWN, "the arbiter is shutting down")
        return self.events

    def enter_event(self, session: BotSession, event: str, spec: Spec) -> Entered | Over:
        """Enter the session's bot in ``event`` (or find its entry); raises EventRefused."""
        return self._event_host().enter(session.bot_name, event, spec)

    def withdraw_event(self, session: BotSession, event: str) -> bool:
        """Withdraw the session's bot from ``event``: True when the entry was deleted (before the
        start); raises EventRefused."""
        return self._event_host().withdraw(session.bot_name, event)

    def _tell_event(self, bot: str, over: Over) -> None:
        session = self.sessions.sessions.get(bot)
        if session is not None:
            session.send(pb.PlayResponse(event_ended=event_ended(over)))

    def restore_from_store(self, grace: float | None = None, only: set[str] | None = None) -> int:
        """Rebuild the matches the store lists as running (after a crash) from their move logs;
        each resumes when both bots are back, or is aborted unrated after ``grace`` seconds.
        ``only``: just these (a takeover's), never a match of this node whose end is being written."""
        if self.store is None or self.writer is None:
            return 0
        if self.workers is not None and self.workers.index != 0:
            return 0  # worker 0 alone rebuilds them (and holds their bots)
        grace = self.config.resume_grace if grace is None else grace
        restored = 0
        owner = None if self.cluster is None else self.cluster.epoch
        for running in self.store.running_matches(owner):
            start = running.start
            if only is not None and start.match_id not in only:
                continue
            if start.match_id in self.hosting.matches:
                continue  # hosted already
            seed = bytes.fromhex(start.seed)
            setup = MatchSetup(
                start.game,
                dict(start.options),
                {1: start.seat_1.bot, 2: start.seat_2.bot},
                start.control,
                start.policy,
                seed=seed,
                ladder=start.ladder,
                versions={1: start.seat_1.version, 2: start.seat_2.version},
                rated=start.rated,
                event=start.event,
                # A leg of a duplicate pair: its commitment is not the seed's alone.
                paired=start.seed_commitment != get_game(start.game).seed_commitment(seed),
            )
            played = [
                PlayedAction(m.seat, m.action, m.turn_id, m.charged, dict(m.clocks), m.auto)
                for m in running.moves
            ]
            self.writer.adopt(start.match_id, len(played))
            match = self.hosting.restore(start.match_id, setup, played, start.started_at, grace)
            if match is None:
                self.writer.abandon(start.match_id, start)
                continue
            restored += 1
        if self.workers is not None:
            self.workers.hold_hosted()
        return restored

    # --- seeks --------------------------------------------------------------------------------
    def seek(
        self,
        bot_name: str,
        game_name: str,
        options: dict[str, int],
        control: TimeControl | None,
        seek_id: str = "",
    ) -> SeekAccepted:
        """Take a seek; the matchmaker's pairings start at once. Raises SeekRefused."""
        if self.stopping:
            raise SeekRefused(reasons.SHUTTING_DOWN, "the arbiter is shutting down")
        try:
            options = get_game(game_name).normalise_options(options)
        except OptionsError as exc:
            raise SeekRefused(reasons.BAD_REQUEST, str(exc)) from exc
        if control is not None and not control.timed:
            raise SeekRefused(
                reasons.BAD_REQUEST,
                "a time control needs a base time or a per-decision cap (untimed matches could stall)",
            )
        open_seeks = self.matchmaker.open_seeks(bot_name)
        if open_seeks >= SEEK_LIMIT:
            raise SeekRefused(reasons.RESOURCE_EXHAUSTED, f"at most {SEEK_LIMIT} open seeks per bot")
        if open_seeks >= self.hosting.free_for(bot_name):  # each open seek may become a match
            raise SeekRefused(
                reasons.RESOURCE_EXHAUSTED,
                f"bot {bot_name} holds {self.hosting.taken_slots(bot_name)} matches and {open_seeks} "
                f"open seeks: at most {self.hosting.max_per_bot} matches per bot on this arbiter",
            )
        key = SeekKey.of(game_name, options, control or self.config.default_control)
        limit = self.config.max_matches
        may_pair = limit is None or self.hosting.started < limit
        seek = Seek(bot_name, seek_id, key)
        pairings = self.matchmaker.add(seek, may_pair=may_pair)
        for pairing in pairings:
            self.start_pairing(pairing)
        if not pairings and self.workers is not None:
            self.workers.seek_waiting(seek)
        return SeekAccepted(key, 0 if pairings else self.matchmaker.waiting(key))

    def start_pairing(self, pairing: Pairing) -> Match:
        if self.cluster is None:
            return self.hosting.start(self.pairing_setup(pairing))
        # A bot of the pairing may still be on its way from another node: the match waits,
        # without a turn, until both are connected here.
        wait = self.cluster.settings.seek_arrival
        match = self.hosting.start(self.pairing_setup(pairing), match_id=pairing.match_id, wait=wait)
        self.hosting.wake(self.sessions.connected)
        return match

    def pairing_setup(self, pairing: Pairing, seed: bytes | None = None) -> MatchSetup:
        """The match two paired seeks make (``seed``: a given one instead of a fresh one)."""
        key = pairing.key
        return MatchSetup(
            key.game,
            dict(key.options),
            {seat: seek.bot for seat, seek in pairing.seats.items()},
            key.control,
            self.config.policy,
            seed=seed,
            seek_ids={seat: seek.seek_id for seat, seek in pairing.seats.items()},
        )

    def start_match(self, setup: MatchSetup, initial_state: object | None = None) -> Match:
        return self.hosting.start(setup, initial_state)

    # --- moves --------------------------------------------------------------------------------
    def find_match(self, bot_name: str, match_id: str) -> Match | None:
        return self.hosting.find(bot_name, match_id)

    def move(self, bot_name: str, match_id: str, turn_id: int, action: object | ActionError) -> None:
        """Route an answer to its match; raises hosting.UnknownMatch."""
        self.hosting.submit(bot_name, match_id, turn_id, action)

    def answer(self, match: Match, bot_name: str, turn_id: int, action: object | ActionError) -> None:
        """An answer to a match the caller has found already (``find_match``)."""
        self.hosting.answer(match, bot_name, turn_id, action)

    # --- stopping -----------------------------------------------------------------------------
    def _start_nothing(self) -> None:
        """The first step of stopping: the watches stop, and nothing starts a match any more."""
        self.stopping = True
        for watch in (self.credentials, self.ladder_watch, self.event_watch):
            if watch is not None:
                watch.stop()
        if self.events is not None:
            self.events.stop()  # no game starts, none aborted is played again
        self.matchmaker.clear()
        if self.workers is not None:
            self.workers.stop()
        if self.ladders is not None:
            self.ladders.stop()  # else every match that ends in the grace would start another

    async def shutdown(self, grace: float) -> None:
        """Stop pairing, give running matches ``grace`` seconds, abort the rest, close sessions."""
        self._start_nothing()
        draining = self.cluster is not None and not self.cluster.lost
        if self.cluster is not None and draining:
            await self.cluster.drain()
        await self.hosting.drain(grace, "the arbiter stopped")
        if self.writer is not None:
            # The results of the last matches are committed and sent before the sessions close
            # (the writer holds each MatchEnded until then).
            await self.writer.settle(max(grace, 1.0))
        if draining:
            await self._hand_over()
        self.sessions.close_all(reasons.SHUTTING_DOWN, "the arbiter is shutting down")
        if self.records is not None:
            await asyncio.to_thread(self.records.close)
        if self.writer is not None:
            await self.writer.close()
        if self.cluster is not None:
            if self._mover is not None:
                self._mover.cancel()
            await self.cluster.leave()

    def result_unsent(self, bot: str) -> bool:
        """Whether a MatchEnded of the bot waits for its result to be committed (it goes first)."""
        waiting = self.writer.waiting_release if self.writer is not None else {}
        return any(self.hosting.find(bot, match_id) is not None for match_id in waiting)

    async def _hand_over(self) -> None:
        """The node drained (its matches are over and their results committed): its ladders move
        to other nodes, and each bot joined to one of them is sent there."""
        assert self.cluster is not None
        moved = await self.cluster.hand_over()
        if self.ladders is not None:
            for name, ladder in self.ladders.ladders.items():
                if name in moved:
                    for bot, joined in ladder.joined.items():
                        self.moving.setdefault(bot, (name, joined.max_concurrent))
        self.move_idle_bots()


def _check_names(ladder: str, opponent: str | None = None) -> None:
    """A ladder request whose ladder (or opponent) name breaks the name rule is a BAD_REQUEST."""
    try:
        check_name(ladder, "ladder")
        if opponent is not None:
            check_name(opponent, "bot")
    except BadName as exc:
        raise LadderRefused(reasons.BAD_REQUEST, str(exc)) from None


def _joined_or_refused(ladders: LadderHost, session: BotSession, ladder: str, slots: int) -> pb.PlayResponse:
    """A join that waited for the bot's matches here to end, answered now that it is here."""
    try:
        joined = ladders.join(session.bot_name, session.version, ladder, slots)
    except LadderRefused as exc:
        rejected = pb.LadderRejected(status=status_for(exc.reason, exc.message), ladder=ladder)
        return pb.PlayResponse(ladder_rejected=rejected)
    return pb.PlayResponse(ladder_joined=ladder_joined(joined))


__all__ = ["Arbiter", "ArbiterConfig", "MatchEvent", "Redirected", "SeekAccepted", "SeekRefused"]
