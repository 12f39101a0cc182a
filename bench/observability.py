"""What the Prometheus metrics cost a move: the same games with the metrics listener on the event
bus and without it, alternating in one run, plus the listener's own time per event.

    python bench/observability.py [--games N] [--rounds R]

Two instant bots play Torrent-7 in this process (no store). Each round plays N games with the
metrics listener subscribed (as every arbiter runs) and N games with it taken off the bus, in
alternating order; it prints the wall time per move and the charged time per move (median, p99)
of each, then the listener's time per ActionApplied event (timed over 100,000 calls). The RPC
interceptor is left on in both: it runs once per call, not per move.
"""

from __future__ import annotations

import argparse
import asyncio
import time
import timeit

import grpc
from _common import instant_bot, median, percentile
from arbiter.logging_setup import configure_logging
from arbiter.match.events import ActionApplied, MatchEnded, MatchEvent
from arbiter.metrics import KINDS
from arbiter.node import Arbiter, ArbiterConfig
from arbiter.sessions.auth import BotDirectory
from arbiter.transport.server import create_server
from arbiter_games.timecontrol import TimeControl
from arbiter_wire import convert


def detach(arbiter: Arbiter) -> None:
    for listeners in arbiter.bus.by_kind.values():
        if arbiter.metrics.listener in listeners:
            listeners.remove(arbiter.metrics.listener)


def attach(arbiter: Arbiter) -> None:
    for kind in KINDS:
        listeners = arbiter.bus.by_kind[kind]
        if arbiter.metrics.listener not in listeners:
            listeners.append(arbiter.metrics.listener)


async def main(games: int, rounds: int) -> None:
    bots = BotDirectory()
    bots.add("a", "ta")
    bots.add("b", "tb")
    ended: list[MatchEnded] = []
    applied: list[ActionApplied] = []

    def collect(event: MatchEvent) -> None:
        if isinstance(event, MatchEnded):
            ended.append(event)
        elif isinstance(event, ActionApplied) and not applied:
            applied.append(event)

    config = ArbiterConfig(bots=bots, default_control=TimeControl(base=600.0))
    arbiter = Arbiter(config, listeners=[collect])
    server = await create_server(config, arbiter=arbiter)
    spec = convert.spec_to_pb("torrent", {"size": 7})
    results: dict[str, dict[str, list[float]]] = {
        name: {"charged": [], "wall": [], "moves": []} for name in ("with metrics", "without")
    }
    async with grpc.aio.insecure_channel(server.address) as channel:
        for round_ in range(rounds):
            order = ("with metrics", "without") if round_ % 2 == 0 else ("without", "with metrics")
            for name in order:
                (attach if name == "with metrics" else detach)(arbiter)
                before = len(ended)
                started = time.perf_counter()
                await asyncio.gather(
                    instant_bot(channel, "ta", spec, games, 1), instant_bot(channel, "tb", spec, games, 2)
                )
                wall = time.perf_counter() - started
                batch = [
                    a["charged"]
                    for m in ended[before:]
                    for a in m.record["actions"]
                    if a["charged"] is not None
                ]
                results[name]["charged"] += batch
                results[name]["wall"].append(wall)
                results[name]["moves"].append(len(batch))
    attach(arbiter)
    await server.stop(0.1)
    for name, figures in results.items():
        moves = sum(figures["moves"])
        charged = figures["charged"]
        print(
            f"{name:>12}: {moves} moves, wall {sum(figures['wall']) / moves * 1e6:.0f} us per move, "
            f"charged median {median(charged) * 1e6:.0f} us, p99 {percentile(charged, 99) * 1e6:.0f} us"
        )
    event = applied[0]
    calls = 100_000
    seconds = timeit.timeit(lambda: arbiter.metrics.listener(event), number=calls)
    print(f"metrics listener: {seconds / calls * 1e6:.2f} us per ActionApplied event")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=2, help="games per condition per round")
    parser.add_argument("--rounds", type=int, default=6, help="rounds (each plays both conditions)")
    args = parser.parse_args()
    configure_logging("warning")
    asyncio.run(main(args.games, args.rounds))
