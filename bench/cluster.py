"""The same bot load on a cluster of 1, 2 and 3 nodes on this machine, in one run.

    python bench/cluster.py [--nodes 1,2,3] [--bots 24] [--ladders 3] [--seconds 40] [--rounds 1]

For each node count (in turn, ``--rounds`` times, alternating, since the machine's load varies): a
fresh database on a throwaway PostgreSQL (tests/postgres.py), that many `arbiter serve
--advertise` nodes, and ``--bots`` SDK random bots (one client process) spread over ``--ladders``
Torrent-5 ladders, the first join of each ladder made through a different node so that the
ladders spread over the nodes. After a warm-up, it measures for ``--seconds`` from the store:
matches finished per minute, moves written per second, and the p99 of the time charged per move
(the moves of the matches that started and ended in the window). See docs/benchmarks.md#cluster.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import ROOT, free_port, percentile

ENV = dict(os.environ, PYTHONPATH=os.pathsep.join(str(ROOT / d) for d in ("server", "clients/python", ".")))
WARM_UP = 8.0


# --- the client process ------------------------------------------------------------------------
async def clients(plan: list[tuple[str, str, str]], seconds: float) -> None:
    """``plan``: (seeds, token, ladder) per bot; the first bot of each ladder joins first."""
    from arbiter.logging_setup import configure_logging
    from arbiter_bot.client import Backoff, run_bot
    from arbiter_bot.examples.random_bot import RandomBot

    configure_logging("error")
    backoff = Backoff(initial=0.1, maximum=1.0)

    def bot(i: int, seeds: str, token: str, ladder: str) -> Any:
        return run_bot(RandomBot(i), seeds, token, ("torrent", {"size": 5}), ladder=ladder, backoff=backoff)

    first: dict[str, int] = {}
    for i, (_, _, ladder) in enumerate(plan):
        first.setdefault(ladder, i)
    tasks = []
    for i in first.values():
        tasks.append(asyncio.create_task(bot(i, *plan[i])))
        await asyncio.sleep(1.0)  # its join claims the ladder on its node
    tasks += [asyncio.create_task(bot(i, *entry)) for i, entry in enumerate(plan) if i not in first.values()]
    await asyncio.sleep(seconds)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


# --- the driver --------------------------------------------------------------------------------
def snapshot(url: str) -> dict[str, Any]:
    import psycopg

    with psycopg.connect(url) as db:
        finished = db.execute("SELECT count(*) FROM matches WHERE status = 'finished'").fetchone()
        moves = db.execute("SELECT count(*) FROM moves").fetchone()
        epoch = db.execute("SELECT extract(epoch FROM clock_timestamp())").fetchone()
    assert finished and moves and epoch
    return {"finished": int(finished[0]), "moves": int(moves[0]), "at": float(epoch[0])}


def charged_between(url: str, start: float, end: float) -> list[float]:
    import psycopg

    query = (
        "SELECT mv.charged FROM moves mv JOIN matches m ON m.id = mv.match_id WHERE m.status = 'finished'"
        " AND m.started_at >= to_timestamp(%s) AND m.ended_at <= to_timestamp(%s) AND mv.charged IS NOT NULL"
    )
    with psycopg.connect(url) as db:
        return [float(row[0]) for row in db.execute(query, (start, end)).fetchall()]


def hosts(url: str) -> dict[str, int]:
    import psycopg

    with psycopg.connect(url) as db:
        return {str(r[0]): int(r[1]) for r in db.execute("SELECT ladder, epoch FROM ladder_hosts").fetchall()}


def one_run(cluster: Any, nodes: int, bots: int, ladders: int, seconds: float, work: Path) -> dict[str, Any]:
    from arbiter.ladder.model import LadderConfig
    from arbiter.store import SqlStore
    from arbiter_games.timecontrol import TimeControl

    name = f"bench_{nodes}_{int(time.time() * 1000) % 10**9}"
    url = cluster.new_database(name)
    store = SqlStore(url)
    store.upgrade()
    names = [f"l{k}" for k in range(ladders)]
    for ladder in names:
        store.add_ladder(LadderConfig(ladder, "torrent", {"size": 5}, TimeControl(base=60.0, increment=1.0)))
    tokens = [store.add_bot(f"bot{i:02d}", f"owner {i}") for i in range(bots)]
    store.close()
    ports = [free_port() for _ in range(nodes)]
    addresses = [f"127.0.0.1:{port}" for port in ports]
    servers = []
    for port in ports:
        log = work / f"{name}-{port}.log"
        command = [sys.executable, "-m", "arbiter.cli", "serve", "--database", url, "--port", str(port)]
        command += [
            "--advertise",
            f"127.0.0.1:{port}",
            "--records",
            str(work / "records"),
            "--log-level",
            "warning",
        ]
        with open(log, "ab") as out:
            servers.append((subprocess.Popen(command, env=ENV, stdout=out, stderr=subprocess.STDOUT), log))
    deadline = time.monotonic() + 300
    for _, log in servers:
        while "listening on" not in log.read_text(errors="replace"):
            if time.monotonic() > deadline:
                raise SystemExit(f"a node did not start: {log}")
            time.sleep(0.1)
    plan = []
    for i, token in enumerate(tokens):
        k = i % ladders
        first = k % nodes
        plan.append((",".join(addresses[first:] + addresses[:first]), token, names[k]))
    plan_file = work / f"{name}.plan"
    plan_file.write_text("\n".join("\t".join(entry) for entry in plan))
    total = WARM_UP + seconds + 2.0
    client = subprocess.Popen([sys.executable, __file__, "_clients", str(plan_file), str(total)], env=ENV)
    time.sleep(WARM_UP)
    before = snapshot(url)
    time.sleep(seconds)
    after = snapshot(url)
    spread = sorted(hosts(url).values())
    client.wait(total + 60)
    for server, _ in servers:
        server.send_signal(signal.SIGTERM)
    for server, _ in servers:
        try:
            server.wait(60)
        except subprocess.TimeoutExpired:
            server.kill()
    window = after["at"] - before["at"]
    charged = charged_between(url, before["at"], after["at"])
    return {
        "matches_per_minute": (after["finished"] - before["finished"]) / window * 60,
        "moves_per_second": (after["moves"] - before["moves"]) / window,
        "p99_ms": percentile(charged, 99) * 1e3 if charged else float("nan"),
        "ladder_hosts": len(set(spread)),
    }


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "_clients":
        lines = Path(sys.argv[2]).read_text().splitlines()
        plan = [tuple(line.split("\t")) for line in lines]
        asyncio.run(clients([(a, b, c) for a, b, c in plan], float(sys.argv[3])))
        return
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--nodes", default="1,2,3", help="node counts to compare, e.g. 1,2,3 or 2")
    parser.add_argument("--bots", type=int, default=24)
    parser.add_argument("--ladders", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=40.0)
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    counts = [int(part) for part in args.nodes.split(",")]
    print(
        f"{args.bots} SDK random bots (one client process) on {args.ladders} Torrent-5 ladders,"
        f" {args.seconds:g} s measured per run, {os.cpu_count()} CPUs"
    )
    sys.path.insert(0, str(ROOT))
    from tests.postgres import Cluster

    cluster = Cluster()
    cluster.start()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for round_ in range(args.rounds):
                for nodes in counts if round_ % 2 == 0 else list(reversed(counts)):
                    figures = one_run(cluster, nodes, args.bots, args.ladders, args.seconds, Path(tmp))
                    print(
                        f"{nodes} node{'s' if nodes > 1 else ' '} (ladders on {figures['ladder_hosts']}):"
                        f" {figures['matches_per_minute']:7.0f} matches/min"
                        f" {figures['moves_per_second']:7.0f} moves/s"
                        f"   p99 charged {figures['p99_ms']:7.1f} ms",
                        flush=True,
                    )
    finally:
        cluster.stop()


if __name__ == "__main__":
    main()
