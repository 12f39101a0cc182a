"""A ladder under load, with and without the store, in the same run.

    python bench/ladder.py --database sqlite|postgresql [--bots 40] [--clients 2] [--seconds 120]

Runs the same load twice: once with the durable store (SQLite in a temporary file, or a throwaway
PostgreSQL cluster started from the machine's binaries) and once with the ladder in memory (no
store). Each time an arbiter runs in its own process and ``--clients`` client processes share
``--bots`` SDK random bots that join one Torrent-5 ladder (one match at a time each) for
``--seconds``. Prints, for both: matches per minute, moves per second, and the median and p99 of
the time the arbiter charged per move (turn handed to the transport -> answer received), and the
ratio of the two p99s (target: the store costs at most 1.2x).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import ROOT, free_port, median, percentile

LADDER = "bench"
ENV = dict(os.environ, PYTHONPATH=os.pathsep.join(str(ROOT / d) for d in ("server", "clients/python", ".")))


# --- the arbiter's process ---------------------------------------------------------------------
async def serve(url: str | None, port: int, tokens_file: Path, seconds: float) -> dict[str, Any]:
    from arbiter.ladder.model import LadderConfig
    from arbiter.logging_setup import configure_logging
    from arbiter.match.events import ActionApplied, MatchEnded, MatchEvent
    from arbiter.node import Arbiter, ArbiterConfig
    from arbiter.sessions.auth import BotDirectory
    from arbiter.store import SqlStore
    from arbiter.transport.server import create_server
    from arbiter_games.timecontrol import TimeControl

    configure_logging("error")
    charged: list[float] = []
    ended = 0

    def follow(event: MatchEvent) -> None:
        nonlocal ended
        if isinstance(event, ActionApplied) and event.charged is not None:
            charged.append(event.charged)
        elif isinstance(event, MatchEnded):
            ended += 1

    bots = BotDirectory()
    bots.load_file(tokens_file)
    config = ArbiterConfig(bots=bots)
    ladder = LadderConfig(LADDER, "torrent", {"size": 5}, TimeControl(base=60.0, increment=1.0))
    store = SqlStore(url) if url else None
    if store is not None:
        arbiter = Arbiter(config, listeners=[follow], store=store)
    else:
        arbiter = Arbiter(config, listeners=[follow], ladders=[ladder])
    server = await create_server(config, port=port, arbiter=arbiter)
    await asyncio.sleep(seconds)
    first_ended = ended
    await server.stop(2.0)
    if store is not None:
        store.close()
    return {"ended": first_ended, "charged": charged}


# --- a client process --------------------------------------------------------------------------
async def clients(address: str, tokens: list[str], seconds: float) -> None:
    from arbiter.logging_setup import configure_logging
    from arbiter_bot.client import run_bot
    from arbiter_bot.examples.random_bot import RandomBot

    configure_logging("error")
    tasks = [
        asyncio.create_task(run_bot(RandomBot(i), address, token, ("torrent", {"size": 5}), ladder=LADDER))
        for i, token in enumerate(tokens)
    ]
    await asyncio.sleep(seconds)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


# --- the driver --------------------------------------------------------------------------------
def one_run(url: str | None, bots: int, processes: int, seconds: float, work: Path) -> dict[str, Any]:
    """Start the arbiter and the client processes; the arbiter's figures."""
    from arbiter.ladder.model import LadderConfig
    from arbiter.store import SqlStore
    from arbiter_games.timecontrol import TimeControl

    tokens = {f"bot{i:02d}": f"token-{i:02d}-{os.getpid()}" for i in range(bots)}
    tokens_file = work / "tokens.txt"
    tokens_file.write_text("".join(f"{name}={token}\n" for name, token in tokens.items()))
    if url is not None:
        store = SqlStore(url)
        store.upgrade()
        store.add_ladder(LadderConfig(LADDER, "torrent", {"size": 5}, TimeControl(base=60.0, increment=1.0)))
        for name in tokens:  # ratings and pauses refer to registered bots
            store.add_bot(name, f"owner of {name}")
        store.close()
    port = free_port()
    out = work / f"serve-{port}.json"
    server_cmd = [sys.executable, __file__, "_serve", "--port", str(port), "--tokens-file", str(tokens_file)]
    server_cmd += ["--seconds", str(seconds), "--out", str(out)] + (["--url", url] if url else [])
    server = subprocess.Popen(server_cmd, env=ENV)
    time.sleep(2.0)
    names = list(tokens.values())
    shares = [names[i::processes] for i in range(processes)]
    client_cmds = [
        [
            sys.executable,
            __file__,
            "_clients",
            "--address",
            f"127.0.0.1:{port}",
            "--seconds",
            str(seconds - 1),
            "--tokens",
            ",".join(share),
        ]
        for share in shares
    ]
    started = time.monotonic()
    children = [subprocess.Popen(cmd, env=ENV) for cmd in client_cmds]
    for child in children:
        child.wait(seconds + 60)
    server.wait(seconds + 60)
    wall = time.monotonic() - started
    figures = json.loads(out.read_text())
    charged = figures["charged"]
    return {
        "matches_per_minute": figures["ended"] / seconds * 60,
        "moves_per_second": len(charged) / seconds,
        "median_ms": median(charged) * 1e3 if charged else float("nan"),
        "p99_ms": percentile(charged, 99) * 1e3 if charged else float("nan"),
        "wall": wall,
    }


