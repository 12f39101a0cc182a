"""Move round trip with two instant bots, beside a bare grpc.aio bidirectional echo.

    python bench/roundtrip.py [--games N]

Prints, for Torrent-7: the time the arbiter charged per move (turn sent -> answer received,
on its monotonic clock) as median and p99, the wall time per move for the whole cycle (also the
arbiter's own work between moves: rules, observation, conversion), and the same median/p99 for a
bare bidi echo that sends a real mid-game Move and answers a real mid-game Turn (protobuf parsed
on both sides). Everything runs in this one process on one event loop.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from typing import Any

import grpc
from _common import instant_bot, median, percentile
from arbiter.match.timecontrol import TimeControl
from arbiter.protocol import convert
from arbiter.service.arbiter_app import Arbiter, ArbiterConfig
from arbiter.service.auth import BotDirectory
from arbiter.service.server import create_server
from arbiter.v1 import bot_service_pb2 as pb

ECHO_METHOD = "/bench.Echo/Bidi"


async def echo_round_trips(request: pb.PlayRequest, response: pb.PlayResponse, count: int) -> list[float]:
    """A bidi stream echo with the arbiter's own message types: the client sends ``request`` (a
    Move), the server parses it and answers ``response`` (a Turn), which the client parses."""

    async def bidi(requests: Any, context: Any) -> Any:
        async for _ in requests:
            yield response

    handler = grpc.method_handlers_generic_handler(
        "bench.Echo",
        {
            "Bidi": grpc.stream_stream_rpc_method_handler(
                bidi,
                request_deserializer=pb.PlayRequest.FromString,
                response_serializer=pb.PlayResponse.SerializeToString,
            )
        },
    )
    server = grpc.aio.server()
    server.add_generic_rpc_handlers((handler,))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    times = []
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        call = channel.stream_stream(
            ECHO_METHOD,
            request_serializer=pb.PlayRequest.SerializeToString,
            response_deserializer=pb.PlayResponse.FromString,
        )()
        for _ in range(count):
            started = time.perf_counter()
            await call.write(request)
            await call.read()
            times.append(time.perf_counter() - started)
        call.cancel()
    await server.stop(0)
    return times


async def arbiter_round_trips(games: int) -> tuple[list[float], float, int, pb.PlayResponse, pb.PlayRequest]:
    bots = BotDirectory()
    bots.add("a", "ta")
    bots.add("b", "tb")
    ended: list[Any] = []
    config = ArbiterConfig(bots=bots, default_control=TimeControl(base=600.0))
    arbiter = Arbiter(config, on_match_end=ended.append)
    server = await create_server(config, arbiter=arbiter)
    spec = convert.spec_to_pb("torrent", {"size": 7})
    started = time.perf_counter()
    async with grpc.aio.insecure_channel(server.address) as channel:
        await asyncio.gather(
            instant_bot(channel, "ta", spec, games, 1), instant_bot(channel, "tb", spec, games, 2)
        )
    wall = time.perf_counter() - started
    await server.stop(0.1)
    charged = [a["charged"] for m in ended for a in m.actions if a["charged"] is not None]
    # Typical message sizes, for the echo: a mid-game Turn and a Move.
    match = ended[-1]
    rules = match.rules
    state = rules.new_game({"size": 7})
    for entry in match.actions[: len(match.actions) // 2]:
        state = rules.apply(state, rules.parse_action(entry["action"]))
    turn = pb.PlayResponse(
        turn=pb.Turn(
            match_id=match.id,
            turn_id=64,
            observation=convert.observation_to_pb(rules.observe(state, 1)),
            legal=convert.legal_to_pb("torrent", rules.legal_actions(state)),
        )
    )
    move = pb.PlayRequest(
        move=pb.Move(
            match_id=match.id, turn_id=64, action=convert.action_to_pb(rules.legal_actions(state)[0])
        )
    )
    return charged, wall, len(charged), turn, move


async def main(games: int) -> None:
    charged, wall, moves, turn, move = await arbiter_round_trips(games)
    echo = await echo_round_trips(move, turn, max(2000, moves))
    print(
        f"moves: {moves} in {games} torrent-7 games; "
        f"typical Turn {turn.ByteSize()} B, Move {move.ByteSize()} B"
    )
    print(
        f"arbiter charged per move: median {median(charged) * 1e6:.0f} us, "
        f"p99 {percentile(charged, 99) * 1e6:.0f} us"
    )
    print(f"arbiter wall time per move (whole cycle): {wall / moves * 1e6:.0f} us")
    print(
        f"bare bidi echo round trip: median {median(echo) * 1e6:.0f} us, "
        f"p99 {percentile(echo, 99) * 1e6:.0f} us"
    )
    print(f"ratio charged/echo (median): {median(charged) / median(echo):.2f}x")
    print(f"ratio whole cycle/echo (median): {wall / moves / median(echo):.2f}x")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=10)
    args = parser.parse_args()
    asyncio.run(main(args.games))
