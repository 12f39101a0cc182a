"""An arbiter on a loop of its own thread, and blocking raw clients: for hypothesis, whose rules
are plain functions (its state machines and ``@given`` do not run coroutines)."""

from __future__ import annotations

import asyncio
import queue
import threading
from collections.abc import Coroutine, Iterable, Iterator, Sequence
from concurrent.futures import Future
from typing import Any, TypeVar

import grpc
from arbiter.ladder.model import LadderConfig
from arbiter.transport.server import RunningServer
from arbiter_games.policy import MatchPolicy
from arbiter_games.timecontrol import TimeControl
from arbiter_wire.v1 import bot_service_pb2 as pb
from arbiter_wire.v1 import bot_service_pb2_grpc as pb_grpc
from arbiter_wire.v1 import common_pb2 as cpb

from .live import live_server, token_of

T = TypeVar("T")


class ServerThread:
    """``live_server`` on an event loop in a daemon thread; ``call`` runs code on that loop."""

    def __init__(
        self,
        names: Iterable[str],
        control: TimeControl | None = None,
        policy: MatchPolicy | None = None,
        ladders: Sequence[LadderConfig] = (),
    ) -> None:
        self.loop = asyncio.new_event_loop()
        self._ready: Future[RunningServer] = Future()
        self._stop: asyncio.Event | None = None
        self._names = list(names)
        self._control, self._policy, self._ladders = control, policy, ladders
        self.thread = threading.Thread(target=self.loop.run_until_complete, args=(self._main(),), daemon=True)
        self.thread.start()
        self.server = self._ready.result(timeout=60)
        self.address = self.server.address

    async def _main(self) -> None:
        self._stop = asyncio.Event()
        try:
            async with live_server(self._names, self._control, self._policy, self._ladders) as server:
                self._ready.set_result(server)
                await self._stop.wait()
        except BaseException as exc:  # handed to the starting thread, then raised again
            if not self._ready.done():
                self._ready.set_exception(exc)
            raise

    def call(self, coroutine: Coroutine[Any, Any, T], timeout: float = 30.0) -> T:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    def stop(self) -> None:
        async def stop() -> None:
            assert self._stop is not None
            self._stop.set()

        self.call(stop())
        self.thread.join(timeout=30)
        self.loop.close()


class Ended:
    """The end of a call: its status code and the ErrorInfo reason of its rich status, if any."""

    def __init__(self, error: grpc.RpcError | None) -> None:
        self.error = error
        self.code = error.code() if error is not None else grpc.StatusCode.OK
        self.details = error.details() if error is not None else ""

    def __repr__(self) -> str:
        return f"Ended({self.code}, {self.details!r})"


def _serialize(request: pb.PlayRequest | bytes) -> bytes:
    return request if isinstance(request, bytes) else request.SerializeToString()


class SyncBot:
    """One Play call of a blocking gRPC client; a thread moves what arrives to ``inbox``."""

    def __init__(
        self,
        address: str,
        name: str | None,
        token: str | None = None,
        raw: bool = False,
        channel: grpc.Channel | None = None,
    ) -> None:
        """``raw``: requests are written as given (bytes are sent as they are, unserialized).
        ``channel``: a channel to open the call on (closed with the bot), else a new one."""
        self.name = name
        self.channel = channel if channel is not None else grpc.insecure_channel(address)
        token = token if token is not None else (token_of(name) if name is not None else None)
        metadata = (("authorization", f"Bearer {token}"),) if token is not None else ()
        self.requests: queue.Queue[pb.PlayRequest | None] = queue.Queue()
        if raw:
            play = self.channel.stream_stream(
                "/arbiter.v1.BotService/Play",
                request_serializer=_serialize,
                response_deserializer=pb.PlayResponse.FromString,
            )
        else:
            play = pb_grpc.BotServiceStub(self.channel).Play
        self.call = play(self._requests(), metadata=metadata)
        self.inbox: queue.Queue[pb.PlayResponse | Ended] = queue.Queue()
        self.ended: Ended | None = None
        self.barriers = 0
        self.thread = threading.Thread(target=self._pump, daemon=True)
        self.thread.start()

    def _requests(self) -> Iterator[pb.PlayRequest]:
        while True:
            request = self.requests.get()
            if request is None:
                return
            yield request

    def _pump(self) -> None:
        try:
            for message in self.call:
                self.inbox.put(message)
        except grpc.RpcError as exc:
            self.inbox.put(Ended(exc))
            return
        self.inbox.put(Ended(None))

    def send(self, request: pb.PlayRequest) -> None:
        self.requests.put(request)

    def send_bytes(self, data: bytes) -> None:
        """Bytes as they are, for a request (only on a ``raw`` bot)."""
        self.requests.put(data)  # type: ignore[arg-type]

    def next(self, timeout: float = 10.0) -> pb.PlayResponse | Ended:
        item = self.inbox.get(timeout=timeout)
        if isinstance(item, Ended):
            self.ended = item
        return item

    def barrier(self, timeout: float = 10.0) -> list[pb.PlayResponse]:
        """Everything the arbiter sent in answer to the requests so far.

        Sends a seek for no game (which the arbiter refuses with ``SeekRejected{BAD_REQUEST}``,
        echoing its ``seek_id``) and reads up to that refusal: the arbiter answers one stream's
        requests in order, so what came before it is all the answers to what was sent before it.
        Raises EOFError if the call ends first (with the messages read in ``self.before_end``).
        """
        self.barriers += 1
        mark = f"barrier-{self.barriers}"
        self.send(pb.PlayRequest(seek=pb.Seek(spec=cpb.GameSpec(), seek_id=mark)))
        got: list[pb.PlayResponse] = []
        while True:
            item = self.next(timeout)
            if isinstance(item, Ended):
                self.before_end = got
                raise EOFError(f"the call ended: {item}")
            if item.WhichOneof("kind") == "seek_rejected" and item.seek_rejected.seek_id == mark:
                return got
            got.append(item)

    def close(self, keep_channel: bool = False) -> None:
        self.call.cancel()
        self.requests.put(None)
        if not keep_channel:
            self.channel.close()
