"""The web pages on a big store: standings and a bot page with 1,000 bots and 100,000 matches.

    python bench/web.py [--database sqlite|postgresql|both] [--bots 1000] [--matches 100000] [--runs 20]

Fills a fresh store (SQLite in a temporary file, and/or a throwaway PostgreSQL cluster started from
the machine's binaries) with one Torrent ladder: ``--bots`` rated bots and ``--matches`` finished,
rated matches between random pairs, each with its rating update (records are left out: no
measured page reads one, and a match's record is never loaded by the listings). Then asks the web
application (in process, through Starlette's test client: no sockets) for each page ``--runs``
times and prints the median and p95 server time per page, HTML and JSON. Target: at most 100 ms.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / d) for d in ("server", "clients/python", ".")]

from arbiter.ladder.model import LadderConfig  # noqa: E402
from arbiter.store import SqlStore  # noqa: E402
from arbiter.store.schema import Bot, LadderStatus, Match, Rating, RatingUpdate  # noqa: E402
from arbiter.web.app import create_app  # noqa: E402
from arbiter_games.timecontrol import TimeControl  # noqa: E402
from sqlalchemy import insert  # noqa: E402

LADDER = "bench"
T0 = 1_800_000_000.0
BATCH = 5_000


def fill(store: SqlStore, bots: int, matches: int, seed: int = 1) -> None:
    rng = random.Random(seed)
    store.add_ladder(LadderConfig(LADDER, "torrent", {"size": 7}, TimeControl(base=60.0, increment=1.0)))
    names = [f"bot-{i:04d}" for i in range(bots)]
    mu = {name: 25.0 for name in names}
    sigma = {name: 25.0 / 3 for name in names}
    tally = {name: [0, 0, 0, 0] for name in names}  # games, wins, losses, draws
    engine = store._engine
    with engine.begin() as connection:
        connection.execute(
            insert(Bot),
            [
                {"name": n, "owner": "bench", "token_hash": f"h{i}", "enabled": True, "created_at": T0}
                for i, n in enumerate(names)
            ],
        )
    rows: list[dict[str, Any]] = []
    updates: list[dict[str, Any]] = []
    for number in range(1, matches + 1):
        one, two = rng.sample(names, 2)
        winner = rng.choice((1, 2, 1, 2, None))
        faulty = rng.choice((1, 2)) if rng.random() < 0.02 else None
        termination = "timeout" if faulty else "game_end"
        if faulty:
            winner = 3 - faulty
        before = {one: (mu[one], sigma[one]), two: (mu[two], sigma[two])}
        for seat, name in ((1, one), (2, two)):
            tally[name][0] += 1
            if winner is None:
                tally[name][3] += 1
            elif winner == seat:
                tally[name][1] += 1
                mu[name] += 0.3
            else:
                tally[name][2] += 1
                mu[name] -= 0.3
            sigma[name] = max(0.9, sigma[name] * 0.97)
        start = T0 + number * 10.0
        rows.append(
            {
                "id": f"m{number:07d}", "ladder": LADDER, "game": "torrent", "options": {"size": 7},
                "seat_1_bot": one, "seat_1_version": "v1", "seat_2_bot": two, "seat_2_version": "v1",
                "seed": "00", "seed_commitment": "", "time_control": {"base": 60.0, "increment": 1.0},
                "policy": {"on_timeout": "loss", "on_illegal": "forfeit"}, "status": "finished",
                "winner_seat": winner, "scores": {"1": 40, "2": 30}, "reason": "two_passes",
                "termination": termination, "faulty_seat": faulty, "detail": "", "rated": True,
                "started_at": start, "ended_at": start + 8.0, "sequence": number, "record": None,
            }
        )  # fmt: skip
        updates.append(
            {
                "match_id": f"m{number:07d}", "ladder": LADDER,
                "seat_1_bot": one, "seat_1_version": "v1", "seat_2_bot": two, "seat_2_version": "v1",
                "seat_1_mu_before": before[one][0], "seat_1_sigma_before": before[one][1],
                "seat_1_mu_after": mu[one], "seat_1_sigma_after": sigma[one],
                "seat_2_mu_before": before[two][0], "seat_2_sigma_before": before[two][1],
                "seat_2_mu_after": mu[two], "seat_2_sigma_after": sigma[two],
            }
        )  # fmt: skip
        if len(rows) >= BATCH:
            _flush(store, rows, updates)
    _flush(store, rows, updates)
    with engine.begin() as connection:
        connection.execute(
            insert(Rating),
            [
                {
                    "ladder": LADDER, "bot": n, "version": "v1", "mu": mu[n], "sigma": sigma[n],
                    "games": tally[n][0], "wins": tally[n][1], "losses": tally[n][2], "draws": tally[n][3],
                    "updated_at": T0 + matches * 10.0,
                }
                for n in names
            ],
        )  # fmt: skip
        connection.execute(
            insert(LadderStatus),
            [{"ladder": LADDER, "bot": names[0], "consecutive_failures": 3, "paused": True,
              "paused_reason": "paused after 3 failed matches in a row"}],
        )
    if engine.dialect.name == "postgresql":  # what autovacuum does to a table this size soon enough
        with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
            connection.exec_driver_sql("VACUUM ANALYZE")
    else:
        with engine.connect() as connection:
            connection.exec_driver_sql("ANALYZE")


def _flush(store: SqlStore, rows: list[dict[str, Any]], updates: list[dict[str, Any]]) -> None:
    if rows:
        with store._engine.begin() as connection:
            connection.execute(insert(Match), rows)
            connection.execute(insert(RatingUpdate), updates)
    rows.clear()
    updates.clear()


def measure(store: SqlStore, runs: int) -> list[tuple[str, float, float]]:
    import warnings

    warnings.simplefilter("ignore", DeprecationWarning)
    from starlette.testclient import TestClient

    client = TestClient(create_app(store))
    busiest = max(store.ratings(LADDER), key=lambda row: row.tally.games).version.bot
    pages = {
        "/ladders/bench (standings)": f"/ladders/{LADDER}",
        "/api/ladders/bench": f"/api/ladders/{LADDER}",
        f"/bots/{busiest} (bot page)": f"/bots/{busiest}",
        f"/api/bots/{busiest}": f"/api/bots/{busiest}",
        "/ (ladders)": "/",
    }
    times: dict[str, list[float]] = {label: [] for label in pages}
    for url in pages.values():
        assert client.get(url).status_code == 200  # warm up (and check)
    for _ in range(runs):  # round robin: the machine's drift touches every page alike
        for label, url in pages.items():
            began = time.perf_counter()
            answer = client.get(url)
            times[label].append((time.perf_counter() - began) * 1000)
            assert answer.status_code == 200
    out = []
    for label, measured in times.items():
        measured.sort()
        p95 = measured[min(len(measured) - 1, int(len(measured) * 0.95))]
        out.append((label, statistics.median(measured), p95))
    return out


def run(kind: str, url: str, args: argparse.Namespace) -> None:
    store = SqlStore(url)
    store.upgrade()
    began = time.perf_counter()
    fill(store, args.bots, args.matches)
    filled = time.perf_counter() - began
    print(f"\n{kind}: {args.bots} bots, {args.matches} matches (filled in {filled:.0f} s)")
    print(f"{'page':<34} {'median ms':>10} {'p95 ms':>8}")
    for label, median, p95 in measure(store, args.runs):
        print(f"{label:<34} {median:>10.1f} {p95:>8.1f}")
    store.close()


def main() -> None:
    formatter = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=formatter)
    parser.add_argument("--database", choices=["sqlite", "postgresql", "both"], default="both")
    parser.add_argument("--bots", type=int, default=1000)
    parser.add_argument("--matches", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    if args.database in ("sqlite", "both"):
        with tempfile.TemporaryDirectory() as folder:
            run("SQLite", f"sqlite:///{Path(folder) / 'bench.db'}", args)
    if args.database in ("postgresql", "both"):
        from tests.postgres import Cluster

        cluster = Cluster()
        try:
            cluster.start()
            run("PostgreSQL", cluster.createdb("bench_web"), args)
        finally:
            cluster.stop()


if __name__ == "__main__":
    main()
