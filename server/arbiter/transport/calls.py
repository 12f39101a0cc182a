"""Calls per address: the cap on the calls one address (an IPv6 /64) holds open at once.

gRPC's core tells Python nothing of a connection until it opens a call, so the cap counts calls;
a connection without a call is closed by the idle time (``security.connections``). The call beyond
the cap ends at once with RESOURCE_EXHAUSTED (reason RESOURCE_EXHAUSTED), before its token or its
requests are looked at.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import grpc
from arbiter_wire import reasons
from arbiter_wire.status import status_for
from grpc_status import rpc_status

from ..security.ratelimit import address_key

Behaviour = Callable[..., Any]

_MAKERS = (
    ("unary_unary", grpc.unary_unary_rpc_method_handler),
    ("unary_stream", grpc.unary_stream_rpc_method_handler),
    ("stream_unary", grpc.stream_unary_rpc_method_handler),
    ("stream_stream", grpc.stream_stream_rpc_method_handler),
)


def wrap_handler(
    handler: grpc.RpcMethodHandler, wrap: Callable[[Behaviour], Behaviour]
) -> grpc.RpcMethodHandler:
    """The same handler with its behaviour (whichever of the four kinds it is) passed through ``wrap``."""
    for kind, make in _MAKERS:
        behaviour = getattr(handler, kind)
        if behaviour is not None:
            return make(
                wrap(behaviour),
                request_deserializer=handler.request_deserializer,
                response_serializer=handler.response_serializer,
            )
    return handler  # pragma: no cover - every handler has one of the four


class CallsPerAddress(grpc.aio.ServerInterceptor):  # type: ignore[misc]
    """Counts the open calls of each address; refuses a call beyond ``cap``."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.open: dict[str, int] = {}

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler:
        handler = await continuation(details)
        return handler if handler is None else wrap_handler(handler, self._capped)

    def _enter(self, context: Any) -> str | None:
        """The call's key once counted, or None when its address is at the cap."""
        key = address_key(context.peer() or "")
        count = self.open.get(key, 0)
        if count >= self.cap:
            return None
        self.open[key] = count + 1
        return key

    def _leave(self, key: str) -> None:
        count = self.open[key] - 1
        if count:
            self.open[key] = count
        else:
            del self.open[key]

    async def _refuse(self, context: Any) -> None:
        key = address_key(context.peer() or "")
        message = f"too many open calls from {key} (at most {self.cap} at once)"
        rich = rpc_status.to_status(status_for(reasons.RESOURCE_EXHAUSTED, message))
        await context.abort(rich.code, rich.details, trailing_metadata=rich.trailing_metadata)

    def _capped(self, behaviour: Behaviour) -> Behaviour:
        if inspect.isasyncgenfunction(behaviour):

            async def streaming(request: Any, context: Any) -> AsyncIterator[Any]:
                key = self._enter(context)
                if key is None:
                    await self._refuse(context)
                    return
                try:
                    async for response in behaviour(request, context):
                        yield response
                finally:
                    self._leave(key)

            return streaming

        async def call(request: Any, context: Any) -> Any:
            key = self._enter(context)
            if key is None:
                await self._refuse(context)
                return None
            try:
                result = behaviour(request, context)
                return await result if inspect.isawaitable(result) else result
            finally:
                self._leave(key)

        return call
