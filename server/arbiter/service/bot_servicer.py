"""The thin gRPC servicer: protobuf in, domain calls, statuses out."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any, NoReturn

import grpc
import structlog
from grpc_status import rpc_status

from ..engines import ActionError, OptionsError
from ..protocol import convert
from ..v1 import bot_service_pb2 as pb
from ..v1 import bot_service_pb2_grpc as pb_grpc
from . import errors
from .arbiter_app import Arbiter, BotSession, Closing, Delivery

log = structlog.get_logger("arbiter")


def bearer_token(metadata: Any) -> str | None:
    for key, value in metadata or ():
        if key == "authorization" and isinstance(value, str) and value.startswith("Bearer "):
            return value[len("Bearer ") :].strip()
    return None


async def abort_with(context: grpc.aio.ServicerContext[Any, Any], reason: str, message: str) -> NoReturn:
    rich = rpc_status.to_status(errors.status_for(reason, message))
    await context.abort(rich.code, rich.details, trailing_metadata=rich.trailing_metadata)
    raise AssertionError("abort returned")  # pragma: no cover


class BotServicer(pb_grpc.BotServiceServicer):
    def __init__(self, arbiter: Arbiter) -> None:
        self.arbiter = arbiter

    async def Play(  # noqa: N802 - the RPC's name
        self, request_iterator: AsyncIterator[pb.PlayRequest], context: grpc.aio.ServicerContext[Any, Any]
    ) -> None:
        name = self.arbiter.authenticate(bearer_token(context.invocation_metadata()))
        if name is None:
            await abort_with(
                context, errors.BAD_TOKEN, "missing or wrong token (metadata authorization: Bearer <token>)"
            )
        session = self.arbiter.attach(name)
        reader = asyncio.create_task(self._read(request_iterator, session))
        try:
            while True:
                item = await session.outbox.get()
                if item is None:
                    return
                if isinstance(item, Closing):
                    await abort_with(context, item.reason, item.message)
                if isinstance(item, Delivery):
                    item.on_sent()
                    item = item.message
                await context.write(item)
        finally:
            reader.cancel()
            self.arbiter.detach(session)

    async def _read(self, requests: AsyncIterator[pb.PlayRequest], session: BotSession) -> None:
        try:
            async for request in requests:
                if session.closed:
                    break  # replaced or closing: nothing more from this stream counts
                kind = request.WhichOneof("kind")
                try:
                    if kind == "move":
                        self._move(session, request.move)
                    elif kind == "seek":
                        self._seek(session, request.seek)
                except Exception:  # noqa: BLE001 - one bad request must not end the bot's session
                    log.exception("request_failed", bot=session.bot_name, kind=kind)
        except (asyncio.CancelledError, grpc.aio.AioRpcError):
            pass
        finally:
            session.outbox.put_nowait(None)  # ends the writer

    def _move(self, session: BotSession, move: pb.Move) -> None:
        match = self.arbiter.find_match(session.bot_name, move.match_id)
        action: Any
        if match is None:
            action = None
        else:
            try:
                action = convert.action_from_pb(match.game, move.action)
            except ActionError as exc:
                action = exc
        self.arbiter.move(session, move.match_id, move.turn_id, action)

    def _seek(self, session: BotSession, seek: pb.Seek) -> None:
        try:
            game, options = convert.spec_from_pb(seek.spec)
            control = None
            if seek.HasField("time_control"):
                control = convert.time_control_from_pb(seek.time_control)
            self.arbiter.seek(session, game, options, control, seek.seek_id)
        except (OptionsError, ValueError) as exc:
            status = errors.status_for(errors.BAD_REQUEST, str(exc))
            session.send(pb.PlayResponse(seek_rejected=pb.SeekRejected(status=status, seek_id=seek.seek_id)))
        except errors.Rejection as exc:
            rejected = pb.SeekRejected(status=exc.status(), seek_id=seek.seek_id)
            session.send(pb.PlayResponse(seek_rejected=rejected))
