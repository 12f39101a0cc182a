"""The connection to the arbiter: one ``Play`` stream, seeks, turns, rejections, results, reconnects.

    from arbiter_bot import run
    summaries = run(MyBot(), "localhost:50051", token, spec=("torrent", {"size": 7}), games=10)

``run_bot`` (async) and ``run`` (blocking) open the stream with ``authorization: Bearer <token>``,
seek matches (up to ``max_concurrent`` at once, ``games`` in all), hand every ``Turn`` to
``bot.choose`` in a worker thread and answer with that turn's id. A broken stream (UNAVAILABLE, a
lost connection) is reopened with capped exponential backoff plus jitter; the arbiter then resumes
the bot's running matches and re-sends a pending turn, which the SDK answers again with the move it
already chose (the arbiter recognises a duplicate). A wrong token raises ``AuthenticationError`` and
a second connection with the same token ``ReplacedError``: neither is retried. When the first
connection brings no Welcome within ``connect_timeout`` seconds (default 30) the session raises
``ConnectError`` naming the address; an address without a port means port 50051.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import random
import sys
import time
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import grpc
import grpc.aio
import structlog
from arbiter_games import GAMES, SeedCheck, get_game
from arbiter_games.surge_seed import SeedMismatch
from arbiter_wire import convert
from arbiter_wire.limits import (
    BOT_VERSION_METADATA,
    CLIENT_CHANNEL_OPTIONS,
    ILLEGAL_POLICY_FROM_PB,
    SEEK_LIMIT,
    TIMEOUT_POLICY_FROM_PB,
)
from arbiter_wire.reasons import CHALLENGE_REFUSED, LADDER_NOT_FOUND, RATE_LIMITED, retry_delay
from arbiter_wire.text import visible_fields
from arbiter_wire.v1 import bot_service_pb2 as pb
from arbiter_wire.v1 import bot_service_pb2_grpc as pb_grpc
from arbiter_wire.v1 import common_pb2 as cpb

from .address import with_default_port
from .bot import (
    ABORTED,
    DRAW,
    ILLEGAL_FORFEIT,
    LOSS,
    TIMEOUT_LOSS,
    UNKNOWN,
    WIN,
    Bot,
    MatchInfo,
    MatchSummary,
    Rejection,
    TimeControl,
    TurnContext,
)
from .errors import (
    BAD_REQUEST,
    CLOCK_EXPIRED,
    REPLACED,
    RESOURCE_EXHAUSTED,
    SHUTTING_DOWN,
    ArbiterError,
    AuthenticationError,
    BadRequestError,
    ConnectError,
    ReplacedError,
    RichStatus,
    reason_of,
    rich_status,
    status_code_name,
)
from .event_entry import EventEntry

log = structlog.get_logger("arbiter_bot")


def configure_logging(level: str = "info") -> None:
    """The SDK's logs (structlog) as readable lines on standard error, from ``level`` up.

    Standard output stays the bot's own (the command line prints one line per finished match
    there). Per-move events are ``debug``.
    """
    structlog.configure(
        processors=[
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="%H:%M:%S"),
            visible_fields,  # names and details from the arbiter: control characters as escapes
            structlog.dev.ConsoleRenderer(colors=False),
        ],
        wrapper_class=structlog.make_filtering_bound_logger(logging.getLevelName(level.upper())),
        logger_factory=_stderr_logger,
        cache_logger_on_first_use=False,
    )


def _stderr_logger(*args: Any) -> structlog.PrintLogger:
    # Whatever sys.stderr is when a line is logged (not when logging was configured).
    return structlog.PrintLogger(sys.stderr)


def _default_logging() -> None:
    """:func:`configure_logging` at ``info`` unless the program has configured structlog itself.

    structlog's own default prints every level, debug included, to standard output.
    """
    if not structlog.is_configured():
        configure_logging("info")


#: Codes after which the SDK reconnects (the stream broke; the arbiter keeps the matches going).
RETRYABLE_CODES = frozenset(
    {
        grpc.StatusCode.UNAVAILABLE,
        grpc.StatusCode.UNKNOWN,
        grpc.StatusCode.INTERNAL,
        grpc.StatusCode.DEADLINE_EXCEEDED,
        grpc.StatusCode.RESOURCE_EXHAUSTED,
        grpc.StatusCode.CANCELLED,
    }
)

Spec = tuple[str, Mapping[str, Any]] | str

#: Redirects followed at once, one after the other, before the reconnect backoff applies again
#: (a cluster whose nodes disagree for a moment, while a takeover is under way, cannot spin the bot).
REDIRECTS_IN_A_ROW = 5

#: Seconds the first connection may take, until the arbiter's Welcome, before the session gives up
#: with ConnectError (reconnects after a Welcome go on for as long as ``max_reconnects`` allows).
CONNECT_TIMEOUT = 30.0


@dataclass(frozen=True)
class Backoff:
    """Reconnect delays: ``initial * factor**attempt`` seconds, capped at ``maximum``, then multiplied
    by a random factor in ``[1 - jitter, 1 + jitter]`` (and capped again)."""

    initial: float = 0.5
    factor: float = 2.0
    maximum: float = 30.0
    jitter: float = 0.25

    def __post_init__(self) -> None:
        if self.initial <= 0 or self.factor < 1 or self.maximum < self.initial or not 0 <= self.jitter < 1:
            raise ValueError(f"bad backoff {self!r}")

    def base_delay(self, attempt: int) -> float:
        """The delay before reconnect ``attempt`` (0 for the first) without jitter."""
        return min(self.maximum, self.initial * self.factor ** min(max(attempt, 0), 64))

    def delay(self, attempt: int, rng: random.Random | None = None) -> float:
        """The delay before reconnect ``attempt``, with jitter."""
        base = self.base_delay(attempt)
        if self.jitter:
            base *= 1 + (rng or random.Random()).uniform(-self.jitter, self.jitter)
        return min(self.maximum, base)


def tls_credentials(
    ca: str | None = None, client_cert: str | None = None, client_key: str | None = None
) -> grpc.ChannelCredentials:
    """TLS credentials from PEM files: ``ca`` the certificate authority that signed the arbiter's
    certificate (default: the system's root certificates); ``client_cert`` and ``client_key`` this
    bot's certificate and key, for an arbiter that asks for them (mutual TLS).

    Raises OSError when a file cannot be read, ValueError when only one of cert and key is given.
    """
    if (client_cert is None) != (client_key is None):
        raise ValueError("give a client certificate and its key together")

    def read(path: str | None) -> bytes | None:
        if path is None:
            return None
        with open(path, "rb") as file:
            return file.read()

    return grpc.ssl_channel_credentials(read(ca), read(client_key), read(client_cert))


def spec_of(spec: Spec) -> tuple[str, dict[str, Any]]:
    """``"surge"`` or ``("torrent", {"size": 7})`` as (game, options), checked."""
    game, options = (spec, {}) if isinstance(spec, str) else (spec[0], dict(spec[1]))
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r}; choose one of {', '.join(GAMES)}")
    return game, options  # the arbiter checks the options (SeekRejected BAD_REQUEST)


time_control_to_pb = convert.time_control_to_pb
time_control_from_pb = convert.time_control_from_pb


def clocks_from_pb(clocks: Sequence[cpb.Clock]) -> dict[int, float | None]:
    """Seat -> seconds left (``None`` without a game clock)."""
    out: dict[int, float | None] = {}
    for clock in clocks:
        seat = convert.SEAT_FROM_PB.get(clock.seat)
        if seat is not None:
            out[seat] = convert.seconds_from_pb(clock, "remaining")
    return out


#: Client keepalive: a ping every 20 s, the connection counts as dead 10 s after an unanswered one.
KEEPALIVE_OPTIONS = CLIENT_CHANNEL_OPTIONS
#: Open seeks the arbiter accepts from one bot (more are refused with RESOURCE_EXHAUSTED).
MAX_OPEN_SEEKS = SEEK_LIMIT


def match_info_from_pb(message: pb.MatchStarted) -> MatchInfo:
    game, options = convert.spec_from_pb(message.spec)
    return MatchInfo(
        match_id=message.match_id,
        game=game,
        options=options,
        seat=convert.SEAT_FROM_PB[message.seat],
        colour=convert.colour_from_pb(message.colour),
        opponent_name=message.opponent_name,
        time_control=time_control_from_pb(message.time_control),
        seed_commitment=message.seed_commitment,
        resumed=message.resumed,
        timeout_policy=TIMEOUT_POLICY_FROM_PB.get(message.timeout_policy, TIMEOUT_LOSS),
        illegal_action_policy=ILLEGAL_POLICY_FROM_PB.get(message.illegal_action_policy, ILLEGAL_FORFEIT),
        clocks=clocks_from_pb(message.clocks),
        observation=(
            convert.observation_from_pb(game, message.observation)
            if message.HasField("observation")
            else None
        ),
    )


def summary_from_pb(info: MatchInfo, message: pb.MatchEnded) -> MatchSummary:
    """A MatchSummary (seed not yet checked) from ``MatchEnded``."""
    result = message.result
    seat = convert.SEAT_FROM_PB.get(message.seat, info.seat)
    winner = convert.SEAT_FROM_PB.get(result.winner_seat)
    reason = convert.END_REASON_FROM_PB.get(result.reason, "unknown")
    if reason == "aborted":
        outcome = ABORTED
    elif winner is None:
        outcome = DRAW
    else:
        outcome = WIN if winner == seat else LOSS
    final = None
    if message.HasField("final_observation"):
        final = convert.observation_from_pb(info.game, message.final_observation)
    colours = {1: result.seat_1_colour, 2: result.seat_2_colour}
    return MatchSummary(
        match_id=message.match_id,
        game=info.game,
        options=info.options,
        seat=seat,
        opponent_name=info.opponent_name,
        outcome=outcome,
        winner_seat=winner,
        winner_colour=convert.colour_from_pb(result.winner_colour),
        colour=convert.colour_from_pb(colours[seat]) or info.colour,
        scores={1: result.seat_1_score, 2: result.seat_2_score},
        reason=reason,
        detail=result.detail,
        faulty_seat=convert.SEAT_FROM_PB.get(result.faulty_seat),
        final_observation=final,
        actions=tuple(message.actions),
        seed=message.seed,
    )


def verify_seed(summary: MatchSummary, recorder: SeedCheck | None) -> MatchSummary:
    """The summary with the seed verdict filled in (unchanged for games without chance)."""
    if recorder is None:
        return summary
    if summary.final_observation is not None:
        recorder.record(summary.final_observation)
    if not summary.seed:
        return dataclasses.replace(
            summary, seed_verified=None, seed_problems=("the arbiter revealed no seed",)
        )
    problems = recorder.check(summary.seed)
    return dataclasses.replace(summary, seed_verified=not problems, seed_problems=tuple(problems))


@dataclass
class _Match:
    info: MatchInfo
    recorder: SeedCheck | None
    turn_id: int = -1
    observation: Any = None
    legal: list[Any] = field(default_factory=list)
    context: TurnContext | None = None
    answers: dict[int, pb.PlayRequest] = field(default_factory=dict)
    actions: dict[int, Any] = field(default_factory=dict)
    inflight: set[int] = field(default_factory=set)
    rejections: dict[int, list[Rejection]] = field(default_factory=dict)
    #: A turn that arrived while ``choose`` was still busy with an older turn of this match.
    queued: TurnContext | None = None


class Session:
    """One bot's session with the arbiter, across reconnects. Use :func:`run_bot` rather than this."""

    def __init__(
        self,
        bot: Bot,
        address: str,
        token: str,
        spec: Spec = ("torrent", {}),
        games: int | None = None,
        time_control: TimeControl | None = None,
        max_concurrent: int = 1,
        *,
        credentials: grpc.ChannelCredentials | None = None,
        channel_options: Sequence[tuple[str, Any]] = (),
        backoff: Backoff | None = None,
        max_reconnects: int | None = None,
        max_retries: int = 3,
        fallback_on_error: bool = True,
        strict_seed: bool = False,
        rng: random.Random | None = None,
        ladder: str | None = None,
        version: str | None = None,
        connect_timeout: float | None = CONNECT_TIMEOUT,
        event: str | None = None,
    ) -> None:
        if connect_timeout is not None and not connect_timeout > 0:
            raise ValueError("connect_timeout must be a positive number of seconds (None: no limit)")
        if not 1 <= max_concurrent <= MAX_OPEN_SEEKS:
            raise ValueError(
                f"max_concurrent must be between 1 and {MAX_OPEN_SEEKS} (the arbiter's seek limit)"
            )
        if games is not None and games < 0:
            raise ValueError("games must not be negative")
        if not token:
            raise AuthenticationError("no token given: every bot needs its token from the arbiter")
        if event is not None and ladder is not None:
            raise ValueError("a bot enters an event or joins a ladder, not both")
        self.bot = bot
        self.address = address
        #: The addresses to connect to, in turn after each failure (``address`` may list several
        #: nodes of a cluster, comma-separated); a redirect's address comes first once given. An
        #: address without a port gets port 50051 (see ``arbiter_bot.address``).
        self.seeds = [with_default_port(part) for part in address.split(",") if part.strip()] or [address]
        self._seed = 0
        self.target = self.seeds[0]
        self._join_token: str | None = None
        self._redirected = False
        self._redirects = 0  # in a row, without a Welcome
        self.token = token
        self.game, self.options = spec_of(spec)
        self.games = games
        self.time_control = time_control
        self.max_concurrent = max_concurrent
        self.credentials = credentials
        self.channel_options = list(channel_options)
        self.backoff = backoff or Backoff()
        self.max_reconnects = max_reconnects
        self.max_retries = max_retries
        self.fallback_on_error = fallback_on_error
        self.strict_seed = strict_seed
        self.rng = rng or random.Random()
        #: Join this ladder instead of seeking (the arbiter then schedules the matches).
        self.ladder = ladder
        #: The version this bot plays as (ladders keep ratings per version).
        self.version = version
        self._joined = False
        #: Enter this event instead of seeking, and play until it is over (``event_entry``).
        self.event = EventEntry(event, self.game, self.options) if event is not None else None
        self.bot_name = ""
        self.summaries: list[MatchSummary] = []
        self._matches: dict[str, _Match] = {}
        self._expected: set[str] = set()  # resumed matches whose MatchStarted has not come yet
        self._finished = 0
        self._open_seeks = 0
        self._attempt = 0
        self._outbox: asyncio.Queue[pb.PlayRequest | None] | None = None
        self._stop: asyncio.Event | None = None
        self._fatal: BaseException | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        #: Seconds the first connection may take (None: no limit); whether a Welcome ever came.
        self.connect_timeout = connect_timeout
        self._welcomed = False
        self._deadline: float | None = None
        self._last_error = ""

    # --- the loop ---------------------------------------------------------------------------

    def done(self) -> bool:
        """Whether the requested number of matches has finished (never, when ``games`` is None); in
        an event: whether the event is over and the bot's matches have ended."""
        if self.event is not None:
            return self.event.ended is not None and not self._active()
        return self.games is not None and self._finished >= self.games and not self._active()

    async def run(self) -> list[MatchSummary]:
        """Play until ``games`` matches have finished; the summaries of the matches, in order of ending."""
        _default_logging()
        if self.connect_timeout is not None and not self._welcomed:
            self._deadline = time.monotonic() + self.connect_timeout
        try:
            while not self.done():
                try:
                    await self._connect_once()
                except grpc.RpcError as err:
                    status = rich_status(err)
                    self._check_fatal(status)
                    self._last_error = f"{status.code.name}: {status.message}"
                    log.warning(
                        "stream broke", code=status.code.name, reason=status.reason, message=status.message
                    )
                except OSError as err:
                    self._last_error = str(err)
                    log.warning("connection failed", error=str(err))
                if self._fatal is not None:
                    raise self._fatal
                if self.done():
                    break
                if self._follow_redirect():
                    continue
                if self.max_reconnects is not None and self._attempt >= self.max_reconnects:
                    raise ArbiterError(f"gave up after {self._attempt} reconnect attempts to {self.address}")
                delay = min(self.backoff.delay(self._attempt, self.rng), self._time_left())
                self._attempt += 1
                log.info(
                    "reconnecting", address=self.target, attempt=self._attempt, in_seconds=round(delay, 2)
                )
                await asyncio.sleep(delay)
                if self._time_left() <= 0:
                    raise self._connect_error()
        finally:
            for task in list(self._tasks):
                task.cancel()
        return self.summaries

    def _time_left(self) -> float:
        """Seconds left for the first connection (infinite once a Welcome came, or without a limit)."""
        if self._welcomed or self._deadline is None:
            return float("inf")
        return max(0.0, self._deadline - time.monotonic())

    def _connect_error(self) -> ConnectError:
        where = ", ".join(self.seeds)
        last = " ".join(self._last_error.split())  # one line
        return ConnectError(
            f"cannot connect to the arbiter at {where} within {self.connect_timeout:g} s"
            f"{f' ({last})' if last else ''}: is the address right and the arbiter running?",
            grpc.StatusCode.UNAVAILABLE,
        )

    async def _give_up_when_late(self, stop: asyncio.Event) -> None:
        """End the connection attempt when the first connection's time is up before a Welcome."""
        await asyncio.sleep(self._time_left())
        if not self._welcomed:
            self._fatal = self._connect_error()
            stop.set()

    def _follow_redirect(self) -> bool:
        """Whether to connect again at once, to where a Redirect sent the bot. After
        REDIRECTS_IN_A_ROW redirects without a Welcome the bot still goes where it was sent, after
        the usual backoff and with its own token (a join token could expire during the wait); after
        anything but a Redirect it tries the next seed address."""
        if not self._redirected:
            self._next_seed()
            return False
        self._redirected = False
        if self._redirects <= REDIRECTS_IN_A_ROW:
            return True
        self._join_token = None
        return False

    def _next_seed(self) -> None:
        """After a failure, the next seed address (the redirect's node may be the one that failed)."""
        self._join_token = None
        if self.target == self.seeds[self._seed]:
            self._seed = (self._seed + 1) % len(self.seeds)
        self.target = self.seeds[self._seed]

    def _check_fatal(self, status: RichStatus) -> None:
        code = status.code
        text = f"{status.message} ({code.name}{', ' + status.reason if status.reason else ''})"
        if code == grpc.StatusCode.UNAUTHENTICATED:
            raise AuthenticationError(f"the arbiter refused the token: {text}", code, status.reason)
        if code == grpc.StatusCode.ABORTED and status.reason in (REPLACED, None):
            raise ReplacedError(
                f"another connection with this token replaced this one: {text}", code, status.reason
            )
        if code == grpc.StatusCode.INVALID_ARGUMENT or status.reason == BAD_REQUEST:
            raise BadRequestError(f"the arbiter refused a request: {text}", code, status.reason)
        if code not in RETRYABLE_CODES and code != grpc.StatusCode.ABORTED:
            raise ArbiterError(f"the arbiter ended the session: {text}", code, status.reason)

    def _open_channel(self) -> grpc.aio.Channel:
        # Keepalive pings notice a connection that died silently (NAT, middleboxes) within ~30 s,
        # so the session reconnects and resumes while the bot's clock still has time.
        options = [*KEEPALIVE_OPTIONS, *self.channel_options]
        if self.credentials is not None:
            return grpc.aio.secure_channel(self.target, self.credentials, options=options)
        return grpc.aio.insecure_channel(self.target, options=options)

    async def _connect_once(self) -> None:
        outbox: asyncio.Queue[pb.PlayRequest | None] = asyncio.Queue()
        stop = asyncio.Event()

        async def requests() -> AsyncIterator[pb.PlayRequest]:
            while True:
                item = await outbox.get()
                if item is None:
                    return
                yield item

        channel = self._open_channel()
        call: Any = None
        helpers: list[asyncio.Task[Any]] = []
        try:
            stub: Any = pb_grpc.BotServiceStub(channel)  # type: ignore[no-untyped-call]
            token, self._join_token = self._join_token or self.token, None  # a join token is used once
            metadata: list[tuple[str, str]] = [("authorization", f"Bearer {token}")]
            if self.version:
                metadata.append((BOT_VERSION_METADATA, self.version))
            call = stub.Play(requests(), metadata=tuple(metadata))
            self._outbox, self._stop = outbox, stop
            receiving = asyncio.create_task(self._receive(call))
            stopping = asyncio.create_task(stop.wait())
            helpers = [receiving, stopping]
            if self._time_left() != float("inf"):
                helpers.append(asyncio.create_task(self._give_up_when_late(stop)))
            finished, _ = await asyncio.wait({receiving, stopping}, return_when=asyncio.FIRST_COMPLETED)
            if receiving in finished:
                stopping.cancel()
                receiving.result()  # re-raises the call's error
                if not self.done() and self._fatal is None:
                    log.warning("the arbiter closed the stream")
            else:
                receiving.cancel()
                with contextlib.suppress(asyncio.CancelledError, grpc.RpcError):
                    await receiving
        finally:
            for task in helpers:  # also when this coroutine itself is cancelled
                if not task.done():
                    task.cancel()
            self._outbox = self._stop = None
            outbox.put_nowait(None)
            if call is not None:
                call.cancel()
            await channel.close(None)

    async def _receive(self, call: Any) -> None:
        async for response in call:
            await self._handle(response)
            if self.done() or self._fatal is not None:
                return

    @property
    def playing(self) -> int:
        """How many of this bot's matches are running now (or announced and not yet started)."""
        return self._active()

    def wind_down(self) -> None:
        """Take no new match: the ones running (or announced) are played to their end, then
        :meth:`run` returns. On a ladder the bot leaves it at once. (Several bots on one ladder that
        each stop after a fixed number of matches can leave the last of them with nobody to
        play; a group that winds down together once each has enough cannot.)"""
        self.games = self._finished + self._active()
        self._top_up_seeks()
        if self.done():
            self._stop_now()  # nothing to finish: end the call now

    def drop_connection(self) -> None:
        """Close the current stream at once; the session reconnects after the backoff delay and the
        arbiter resumes its matches (what a network failure does; for tests and experiments)."""
        self._stop_now()

    def _stop_now(self) -> None:
        if self._stop is not None:
            self._stop.set()

    def _send(self, request: pb.PlayRequest) -> bool:
        if self._outbox is None:
            return False
        self._outbox.put_nowait(request)
        return True

    def _active(self) -> int:
        return len(self._matches.keys() | self._expected)

    def _top_up_seeks(self) -> None:
        if self._outbox is None:
            return
        if self.event is not None:
            if not self.event.sent and self.event.ended is None:
                self._send(self.event.request())
                log.info("entering event", event_name=self.event.name)
            return
        if self.ladder is not None:
            self._ladder_membership()
            return
        active = self._active()
        want = self.max_concurrent - active - self._open_seeks
        if self.games is not None:
            want = min(want, self.games - self._finished - active - self._open_seeks)
        for _ in range(max(0, want)):
            seek = pb.Seek(spec=convert.spec_to_pb(self.game, self.options))
            if self.time_control is not None:
                seek.time_control.CopyFrom(time_control_to_pb(self.time_control))
            self._send(pb.PlayRequest(seek=seek))
            self._open_seeks += 1
            log.info("seeking a match", game=self.game, options=self.options, open_seeks=self._open_seeks)

    def _later(self, delay: float, callback: Any) -> None:
        """Call ``callback`` after ``delay`` seconds, unless this connection has ended by then."""
        outbox = self._outbox

        def call() -> None:
            if self._outbox is outbox and outbox is not None:
                callback()

        asyncio.get_running_loop().call_later(delay, call)

    def _ladder_membership(self) -> None:
        """On a ladder: join once per connection; leave once the last wanted match is scheduled."""
        assert self.ladder is not None
        active = self._active()
        enough = self.games is not None and self._finished + active >= self.games
        if not self._joined and not enough:
            join = pb.JoinLadder(ladder=self.ladder, max_concurrent=self.max_concurrent)
            self._send(pb.PlayRequest(join_ladder=join))
            self._joined = True
            log.info("joining ladder", ladder=self.ladder, max_concurrent=self.max_concurrent)
        elif self._joined and enough:
            self._send(pb.PlayRequest(leave_ladder=pb.LeaveLadder(ladder=self.ladder)))
            self._joined = False
            log.info("leaving ladder", ladder=self.ladder, reason="enough matches")

    def _on_ladder_rejected(self, message: pb.LadderRejected) -> None:
        reason = reason_of(message.status)
        log.error(
            "ladder request refused", ladder=message.ladder, reason=reason, message=message.status.message
        )
        if reason in (SHUTTING_DOWN, CHALLENGE_REFUSED, RESOURCE_EXHAUSTED):
            return
        if reason == RATE_LIMITED:
            # Too many requests for now: join again once the arbiter's wait is over.
            self._joined = False
            self._later(retry_delay(message.status) or 1.0, self._top_up_seeks)
            return
        self._fatal = BadRequestError(
            f"the arbiter refused ladder {message.ladder!r}: {message.status.message} ({reason})",
            grpc.StatusCode.NOT_FOUND if reason == LADDER_NOT_FOUND else grpc.StatusCode.INVALID_ARGUMENT,
            reason,
        )
        self._stop_now()

    async def _hook(self, name: str, *args: Any) -> None:
        """Call a bot hook in a worker thread; a failing hook is logged, never fatal."""
        try:
            await asyncio.to_thread(getattr(self.bot, name), *args)
        except Exception:
            log.exception("bot hook failed", hook=name)

    # --- messages -----------------------------------------------------------------------------

    async def _handle(self, response: pb.PlayResponse) -> None:
        kind = response.WhichOneof("kind")
        if kind == "welcome":
            await self._on_welcome(response.welcome)
        elif kind == "match_started":
            await self._on_match_started(response.match_started)
        elif kind == "turn":
            self._on_turn(response.turn)
        elif kind == "move_rejected":
            await self._on_rejected(response.move_rejected)
        elif kind == "match_ended":
            await self._on_match_ended(response.match_ended)
        elif kind == "seek_rejected":
            self._on_seek_rejected(response.seek_rejected)
        elif kind == "ladder_rejected":
            self._on_ladder_rejected(response.ladder_rejected)
        elif kind in ("event_entered", "event_ended", "event_rejected", "event_withdrawn"):
            self._on_event_message(response, kind)
        elif kind == "redirect":
            self._on_redirect(response.redirect)
        else:
            _log_note(response, kind)

    def _on_event_message(self, response: pb.PlayResponse, kind: str) -> None:
        entry = self.event
        if kind == "event_withdrawn":
            log.info("withdrew from event", event_name=response.event_withdrawn.event)
            return
        if entry is None or getattr(response, kind).event != entry.name:
            log.warning("a message about an event this bot did not enter", kind=kind)
            return
        if kind == "event_entered":
            entry.on_entered(response.event_entered)
        elif kind == "event_ended":
            entry.on_ended(response.event_ended)
            if self.done():
                self._stop_now()
        else:
            error, again = entry.on_rejected(response.event_rejected)
            if error is not None:
                self._fatal = error
                self._stop_now()
            elif again is not None:
                self._later(again, self._top_up_seeks)

    def _on_redirect(self, redirect: pb.Redirect) -> None:
        """A cluster sends the bot to another node: connect there (the matches go on there)."""
        log.info(
            "redirected",
            to=redirect.address,
            reason=pb.RedirectReason.Name(redirect.reason),
            ladder=redirect.ladder or None,
        )
        self.target = with_default_port(redirect.address) if redirect.address else self.target
        self._join_token = redirect.join_token or None
        self._redirected = True
        self._redirects += 1
        self._stop_now()

    async def _on_welcome(self, welcome: pb.Welcome) -> None:
        self._welcomed = True
        self._attempt = 0
        self._redirects = 0
        self.bot_name = welcome.bot_name
        resumed = set(welcome.resumed_match_ids)
        ended = set(welcome.ended_match_ids)  # their MatchEnded follow the Welcome
        for match_id in list(self._matches):
            if match_id not in resumed and match_id not in ended:  # ended while away, result not kept
                match = self._matches.pop(match_id)
                log.warning("match ended while disconnected; result unknown", match_id=match_id)
                info = match.info
                summary = MatchSummary(
                    match_id=match_id,
                    game=info.game,
                    options=info.options,
                    seat=info.seat,
                    opponent_name=info.opponent_name,
                    outcome=UNKNOWN,
                    colour=info.colour,
                    detail="the match ended while the bot was disconnected",
                )
                self._finished += 1
                self.summaries.append(summary)
                await self._hook("on_match_end", summary)
        self._expected = resumed - self._matches.keys()
        self._open_seeks = 0  # seeks belong to the stream that sent them
        self._joined = False  # and so do ladder memberships
        if self.event is not None:
            self.event.sent = False  # and event entries (EnterEvent again: it is answered again)
        for pause in welcome.ladder_pauses:
            log.warning("paused on a ladder (joining resumes)", ladder=pause.ladder, reason=pause.reason)
        log.info("connected", bot=welcome.bot_name, resumed=sorted(resumed), address=self.target)
        self._top_up_seeks()
        if self.done():
            self._stop_now()

    async def _on_match_started(self, message: pb.MatchStarted) -> None:
        info = match_info_from_pb(message)
        if not message.resumed:
            self._open_seeks = max(0, self._open_seeks - 1)
        self._expected.discard(info.match_id)
        known = self._matches.get(info.match_id)
        if known is not None:
            known.info = info
            log.info("match resumed", match_id=info.match_id)
            return
        game = get_game(info.game)
        recorder = game.seed_check(
            info.match_id, info.seed_commitment, info.colour or game.colours[info.seat - 1]
        )
        self._matches[info.match_id] = _Match(info, recorder)
        if self.ladder is not None:
            self._ladder_membership()  # leave as soon as the last wanted match has started
        log.info(
            "match started",
            match_id=info.match_id,
            game=info.game,
            options=info.options,
            seat=info.seat,
            colour=info.colour,
            opponent=info.opponent_name,
            time_control=info.time_control.describe(),
            resumed=info.resumed,
        )
        await self._hook("on_match_start", info)

    def _on_turn(self, turn: pb.Turn) -> None:
        match = self._matches.get(turn.match_id)
        if match is None:
            log.warning(
                "turn for a match the bot does not know", match_id=turn.match_id, turn_id=turn.turn_id
            )
            return
        tid = turn.turn_id
        if tid in match.answers:  # the arbiter re-sent a turn we answered (after a reconnect)
            log.info("re-sending the answer to a repeated turn", match_id=turn.match_id, turn_id=tid)
            self._send(match.answers[tid])
            return
        if tid in match.inflight or tid < match.turn_id:
            return
        info = match.info
        observation = convert.observation_from_pb(info.game, turn.observation)
        legal = convert.legal_from_pb(turn.legal)
        if match.recorder is not None:
            match.recorder.record(observation)
        context = TurnContext(
            match_id=turn.match_id,
            turn_id=tid,
            game=info.game,
            options=info.options,
            seat=convert.SEAT_FROM_PB.get(turn.seat, info.seat),
            colour=convert.colour_from_pb(turn.colour) or info.colour,
            opponent_name=info.opponent_name,
            clocks=clocks_from_pb(turn.clocks),
            decision_limit=convert.seconds_from_pb(turn, "decision_limit"),
            info=info,
        )
        match.turn_id, match.observation, match.legal, match.context = tid, observation, legal, context
        match.answers.clear()
        match.actions.clear()
        match.rejections.clear()
        if match.inflight:  # choose is still busy with an older turn: never two at once per match
            match.queued = context
            return
        self._start_decision(match, context)

    def _start_decision(self, match: _Match, context: TurnContext) -> None:
        match.inflight.add(context.turn_id)
        task = asyncio.create_task(self._decide(match, context))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _decide(self, match: _Match, context: TurnContext) -> None:
        tid = context.turn_id
        game = match.info.game
        try:
            started = time.monotonic()
            try:
                chosen = await asyncio.to_thread(
                    self.bot.choose, match.observation, list(match.legal), context
                )
                action = self._as_action(game, chosen)
                message = convert.action_to_pb(action)
            except Exception as err:
                if not self.fallback_on_error:
                    self._fatal = err
                    self._stop_now()
                    return
                log.exception("bot.choose failed; playing a random legal action", match_id=context.match_id)
                if not match.legal:
                    return
                action = self.rng.choice(match.legal)
                message = convert.action_to_pb(action)
            if self._matches.get(context.match_id) is not match or match.turn_id != tid:
                return  # the match ended or moved on while the bot thought
            request = pb.PlayRequest(move=pb.Move(match_id=context.match_id, turn_id=tid, action=message))
            match.answers[tid] = request
            match.actions[tid] = action
            sent = self._send(request)
            log.debug(
                "move",
                match_id=context.match_id,
                turn_id=tid,
                action=_text(game, action),
                think_seconds=round(time.monotonic() - started, 3),
                sent=sent,
            )
        finally:
            match.inflight.discard(tid)
            queued = match.queued
            if queued is not None and not match.inflight:
                match.queued = None
                if self._matches.get(queued.match_id) is match and match.turn_id == queued.turn_id:
                    self._start_decision(match, queued)

    @staticmethod
    def _as_action(game: str, chosen: Any) -> Any:
        """A text action is read with the game's rules; text that is not an action raises, which
        is handled like an error in ``choose`` (see ``fallback_on_error``), in every game."""
        if not isinstance(chosen, str):
            return chosen
        return get_game(game).parse_action(chosen)

    async def _on_rejected(self, message: pb.MoveRejected) -> None:
        reason = reason_of(message.status) or "UNSPECIFIED"
        match = self._matches.get(message.match_id)
        rejected = match.actions.get(message.turn_id) if match is not None else None
        rejection = Rejection(
            match_id=message.match_id,
            turn_id=message.turn_id,
            reason=reason,
            code=message.status.code,
            message=message.status.message,
            may_retry=message.may_retry,
            action=rejected,
        )
        log.warning(
            "move rejected",
            match_id=message.match_id,
            turn_id=message.turn_id,
            reason=reason,
            code=status_code_name(message.status.code),
            message=message.status.message,
            may_retry=message.may_retry,
        )
        await self._hook("on_move_rejected", rejection)
        if match is None or match.turn_id != message.turn_id:
            return
        tid = message.turn_id
        match.answers.pop(tid, None)
        if not message.may_retry or reason == CLOCK_EXPIRED or tid in match.inflight or match.context is None:
            return
        earlier = match.rejections.setdefault(tid, [])
        earlier.append(rejection)
        if len(earlier) <= self.max_retries:
            self._start_decision(match, dataclasses.replace(match.context, rejections=tuple(earlier)))
            return
        # The bot keeps repeating itself: answer with a legal action it has not tried.
        tried = {r.action for r in earlier}
        choices = [a for a in match.legal if a not in tried] or match.legal
        if not choices:
            return
        action = self.rng.choice(choices)
        log.warning(
            "too many rejections; playing a random legal action", match_id=match.info.match_id, turn_id=tid
        )
        request = pb.PlayRequest(
            move=pb.Move(match_id=match.info.match_id, turn_id=tid, action=convert.action_to_pb(action))
        )
        match.answers[tid] = request
        match.actions[tid] = action
        self._send(request)

    def _on_seek_rejected(self, message: pb.SeekRejected) -> None:
        self._open_seeks = max(0, self._open_seeks - 1)
        reason = reason_of(message.status)
        log.error("seek rejected", reason=reason, message=message.status.message)
        if reason == SHUTTING_DOWN:
            return  # the arbiter is stopping: the stream ends next (UNAVAILABLE) and we reconnect
        if reason == RESOURCE_EXHAUSTED:
            return  # too many open seeks: seeking goes on when a match ends
        if reason == RATE_LIMITED:
            # Too many seeks for now: seek again once the arbiter's wait is over.
            self._later(retry_delay(message.status) or 1.0, self._top_up_seeks)
            return
        # The same seek would be refused again (unknown game, bad options or time control): stop.
        self._fatal = BadRequestError(
            f"the arbiter refused the seek: {message.status.message} ({reason})",
            grpc.StatusCode.INVALID_ARGUMENT,
            reason,
        )
        self._stop_now()

    async def _on_match_ended(self, message: pb.MatchEnded) -> None:
        match = self._matches.pop(message.match_id, None)
        self._expected.discard(message.match_id)
        if match is None:
            log.warning("result of a match the bot does not know", match_id=message.match_id)
            return
        summary = verify_seed(summary_from_pb(match.info, message), match.recorder)
        if summary.seed_verified is False:
            mismatch = SeedMismatch(summary.match_id, summary.seed_problems)
            log.error(
                "SEED CHECK FAILED: the arbiter's draws do not match its commitment",
                error=str(mismatch),
            )
            if self.strict_seed:
                self._fatal = mismatch
        elif summary.seed_verified:
            log.info("seed verified", match_id=summary.match_id)
        self._finished += 1
        self.summaries.append(summary)
        log.info(
            "match ended",
            match_id=summary.match_id,
            outcome=summary.outcome,
            reason=summary.reason,
            scores=dict(summary.scores),
            detail=summary.detail or None,
        )
        await self._hook("on_match_end", summary)
        if self._fatal is not None or self.done():
            self._stop_now()
            return
        self._top_up_seeks()


def _log_note(response: pb.PlayResponse, kind: str | None) -> None:
    """A message that asks nothing of the session: logged."""
    if kind == "move_acknowledged":
        ack = response.move_acknowledged
        log.debug("duplicate move acknowledged", match_id=ack.match_id, turn_id=ack.turn_id)
    elif kind == "ladder_joined":
        joined = response.ladder_joined
        log.info(
            "joined ladder",
            ladder=joined.ladder,
            version=joined.bot_version,
            rated=joined.rated,
            resumed_from_pause=joined.resumed_from_pause or None,
        )
    elif kind == "seek_pending":
        pending = response.seek_pending
        log.info("waiting for an opponent", seek_id=pending.seek_id, waiting=pending.waiting)
    else:
        log.warning("unknown message from the arbiter (newer protocol?)", kind=kind)


def _text(game: str, action: Any) -> str:
    try:
        return str(get_game(game).format_action(action))
    except Exception:  # noqa: BLE001 - only for the log
        return repr(action)


async def run_bot(
    bot: Bot,
    address: str,
    token: str,
    spec: Spec = ("torrent", {}),
    games: int | None = None,
    time_control: TimeControl | None = None,
    max_concurrent: int = 1,
    **kwargs: Any,
) -> list[MatchSummary]:
    """Play ``games`` matches (``None``: until stopped) of ``spec`` as ``bot``; the match summaries.

    ``spec`` is a game name or ``(game, options)``, e.g. ``("fravan", {"size": 5})``.
    ``time_control=None`` asks for the arbiter's default. Keyword options (see :class:`Session`):
    ``credentials`` (TLS), ``channel_options``, ``backoff``, ``max_reconnects`` (``None``: forever),
    ``connect_timeout`` (seconds until the first Welcome, default 30; ``None``: no limit),
    ``max_retries`` (re-asks of ``choose`` after refusals of one turn before a random legal action is
    sent), ``fallback_on_error`` (a random legal action when ``choose`` raises; otherwise the error
    propagates), ``strict_seed`` (raise :class:`SeedMismatch` instead of only logging it), ``rng``,
    ``ladder`` (join that ladder instead of seeking), ``version``, ``event`` (enter that event
    instead of seeking and play until it is over; ``games`` is then not used).

    Raises :class:`AuthenticationError`, :class:`ReplacedError`, :class:`BadRequestError` or
    :class:`ArbiterError` when the arbiter ends the session for good, :class:`ConnectError` when
    the first connection brings no Welcome within ``connect_timeout`` seconds.
    """
    session = Session(bot, address, token, spec, games, time_control, max_concurrent, **kwargs)
    return await session.run()


def run(
    bot: Bot,
    address: str,
    token: str,
    spec: Spec = ("torrent", {}),
    games: int | None = None,
    time_control: TimeControl | None = None,
    max_concurrent: int = 1,
    **kwargs: Any,
) -> list[MatchSummary]:
    """The blocking form of :func:`run_bot`."""
    return asyncio.run(run_bot(bot, address, token, spec, games, time_control, max_concurrent, **kwargs))


__all__ = [
    "CONNECT_TIMEOUT",
    "Backoff",
    "ConnectError",
    "Session",
    "configure_logging",
    "match_info_from_pb",
    "run",
    "run_bot",
    "spec_of",
    "summary_from_pb",
    "tls_credentials",
    "verify_seed",
]
