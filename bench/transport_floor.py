"""The transport's floor for bench/concurrency.py: the same bots against a bare relay.

    python bench/transport_floor.py [--matches 200] [--games 2] [--plies 129] [--bot-processes 2]

``bench/concurrency.py`` measures the arbiter with instant bots in separate processes, one
connection per bot. This runs the very same bot processes (its ``--worker`` mode) against a
relay that speaks the bot protocol with no rules, clocks, records or sessions: it pairs seekers
in the order they come, sends the first a Turn, and answers each Move by writing a Turn to the
other bot of the pair, until the pair has played ``--plies`` moves; then both get MatchEnded
(and seek again for their next game). Every Turn is the same real Torrent-7 Turn taken half way
through a random game (serialised once; the turn id and match id are those of the real Turn), so
the bots parse a realistic message and answer with one of its legal points.

Per move the relay does what the arbiter's transport does (one read of a Move, one write of a
Turn on another stream) and nothing else, so its moves per second is the most the arbiter could
reach on this machine with these bots and grpc.aio, and its CPU per move is gRPC's own share of
the arbiter's. It prints the same figures as bench/concurrency.py: moves/s, CPU per move of the
relay's process and of the bot processes.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import random
import resource
import subprocess
import sys
from pathlib import Path
from typing import Any

import grpc
from _common import free_port, pb, raise_file_limit
from arbiter_games import get_game
from arbiter_wire import convert

SERVICE = "arbiter.v1.BotService"


def typical_turn(plies: int = 64, seed: int = 5) -> pb.PlayResponse:
    """The Turn of a Torrent-7 game after ``plies`` random placements."""
    rules = get_game("torrent")
    state = rules.new_game({"size": 7})
    rng = random.Random(seed)
    for _ in range(plies):
        legal = rules.legal_actions(state)
        state = rules.apply(state, legal[int(rng.random() * (len(legal) - 1))])  # never the pass
    seat = rules.to_move(state)
    assert seat is not None
    return pb.PlayResponse(
        turn=pb.Turn(
            match_id="m-floor",
            turn_id=plies + 1,
            observation=convert.observation_to_pb(rules.observe(state, seat)),
            legal=convert.legal_to_pb("torrent", rules.legal_actions(state)),
        )
    )


class Relay:
    """Pairs seekers; relays each Move of a pair as a Turn written to the other bot."""

    def __init__(self, plies: int) -> None:
        self.plies = plies
        self.turn = typical_turn().SerializeToString()
        self.ended = pb.PlayResponse(match_ended=pb.MatchEnded(match_id="m-floor")).SerializeToString()
        self.waiting: collections.deque[Any] = collections.deque()
        self.opponent: dict[Any, Any] = {}
        self.left: dict[Any, list[int]] = {}
        self.moves = 0
        #: Each stream's queue of messages to write: one writer task per stream writes them in
        #: order (gRPC allows one write at a time on a stream), as the arbiter's sessions do.
        self.queues: dict[Any, asyncio.Queue[bytes]] = {}

    async def write(self, context: Any, data: bytes) -> None:
        self.queues[context].put_nowait(data)

    async def play(self, requests: Any, context: Any) -> None:
        queue: asyncio.Queue[bytes] = asyncio.Queue()
        self.queues[context] = queue
        reader = asyncio.create_task(self.read(context))
        try:
            while True:
                await context.write(await queue.get())
        finally:
            reader.cancel()
            del self.queues[context]

    async def read(self, context: Any) -> None:
        while True:
            request = await context.read()
            if request is grpc.aio.EOF:
                return
            kind = request.WhichOneof("kind")
            if kind == "seek":
                await self.seek(context)
            elif kind == "move":
                await self.move(context)

    async def seek(self, context: Any) -> None:
        if not self.waiting:
            self.waiting.append(context)
            return
        first = self.waiting.popleft()
        count = [self.plies]
        self.opponent[first], self.opponent[context] = context, first
        self.left[first] = self.left[context] = count
        await self.write(first, self.turn)

    async def move(self, context: Any) -> None:
        self.moves += 1
        count = self.left[context]
        count[0] -= 1
        other = self.opponent[context]
        if count[0] > 0:
            await self.write(other, self.turn)
            return
        for each in (context, other):
            del self.opponent[each], self.left[each]
            await self.write(each, self.ended)


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


async def serve(port: int, plies: int) -> None:
    """The relay's process: serve until stdin closes, then print its CPU seconds and moves."""
    relay = Relay(plies)
    handler = grpc.method_handlers_generic_handler(
        SERVICE,
        {
            "Play": grpc.stream_stream_rpc_method_handler(
                relay.play,
                request_deserializer=pb.PlayRequest.FromString,
                response_serializer=lambda data: data,  # the Turn is serialised already
            )
        },
    )
    server = grpc.aio.server(options=[("grpc.so_reuseport", 0)])
    server.add_generic_rpc_handlers((handler,))
    server.add_insecure_port(f"127.0.0.1:{port}")
    await server.start()
    print("serving", flush=True)
    loop = asyncio.get_running_loop()
    for _ in range(2):  # asked before the bots start and after they are done
        await loop.run_in_executor(None, sys.stdin.readline)
        print(json.dumps({"cpu": cpu_seconds(), "moves": relay.moves}), flush=True)
    await server.stop(0)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--matches", type=int, default=200)
    parser.add_argument("--games", type=int, default=2, help="games per pair of bots")
    parser.add_argument("--plies", type=int, default=129, help="moves per game (a Torrent-7 game: 129)")
    parser.add_argument("--bot-processes", type=int, default=2, metavar="N")
    parser.add_argument("--serve", type=int, metavar="PORT", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        asyncio.run(serve(args.serve, args.plies))
        return
    raise_file_limit()
    sys.path.insert(0, str(Path(__file__).parent))
    import concurrency  # the same bot processes

    port = free_port()
    relay = subprocess.Popen(
        [sys.executable, __file__, "--serve", str(port), "--plies", str(args.plies)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert relay.stdin is not None and relay.stdout is not None
    try:
        if relay.stdout.readline().strip() != "serving":
            sys.exit("the relay did not start")
        relay.stdin.write("\n")  # the relay's CPU so far (its start-up) is not counted
        relay.stdin.flush()
        before = json.loads(relay.stdout.readline())
        bot_args = argparse.Namespace(
            matches=args.matches, games=args.games, game="torrent", size=7, bot_processes=args.bot_processes
        )
        run = concurrency.run_processes(bot_args, f"127.0.0.1:{port}")
        relay.stdin.write("\n")
        relay.stdin.flush()
        out = json.loads(relay.stdout.readline())
        out["cpu"] -= before["cpu"]
    finally:
        relay.kill()
        relay.wait(30)
    moves, wall = run["moves"], run["wall"]
    print(
        f"{args.matches} pairs x {args.games} games of {args.plies} moves against the bare relay "
        f"({2 * args.matches} bots in {args.bot_processes} processes, one connection each): "
        f"{moves} moves in {wall:.1f} s"
    )
    print(f"moves/s: {moves / wall:.0f}")
    print(f"failed bot calls: {run['errors']} {run['first_errors']}")
    print(
        f"CPU per move: relay {1e6 * out['cpu'] / moves:.0f} us ({out['cpu']:.1f} s), "
        f"bot processes {1e6 * run['cpu'] / moves:.0f} us ({run['cpu']:.1f} s)"
    )
    if run["errors"] or moves != out["moves"]:
        sys.exit("FAILED: a failed bot call, or the relay counted other moves than the bots")


if __name__ == "__main__":
    main()
