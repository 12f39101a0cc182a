"""The thin gRPC servicer: protobuf in, domain calls, statuses out."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any, NoReturn

import grpc
import structlog
from arbiter_games import ActionError, MalformedAction, OptionsError
from arbiter_wire import convert, reasons
from arbiter_wire.limits import BOT_VERSION_METADATA
from arbiter_wire.status import rate_limited, status_for
from arbiter_wire.text import shown
from arbiter_wire.v1 import bot_service_pb2 as pb
from arbiter_wire.v1 import bot_service_pb2_grpc as pb_grpc
from google.protobuf.message import DecodeError
from google.rpc import status_pb2
from grpc_status import rpc_status

from ..eventhost.entries import Entered, EventRefused
from ..ladder.host import LadderRefused
from ..match.match import Match
from ..node import Arbiter, Redirected, SeekRefused
from ..security.ratelimit import address_key
from ..sessions.identity import BotIdentity, VersionError, read_version
from ..sessions.session import EMPTY, BotSession, Closing, Delivery, Empty, OutboxItem
from . import encode
from .event_messages import entry_spec, event_ended, event_entered

log = structlog.get_logger("arbiter")


def metadata_value(metadata: Any, key: str) -> str | None:
    """The first value of ``key`` in call metadata (text values only)."""
    for found, value in metadata or ():
        if found == key and isinstance(value, str):
            return value
    return None


def bearer_token(metadata: Any) -> str | None:
    """The token of ``authorization: Bearer <token>`` (the scheme is case-sensitive)."""
    for key, value in metadata or ():
        if key == "authorization" and isinstance(value, str) and value.startswith("Bearer "):
            return value[len("Bearer ") :].strip()
    return None


async def abort_with(context: grpc.aio.ServicerContext[Any, Any], reason: str, message: str) -> NoReturn:
    await abort_status(context, status_for(reason, message))


async def abort_status(context: grpc.aio.ServicerContext[Any, Any], status: status_pb2.Status) -> NoReturn:
    rich = rpc_status.to_status(status)
    await context.abort(rich.code, rich.details, trailing_metadata=rich.trailing_metadata)
    raise AssertionError("abort returned")  # pragma: no cover


#: Requests that count against the lobby limit (seeks, joins, challenges per bot per minute).
LOBBY_KINDS = frozenset({"seek", "join_ladder", "challenge", "enter_event", "withdraw_event"})


def rate_limited_answer(request: pb.PlayRequest, kind: str | None, wait: float) -> pb.PlayResponse | None:
    """The rejection a rate-limited request gets (None for an empty request: nothing to answer)."""
    status = rate_limited(
        f"too many requests: try again in {wait:.3f} s (docs/protocol.md, Rate limits)", wait
    )
    if kind == "move":
        move = request.move
        return pb.PlayResponse(
            move_rejected=pb.MoveRejected(match_id=move.match_id, turn_id=move.turn_id, status=status)
        )
    if kind == "seek":
        return pb.PlayResponse(seek_rejected=pb.SeekRejected(status=status, seek_id=request.seek.seek_id))
    if kind in ("join_ladder", "leave_ladder"):
        ladder = getattr(request, kind).ladder
        return pb.PlayResponse(ladder_rejected=pb.LadderRejected(status=status, ladder=ladder))
    if kind == "challenge":
        challenge = request.challenge
        rejected = pb.LadderRejected(
            status=status, ladder=challenge.ladder, challenge_id=challenge.challenge_id
        )
        return pb.PlayResponse(ladder_rejected=rejected)
    if kind in ("enter_event", "withdraw_event"):
        event = getattr(request, kind).event
        return pb.PlayResponse(event_rejected=pb.EventRejected(status=status, event=event))
    return None


class BotServicer(pb_grpc.BotServiceServicer):
    def __init__(self, arbiter: Arbiter) -> None:
        self.arbiter = arbiter

    async def Play(  # noqa: N802 - the RPC's name
        self, request_iterator: AsyncIterator[pb.PlayRequest], context: grpc.aio.ServicerContext[Any, Any]
    ) -> None:
        identity, version = await self._admit(context)
        placement = self.arbiter.placement(identity.name)
        if placement is not None:  # a cluster: the bot's matches run on another node
            await context.write(encode.redirect(placement))
            return
        session = self.arbiter.attach(identity.name, version, identity.credential)
        reader = asyncio.create_task(self._read(context, session))
        take, wait_for_item = session.take, session.wait
        write = context.write
        item: OutboxItem | Empty = EMPTY
        try:
            while True:
                item = take()
                if item is EMPTY:
                    await wait_for_item()
                    continue
                if type(item) is Delivery:
                    # A Turn's clock starts once gRPC has taken it (not while it waited in gRPC's
                    # own queues behind other streams' writes, which the arbiter cannot measure).
                    await write(item.message)
                    item.on_sent()
                    continue
                if item is None:
                    return
                if isinstance(item, Closing):
                    await abort_with(context, item.reason, item.message)
                await write(item)
        except BaseException:
            session.put_back(item)  # the call ended before it was written (a result is kept)
            raise
        finally:
            reader.cancel()
            self.arbiter.detach(session)

    async def _admit(self, context: grpc.aio.ServicerContext[Any, Any]) -> tuple[BotIdentity, str]:
        """The bot a Play call is for and the version it names, or the call ends here: the
        failed-token limits, the token, the enabled flag, the Play-call limit, the version."""
        metadata = context.invocation_metadata()
        peer = address_key(context.peer() or "")
        token = bearer_token(metadata)
        limiter = self.arbiter.limiter
        wait = limiter.token_check_allowed(peer, token)
        if wait:
            message = f"too many failed token checks from {peer}: try again in {wait:.3f} s"
            await abort_status(context, rate_limited(message, wait))
        identity = self.arbiter.identify(token)
        if identity is None:
            limiter.token_check_failed(peer)
            await abort_with(
                context, reasons.BAD_TOKEN, "missing or wrong token (metadata authorization: Bearer <token>)"
            )
        limiter.token_check_passed(peer, token or "")
        if not identity.enabled:
            await abort_with(
                context, reasons.BOT_DISABLED, f"bot {identity.name} is disabled on this arbiter"
            )
        wait = limiter.play_call(identity.name)
        if wait:
            message = f"bot {identity.name} opened too many Play calls: try again in {wait:.3f} s"
            await abort_status(context, rate_limited(message, wait))
        try:
            version = read_version(metadata_value(metadata, BOT_VERSION_METADATA))
        except VersionError as exc:
            await abort_with(context, reasons.BAD_REQUEST, f"{BOT_VERSION_METADATA}: {exc}")
        return identity, version

    async def _read(self, context: grpc.aio.ServicerContext[Any, Any], session: BotSession) -> None:
        # ``context.read()`` itself, not ``async for`` over the request iterator: gRPC's iterator
        # is an async generator around the same call, one more frame resumed per request.
        read = context.read
        eof = grpc.aio.EOF
        try:
            while True:
                request = await read()
                if request is eof:
                    break
                if session.closed:
                    break  # replaced or closing: nothing more from this stream counts
                kind = request.WhichOneof("kind")
                try:
                    self._handle(session, request, kind)
                except Exception:
                    log.exception("request_failed", bot=session.bot_name, kind=kind)
        except DecodeError:
            session.close(reasons.BAD_REQUEST, "a request could not be decoded as an arbiter.v1.PlayRequest")
        except (asyncio.CancelledError, grpc.aio.AioRpcError):
            pass
        finally:
            session.end()  # ends the writer (after a Closing, if one was queued)

    def _handle(self, session: BotSession, request: pb.PlayRequest, kind: str | None) -> None:
        # The hot path first: a move answering the bot's pending turn is never limited.
        if kind == "move" and self._answered(session, request.move):
            return
        if self._limited(session, request, kind):
            return
        if kind == "move":
            self._move(session, request.move)
        elif kind == "seek":
            self._seek(session, request.seek)
        elif kind == "join_ladder":
            self._join(session, request.join_ladder)
        elif kind == "leave_ladder":
            self._leave(session, request.leave_ladder)
        elif kind == "challenge":
            self._challenge(session, request.challenge)
        elif kind == "enter_event":
            self._enter(session, request.enter_event)
        elif kind == "withdraw_event":
            self._withdraw(session, request.withdraw_event)

    def _answered(self, session: BotSession, move: pb.Move) -> bool:
        """Play ``move`` if it answers the bot's pending turn (True), else leave it (False)."""
        bot_name = session.bot_name
        match = self.arbiter.find_match(bot_name, move.match_id)
        if match is None:
            return False
        # Whether it answers the pending turn of the bot's seat.
        pending = match.pending
        if pending is None or pending.turn_id != move.turn_id or match.bots[pending.seat] != bot_name:
            return False
        self._answer(session, match, move)
        return True

    def _limited(self, session: BotSession, request: pb.PlayRequest, kind: str | None) -> bool:
        """Whether the request goes past a rate limit (then it is answered and goes no further).

        (A move that answers the bot's pending turn is play and never limited: ``_read`` sends
        it on without asking.)"""
        limiter = self.arbiter.limiter
        wait = limiter.request(session.bot_name)
        if not wait and kind in LOBBY_KINDS:
            wait = limiter.lobby(session.bot_name)
        if not wait:
            return False
        answer = rate_limited_answer(request, kind, wait)
        if answer is not None:
            session.send(answer)
        return True

    def _move(self, session: BotSession, move: pb.Move) -> None:
        match = self.arbiter.find_match(session.bot_name, move.match_id)
        if match is None:
            status = status_for(
                reasons.UNKNOWN_MATCH, f"no match {shown(move.match_id)} for bot {session.bot_name}"
            )
            rejected = pb.MoveRejected(match_id=move.match_id, turn_id=move.turn_id, status=status)
            session.send(pb.PlayResponse(move_rejected=rejected))
            return
        self._answer(session, match, move)

    def _answer(self, session: BotSession, match: Match, move: pb.Move) -> None:
        """``move`` read with the match's game and given to the match."""
        action: object | ActionError
        try:
            action = convert.action_from_pb(match.game.name, move.action)
        except ActionError as exc:
            action = exc
        except (ValueError, TypeError, OverflowError) as exc:
            action = MalformedAction(f"cannot read the action: {type(exc).__name__}")
        self.arbiter.answer(match, session.bot_name, move.turn_id, action)

    def _seek(self, session: BotSession, seek: pb.Seek) -> None:
        try:
            game, options = convert.spec_from_pb(seek.spec)
            control = None
            if seek.HasField("time_control"):
                control = convert.time_control_from_pb(seek.time_control)
            accepted = self.arbiter.seek(session.bot_name, game, options, control, seek.seek_id)
        except (OptionsError, ValueError) as exc:
            status = status_for(reasons.BAD_REQUEST, str(exc))
            session.send(pb.PlayResponse(seek_rejected=pb.SeekRejected(status=status, seek_id=seek.seek_id)))
            return
        except SeekRefused as exc:
            rejected = pb.SeekRejected(status=status_for(exc.reason, exc.message), seek_id=seek.seek_id)
            session.send(pb.PlayResponse(seek_rejected=rejected))
            return
        if accepted.waiting:
            key = accepted.key
            pending = pb.SeekPending(
                seek_id=seek.seek_id,
                waiting=accepted.waiting,
                spec=convert.spec_to_pb(key.game, dict(key.options)),
            )
            session.send(pb.PlayResponse(seek_pending=pending))

    def _join(self, session: BotSession, join: pb.JoinLadder) -> None:
        try:
            joined = self.arbiter.join_ladder(session, join.ladder, join.max_concurrent or 1)
        except LadderRefused as exc:
            rejected = pb.LadderRejected(status=status_for(exc.reason, exc.message), ladder=join.ladder)
            session.send(pb.PlayResponse(ladder_rejected=rejected))
            return
        except Redirected as exc:
            self.arbiter.redirect(session, exc.placement)
            return
        if joined is None:
            return  # answered once the bot's matches on this node are over (a cluster)
        session.send(pb.PlayResponse(ladder_joined=encode.ladder_joined(joined)))

    def _leave(self, session: BotSession, leave: pb.LeaveLadder) -> None:
        try:
            self.arbiter.leave_ladder(session, leave.ladder)
        except LadderRefused as exc:
            rejected = pb.LadderRejected(status=status_for(exc.reason, exc.message), ladder=leave.ladder)
            session.send(pb.PlayResponse(ladder_rejected=rejected))

    def _challenge(self, session: BotSession, challenge: pb.Challenge) -> None:
        try:
            self.arbiter.challenge(session, challenge.ladder, challenge.opponent)
        except LadderRefused as exc:
            rejected = pb.LadderRejected(
                status=status_for(exc.reason, exc.message),
                ladder=challenge.ladder,
                challenge_id=challenge.challenge_id,
            )
            session.send(pb.PlayResponse(ladder_rejected=rejected))

    def _enter(self, session: BotSession, request: pb.EnterEvent) -> None:
        try:
            try:
                spec = entry_spec(request)
            except (OptionsError, ValueError) as exc:
                raise EventRefused(reasons.BAD_REQUEST, f"EnterEvent.spec: {exc}") from None
            found = self.arbiter.enter_event(session, request.event, spec)
        except EventRefused as exc:
            rejected = pb.EventRejected(status=status_for(exc.reason, exc.message), event=request.event)
            session.send(pb.PlayResponse(event_rejected=rejected))
            return
        if isinstance(found, Entered):
            session.send(pb.PlayResponse(event_entered=event_entered(found)))
        else:
            session.send(pb.PlayResponse(event_ended=event_ended(found)))

    def _withdraw(self, session: BotSession, request: pb.WithdrawEvent) -> None:
        try:
            removed = self.arbiter.withdraw_event(session, request.event)
        except EventRefused as exc:
            rejected = pb.EventRejected(status=status_for(exc.reason, exc.message), event=request.event)
            session.send(pb.PlayResponse(event_rejected=rejected))
            return
        session.send(pb.PlayResponse(event_withdrawn=pb.EventWithdrawn(event=request.event, removed=removed)))
