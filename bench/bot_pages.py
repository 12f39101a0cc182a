"""A bot page and its API answer for a bot with 100,000 matches (issue 18 item 6).

    python bench/bot_pages.py [--database sqlite|postgresql|both] [--matches 100000] [--runs 15]

Fills a fresh store (SQLite in a temporary file, and/or a throwaway PostgreSQL cluster started from
the machine's binaries) with one bot, ``star``, that played ``--matches`` matches against 200
opponents on two ladders with three versions (a few aborted, a few lost by its own fault, the
finished ones rated, each with its rating update, a few still running), written in bulk. Then, in
process (Starlette's test client: no sockets):

- asks for ``/bots/star`` and ``/api/bots/star`` ``--runs`` times each and prints the median and
  the slowest answer, and the median CPU time of this process per call (on a shared machine the
  wall time grows with the load; the CPU time much less);
- asks for each once more under ``tracemalloc`` and prints the peak of memory allocated during the
  call;
- serves the application with uvicorn on a local port and asks for ``/api/bots/star`` from 8
  threads at once: prints the wall time and how much the process's peak RSS grew.

Exits 1 if a median (wall time) is over 100 ms or a peak over 20 MB (the targets of issue 18
item 6). Prints the load average at the end of each database's run.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import statistics
import sys
import tempfile
import threading
import time
import tracemalloc
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / d) for d in ("server", "clients/python", ".")]

from arbiter.ladder.model import LadderConfig  # noqa: E402
from arbiter.store import SqlStore  # noqa: E402
from arbiter.store.schema import Bot, Match, Rating, RatingUpdate  # noqa: E402
from arbiter.web.app import WebServer, create_app  # noqa: E402
from arbiter_games.timecontrol import TimeControl  # noqa: E402
from sqlalchemy import insert  # noqa: E402

STAR = "star"
LADDERS = ("blitz", "rapid")
VERSIONS = ("v1", "v2", "v3")
OPPONENTS = 200
T0 = 1_800_000_000.0
BATCH = 5_000
MEDIAN_MS = 100.0
PEAK_MB = 20.0
CONCURRENT = 8


def fill(store: SqlStore, matches: int, seed: int = 1) -> None:
    """``star``'s matches, written in bulk (no records: no measured answer reads one)."""
    rng = random.Random(seed)
    for name in LADDERS:
        store.add_ladder(LadderConfig(name, "torrent", {"size": 7}, TimeControl(base=60.0, increment=1.0)))
    names = [STAR] + [f"opp-{i:03d}" for i in range(OPPONENTS)]
    bots = [
        {"name": n, "owner": n, "token_hash": f"h{i}", "enabled": True, "created_at": T0}
        for i, n in enumerate(names)
    ]
    rating: dict[tuple[str, str, str], list[float]] = {}  # mu, sigma, games, wins, losses, draws
    with store._engine.begin() as connection:
        connection.execute(insert(Bot), bots)
    rows: list[dict[str, Any]] = []
    updates: list[dict[str, Any]] = []
    running = 5
    for number in range(1, matches + 1):
        ladder = LADDERS[number % 2]
        version = VERSIONS[min(2, 3 * number // (matches + 1))]  # one version after the other
        opponent = names[1 + rng.randrange(OPPONENTS)]
        star_seat = 1 + number % 2
        seats = {star_seat: (STAR, version), 3 - star_seat: (opponent, "v1")}
        now_running = number > matches - running
        aborted = not now_running and rng.random() < 0.03
        faulty = rng.choice((1, 2)) if not aborted and rng.random() < 0.02 else None
        winner = 3 - faulty if faulty else rng.choice((1, 2, 1, 2, None))
        start = T0 + number * 10.0
        row = {
            "id": f"m{number:07d}", "ladder": ladder, "game": "torrent", "options": {"size": 7},
            "seat_1_bot": seats[1][0], "seat_1_version": seats[1][1],
            "seat_2_bot": seats[2][0], "seat_2_version": seats[2][1],
            "seed": "00", "seed_commitment": "", "time_control": {"base": 60.0, "increment": 1.0},
            "policy": {"on_timeout": "loss", "on_illegal": "forfeit"}, "status": "finished",
            "winner_seat": winner, "scores": {"1": 40, "2": 30}, "reason": "two_passes",
            "termination": "timeout" if faulty else "game_end", "faulty_seat": faulty, "detail": "",
            "rated": True, "started_at": start, "ended_at": start + 8.0, "sequence": number, "record": None,
        }  # fmt: skip
        if now_running:
            row.update(status="running", winner_seat=None, scores=None, reason=None, termination=None,
                       faulty_seat=None, ended_at=None, sequence=None)  # fmt: skip
        elif aborted:
            row.update(status="aborted", rated=False, winner_seat=None, termination="aborted")
        else:
            update: dict[str, Any] = {"match_id": row["id"], "ladder": ladder}
            for seat, (bot, played) in seats.items():
                tally = rating.setdefault((ladder, bot, played), [25.0, 25.0 / 3, 0, 0, 0, 0])
                mu, sigma = tally[0], tally[1]
                update |= {f"seat_{seat}_bot": bot, f"seat_{seat}_version": played,
                           f"seat_{seat}_mu_before": mu, f"seat_{seat}_sigma_before": sigma}  # fmt: skip
                if winner is not None:
                    mu += 0.3 if winner == seat else -0.3
                sigma = max(0.9, sigma * 0.97)
                outcome = 5 if winner is None else 3 if winner == seat else 4
                tally[:2], tally[2], tally[outcome] = [mu, sigma], tally[2] + 1, tally[outcome] + 1
                update |= {f"seat_{seat}_mu_after": mu, f"seat_{seat}_sigma_after": sigma}
            updates.append(update)
        rows.append(row)
        if len(rows) >= BATCH:
            _flush(store, rows, updates)
    _flush(store, rows, updates)
    with store._engine.begin() as connection:
        connection.execute(
            insert(Rating),
            [
                {"ladder": ladder, "bot": bot, "version": version, "mu": mu, "sigma": sigma,
                 "games": int(games), "wins": int(wins), "losses": int(losses), "draws": int(draws),
                 "updated_at": T0}
                for (ladder, bot, version), (mu, sigma, games, wins, losses, draws) in rating.items()
            ],
        )  # fmt: skip
    with store._engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
        connection.exec_driver_sql("VACUUM ANALYZE" if store.postgres else "ANALYZE")


def _flush(store: SqlStore, rows: list[dict[str, Any]], updates: list[dict[str, Any]]) -> None:
    with store._engine.begin() as connection:
        if rows:
            connection.execute(insert(Match), rows)
        if updates:
            connection.execute(insert(RatingUpdate), updates)
    rows.clear()
    updates.clear()


def latencies(client: Any, url: str, runs: int) -> tuple[list[float], list[float]]:
    """Wall and CPU milliseconds of each call (CPU: this process's, every thread; a PostgreSQL
    server's own time is not in it)."""
    times, cpu = [], []
    for _ in range(runs):
        began, began_cpu = time.perf_counter(), time.process_time()
        answer = client.get(url)
        times.append((time.perf_counter() - began) * 1000)
        cpu.append((time.process_time() - began_cpu) * 1000)
        assert answer.status_code == 200, answer.text[:200]
    return times, cpu


def peak_mb(client: Any, url: str) -> float:
    tracemalloc.start()
    try:
        assert client.get(url).status_code == 200
        return tracemalloc.get_traced_memory()[1] / 1e6
    finally:
        tracemalloc.stop()


def _status_kb(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def concurrent(store: SqlStore, url: str) -> tuple[float, float]:
    """8 calls at once over HTTP: (wall seconds, MB the process's peak RSS grew by)."""
    import httpx

    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    server = WebServer(create_app(store), "127.0.0.1", 0)
    asyncio.run_coroutine_threadsafe(server.start(), loop).result(30)
    try:
        with httpx.Client(base_url=server.address, timeout=120) as client:
            assert client.get(url).status_code == 200  # warm up
        with contextlib.suppress(OSError):
            Path("/proc/self/clear_refs").write_text("5")  # the peak RSS starts again from now
        before = _status_kb("VmHWM")

        def one(_: int) -> int:
            with httpx.Client(base_url=server.address, timeout=120) as client:
                return client.get(url).status_code

        began = time.perf_counter()
        with ThreadPoolExecutor(CONCURRENT) as pool:
            codes = list(pool.map(one, range(CONCURRENT)))
        wall = time.perf_counter() - began
        assert codes == [200] * CONCURRENT, codes
        return wall, (_status_kb("VmHWM") - before) / 1024
    finally:
        asyncio.run_coroutine_threadsafe(server.stop(), loop).result(30)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(5)


def run(kind: str, url: str, args: argparse.Namespace) -> bool:
    import warnings

    warnings.simplefilter("ignore", DeprecationWarning)
    from starlette.testclient import TestClient

    store = SqlStore(url)
    store.upgrade()
    began = time.perf_counter()
    fill(store, args.matches)
    print(f"\n{kind}: {STAR} with {args.matches} matches (filled in {time.perf_counter() - began:.0f} s)")
    client = TestClient(create_app(store))
    good = True
    print(f"{'answer':<20} {'median ms':>10} {'max ms':>8} {'CPU ms':>7} {'peak MB':>8}")
    for url_path in (f"/bots/{STAR}", f"/api/bots/{STAR}"):
        assert client.get(url_path).status_code == 200  # warm up (and check)
        times, cpu = latencies(client, url_path, args.runs)
        peak = peak_mb(client, url_path)
        median = statistics.median(times)
        good = good and median <= MEDIAN_MS and peak <= PEAK_MB
        print(
            f"{url_path:<20} {median:>10.1f} {max(times):>8.1f} {statistics.median(cpu):>7.1f} {peak:>8.1f}"
        )
    wall, grew = concurrent(store, f"/api/bots/{STAR}")
    print(f"{CONCURRENT} concurrent /api/bots/{STAR}: {wall:.2f} s wall, peak RSS +{grew:.1f} MB")
    print("load average: " + " ".join(f"{load:.1f}" for load in os.getloadavg()))
    store.close()
    return good


def main() -> None:
    formatter = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=formatter)
    parser.add_argument("--database", choices=["sqlite", "postgresql", "both"], default="sqlite")
    parser.add_argument("--matches", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    good = True
    if args.database in ("sqlite", "both"):
        with tempfile.TemporaryDirectory() as folder:
            good = run("SQLite", f"sqlite:///{Path(folder) / 'bench.db'}", args) and good
    if args.database in ("postgresql", "both"):
        from tests.postgres import Cluster

        cluster = Cluster()
        try:
            cluster.start()
            good = run("PostgreSQL", cluster.createdb("bench_bot_pages"), args) and good
        finally:
            cluster.stop()
    if not good:
        print(f"over target: a median above {MEDIAN_MS:.0f} ms or a peak above {PEAK_MB:.0f} MB")
        sys.exit(1)
    print(f"within target: every median at most {MEDIAN_MS:.0f} ms, every peak at most {PEAK_MB:.0f} MB")


if __name__ == "__main__":
    main()
