"""Reproduce (or not) a failing write when many bidirectional streams share a few channels.

    python bench/streams.py [--server echo|arbiter] [--streams 2000] [--channels 8]
                            [--messages 20] [--real-status]

Opens ``--streams`` bidirectional streams from this one process over ``--channels`` client
channels (0: one channel, so one TCP connection, per stream) and has each stream write its first
message straight away, then trade ``--messages`` messages with the server. It prints how many
streams failed and with which status.

``--server echo`` is a bare grpc.aio server in another process (generic bytes handler, no option
set, none of the arbiter's code) that echoes each message back; ``--server arbiter`` is
``arbiter serve`` with the streams as instant random bots (Torrent 5, one game per pair).

gRPC's asyncio client turns a write that fails because the call has already ended in gRPC's core
into ``INTERNAL "Internal error from Core"`` and drops the status the core has for the call
(grpc/grpc issue 36066). ``--real-status`` replaces that handling, in this process only, by a
wait for the call's own status, so that the cause is printed instead.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import random
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

import grpc
from _common import convert, free_port, instant_action, pb, served_process, wait_ready
from arbiter_wire.v1 import bot_service_pb2_grpc as pb_grpc
from grpc._cython import cygrpc
from grpc.aio import _call

METHOD = "/repro.Echo/Chat"


# --- the echo server (its own process) ---------------------------------------------------------
async def serve_echo(port: int, pending: int) -> None:
    counts: collections.Counter[str] = collections.Counter()

    async def chat(requests: Any, context: Any) -> Any:
        counts["started"] += 1
        try:
            async for message in requests:
                yield message
        except BaseException as exc:
            counts[type(exc).__name__] += 1
            raise
        counts["finished"] += 1

    handler = grpc.method_handlers_generic_handler(
        "repro.Echo", {"Chat": grpc.stream_stream_rpc_method_handler(chat)}
    )
    options = []
    if pending:
        options = [("grpc.server.max_pending_requests", pending)]
        options += [("grpc.server.max_pending_requests_hard_limit", 3 * pending)]
    server = grpc.aio.server(options=options)
    server.add_generic_rpc_handlers((handler,))
    server.add_insecure_port(f"127.0.0.1:{port}")
    await server.start()
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    await stop.wait()
    print(f"echo server: {dict(counts)}", flush=True)
    await server.stop(None)


# --- the clients ----------------------------------------------------------------------------------
def report_real_status() -> None:
    """A failed write waits for the call's status from the core instead of inventing INTERNAL."""

    async def _write(self: Any, request: Any) -> None:
        if self.done():
            raise asyncio.InvalidStateError(_call._RPC_ALREADY_FINISHED_DETAILS)
        if not self._metadata_sent.is_set():
            await self._metadata_sent.wait()
            if self.done():
                await self._raise_for_status()
        serialized = _call._common.serialize(request, self._request_serializer)
        try:
            await self._cython_call.send_serialized_message(serialized)
        except cygrpc.InternalError:
            await asyncio.wait_for(self.code(), 30)
            await self._raise_for_status()

    _call._StreamRequestMixin._write = _write


async def echo_stream(channel: grpc.aio.Channel, messages: int) -> None:
    call = channel.stream_stream(METHOD)()
    for i in range(messages):
        await call.write(b"x" * 64 + str(i).encode())
        await call.read()
    await call.done_writing()
    await call.code()


async def bot_stream(channel: grpc.aio.Channel, token: str, seed: int) -> None:
    rng = random.Random(seed)
    stub = pb_grpc.BotServiceStub(channel)  # type: ignore[no-untyped-call]
    call = stub.Play(metadata=(("authorization", f"Bearer {token}"),))
    await call.write(pb.PlayRequest(seek=pb.Seek(spec=convert.spec_to_pb("torrent", {"size": 5}))))
    async for message in call:
        kind = message.WhichOneof("kind")
        if kind == "turn":
            turn = message.turn
            move = pb.Move(match_id=turn.match_id, turn_id=turn.turn_id, action=instant_action(turn, rng))
            await call.write(pb.PlayRequest(move=move))
        elif kind == "match_ended":
            break
    call.cancel()


async def run(args: argparse.Namespace, address: str) -> collections.Counter[str]:
    options = [("grpc.use_local_subchannel_pool", 1)]
    count = args.channels or args.streams
    channels = [grpc.aio.insecure_channel(address, options=options) for _ in range(count)]
    outcomes: collections.Counter[str] = collections.Counter()

    async def one(i: int) -> None:
        channel = channels[i % count]
        try:
            if args.server == "echo":
                await echo_stream(channel, args.messages)
            else:
                await bot_stream(channel, f"t{i}", i)
            outcomes["ok"] += 1
        except grpc.aio.AioRpcError as exc:
            outcomes[f"{exc.code().name}: {exc.details()}"] += 1

    await asyncio.gather(*(one(i) for i in range(args.streams)))
    for channel in channels:
        await channel.close()
    return outcomes


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--server", choices=["echo", "arbiter"], default="echo")
    parser.add_argument("--streams", type=int, default=2000)
    parser.add_argument("--channels", type=int, default=8, help="client channels (0: one per stream)")
    parser.add_argument("--messages", type=int, default=20, help="messages per stream (echo)")
    parser.add_argument("--real-status", action="store_true", help="report the status gRPC hides")
    parser.add_argument(
        "--max-pending",
        type=int,
        default=0,
        help="echo server: grpc.server.max_pending_requests (hard limit 3x; 0: gRPC's 1000 and 3000)",
    )
    parser.add_argument("--serve-echo", type=int, metavar="PORT", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_echo:
        asyncio.run(serve_echo(args.serve_echo, args.max_pending))
        return
    if args.real_status:
        report_real_status()
    started = time.perf_counter()
    if args.server == "echo":
        port = free_port()
        server = subprocess.Popen(
            [
                sys.executable,
                str(Path(__file__).resolve()),
                "--serve-echo",
                str(port),
                "--max-pending",
                str(args.max_pending),
            ]
        )
        try:
            address = f"127.0.0.1:{port}"
            asyncio.run(wait_ready(address, 60))
            outcomes = asyncio.run(run(args, address))
        finally:
            server.terminate()
            server.wait(30)
    else:
        with tempfile.TemporaryDirectory() as tmp:
            tokens = Path(tmp) / "tokens"
            tokens.write_text("".join(f"bot{i}=t{i}\n" for i in range(args.streams)))
            metrics = f"127.0.0.1:{free_port()}"
            serve = ["--tokens-file", str(tokens), "--base", "0", "--per-decision", "10"]
            with served_process(*serve, "--metrics", metrics) as served:
                outcomes = asyncio.run(run(args, served.address))
                page = urllib.request.urlopen(f"http://{metrics}/metrics", timeout=30).read().decode()
                calls = [line for line in page.splitlines() if line.startswith("arbiter_rpcs_")]
                print("arbiter:", "; ".join(c for c in calls if "Play" in c and "_total" in c))
    print(
        f"{args.streams} streams over {args.channels or args.streams} channels ({args.server}): "
        f"{dict(outcomes)} in {time.perf_counter() - started:.1f} s"
    )
    if outcomes["ok"] != args.streams:
        sys.exit(1)


if __name__ == "__main__":
    main()