def report(label: str, figures: dict[str, Any]) -> None:
    print(
        f"{label:<22} {figures['matches_per_minute']:8.0f} matches/min"
        f" {figures['moves_per_second']:8.0f} moves/s   charged per move:"
        f" median {figures['median_ms']:.2f} ms, p99 {figures['p99_ms']:.2f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command")
    server = sub.add_parser("_serve")
    server.add_argument("--url")
    server.add_argument("--port", type=int, required=True)
    server.add_argument("--tokens-file", type=Path, required=True)
    server.add_argument("--seconds", type=float, required=True)
    server.add_argument("--out", type=Path, required=True)
    client = sub.add_parser("_clients")
    client.add_argument("--address", required=True)
    client.add_argument("--tokens", required=True)
    client.add_argument("--seconds", type=float, required=True)
    parser.add_argument("--database", choices=["sqlite", "postgresql"], default="sqlite")
    parser.add_argument("--bots", type=int, default=40)
    parser.add_argument("--clients", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=120.0)
    args = parser.parse_args()
    if args.command == "_serve":
        figures = asyncio.run(serve(args.url, args.port, args.tokens_file, args.seconds))
        args.out.write_text(json.dumps(figures))
        return
    if args.command == "_clients":
        asyncio.run(clients(args.address, args.tokens.split(","), args.seconds))
        return
    if args.clients < 2 or args.bots < args.clients:
        parser.error("at least two client processes, and at least one bot each")
    print(
        f"{args.bots} SDK random bots in {args.clients} processes, one Torrent-5 ladder,"
        f" {args.seconds:g} s each run"
    )
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        cluster = None
        if args.database == "postgresql":
            sys.path.insert(0, str(ROOT))
            from tests.postgres import Cluster

            cluster = Cluster()
            cluster.start()
            url = cluster.createdb("bench")
        else:
            url = f"sqlite:///{work / 'bench.db'}"
        try:
            with_store = one_run(url, args.bots, args.clients, args.seconds, work)
            without = one_run(None, args.bots, args.clients, args.seconds, work)
        finally:
            if cluster is not None:
                cluster.stop()
    report(f"with the store ({args.database})", with_store)
    report("no store (in memory)", without)
    print(
        f"p99 with the store / p99 without: {with_store['p99_ms'] / without['p99_ms']:.2f}x (target <= 1.2x)"
    )


if __name__ == "__main__":
    main()
