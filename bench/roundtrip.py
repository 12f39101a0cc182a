"""Move round trip with two instant bots, beside a bare grpc.aio bidirectional echo.

    python bench/roundtrip.py [--games N] [--rounds R]

Prints, for Torrent-7: the time the arbiter charged per move (turn sent -> answer received,
on its monotonic clock) as median and p99, the wall time per move for the whole cycle (also the
arbiter's own work between moves: rules, observation, conversion), and the same median/p99 for a
bare bidi echo that sends a real mid-game Move and answers a real mid-game Turn (protobuf parsed
on both sides). Everything runs in this one process on one event loop; R rounds alternate N
arbiter games with as many echo round trips as those games had moves. Also the process's CPU
time (user + system, all threads) per move and per echo round trip: on a shared machine it moves
much less than the wall-clock figures.
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import time
from typing import Any

import grpc
from _common import instant_bot, median, percentile
from arbiter.logging_setup import configure_logging
from arbiter.match.events import MatchEnded, MatchEvent
from arbiter.node import Arbiter, ArbiterConfig
from arbiter.sessions.auth import BotDirectory
from arbiter.transport.server import create_server
from arbiter_games.timecontrol import TimeControl
from arbiter_wire import convert
from arbiter_wire.v1 import bot_service_pb2 as pb

ECHO_METHOD = "/bench.Echo/Bidi"


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


class EchoServer:
    """A bare bidi stream echo with the arbiter's own message types: the client sends ``request``
    (a Move), the server parses it and answers ``response`` (a Turn), which the client parses."""

    def __init__(self, response: pb.PlayResponse) -> None:
        self.response = response

    async def start(self) -> None:
        response = self.response

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
        self.server = grpc.aio.server()
        self.server.add_generic_rpc_handlers((handler,))
        port = self.server.add_insecure_port("127.0.0.1:0")
        await self.server.start()
        self.channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
        self.call = self.channel.stream_stream(
            ECHO_METHOD,
            request_serializer=pb.PlayRequest.SerializeToString,
            response_deserializer=pb.PlayResponse.FromString,
        )()

    async def round_trips(self, request: pb.PlayRequest, count: int) -> list[float]:
        times = []
        for _ in range(count):
            started = time.perf_counter()
            await self.call.write(request)
            await self.call.read()
            times.append(time.perf_counter() - started)
        return times

    async def stop(self) -> None:
        await self.call.done_writing()
        await self.channel.close()
        await self.server.stop(None)


def typical_messages(ended: MatchEnded) -> tuple[pb.PlayResponse, pb.PlayRequest]:
    """A mid-game Turn and Move of a finished Torrent-7 match."""
    rules = ended.facts.game
    state = rules.new_game({"size": 7})
    actions = ended.record["actions"]
    for entry in actions[: len(actions) // 2]:
        state = rules.apply(state, rules.parse_action(entry["action"]))
    legal = rules.legal_actions(state)
    turn = pb.PlayResponse(
        turn=pb.Turn(
            match_id=ended.facts.match_id,
            turn_id=64,
            observation=convert.observation_to_pb(rules.observe(state, 1)),
            legal=convert.legal_to_pb("torrent", legal),
        )
    )
    action = convert.action_to_pb(legal[0])
    move = pb.PlayRequest(move=pb.Move(match_id=ended.facts.match_id, turn_id=64, action=action))
    return turn, move


async def main(games: int, rounds: int) -> None:
    bots = BotDirectory()
    bots.add("a", "ta")
    bots.add("b", "tb")
    ended: list[MatchEnded] = []

    def collect(event: MatchEvent) -> None:
        if isinstance(event, MatchEnded):
            ended.append(event)

    config = ArbiterConfig(bots=bots, default_control=TimeControl(base=600.0))
    arbiter = Arbiter(config, listeners=[collect])
    server = await create_server(config, arbiter=arbiter)
    spec = convert.spec_to_pb("torrent", {"size": 7})
    charged: list[float] = []
    echo: list[float] = []
    wall = 0.0
    arbiter_cpu = 0.0
    echo_cpu = 0.0
    moves = 0
    echo_server: EchoServer | None = None
    move: pb.PlayRequest | None = None
    turn: pb.PlayResponse | None = None
    async with grpc.aio.insecure_channel(server.address) as channel:
        # Rounds alternate arbiter games and echo batches of as many round trips, so that the
        # machine's drifting speed weighs on both alike.
        for _ in range(rounds):
            before = len(ended)
            started = time.perf_counter()
            cpu_started = cpu_seconds()
            await asyncio.gather(
                instant_bot(channel, "ta", spec, games, 1), instant_bot(channel, "tb", spec, games, 2)
            )
            wall += time.perf_counter() - started
            arbiter_cpu += cpu_seconds() - cpu_started
            records = [m.record for m in ended[before:]]
            batch = [a["charged"] for r in records for a in r["actions"] if a["charged"] is not None]
            charged += batch
            moves += len(batch)
            if echo_server is None:
                turn, move = typical_messages(ended[-1])
                echo_server = EchoServer(turn)
                await echo_server.start()
            assert move is not None
            cpu_started = cpu_seconds()
            echo += await echo_server.round_trips(move, len(batch))
            echo_cpu += cpu_seconds() - cpu_started
    assert echo_server is not None and turn is not None and move is not None
    await echo_server.stop()
    await server.stop(0.1)
    print(
        f"moves: {moves} in {games * rounds} torrent-7 games; "
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
    print(
        f"CPU per move (whole cycle): {arbiter_cpu / moves * 1e6:.0f} us; "
        f"per echo round trip: {echo_cpu / len(echo) * 1e6:.0f} us; "
        f"ratio {arbiter_cpu / moves / (echo_cpu / len(echo)):.2f}x"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=2, help="games per round")
    parser.add_argument("--rounds", type=int, default=10, help="rounds of games, each followed by echoes")
    args = parser.parse_args()
    configure_logging("warning")
    asyncio.run(main(args.games, args.rounds))
