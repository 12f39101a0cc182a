"""The invariants a cluster keeps, read from the store and the nodes' logs."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable

from arbiter.ladder.ratings import recompute
from arbiter.store import SqlStore
from sqlalchemy import text


def log_events(texts: Iterable[str], event: str) -> list[dict[str, object]]:
    found = []
    for body in texts:
        for line in body.splitlines():
            if f'"{event}"' not in line:
                continue
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if record.get("event") == event:
                found.append(record)
    return found


def started_once(texts: list[str]) -> Counter[str]:
    """How many times each match was started, over all the nodes' logs."""
    return Counter(str(r["match_id"]) for r in log_events(texts, "match_started"))


def most_at_once(store: SqlStore) -> dict[tuple[str, str], int]:
    """Per (ladder, bot): the most matches it had running at the same moment."""
    with store.transaction() as session:
        rows = session.execute(
            text(
                "SELECT ladder, seat_1_bot, seat_2_bot, extract(epoch FROM started_at),"
                " extract(epoch FROM ended_at) FROM matches WHERE ladder IS NOT NULL"
            )
        ).all()
    points: dict[tuple[str, str], list[tuple[float, int]]] = {}
    for ladder, one, two, begun, ended in rows:
        for bot in {one, two}:
            marks = points.setdefault((ladder, bot), [])
            marks.append((float(begun), 1))
            marks.append((float(ended) if ended is not None else float("inf"), -1))
    most: dict[tuple[str, str], int] = {}
    for key, marks in points.items():
        running = best = 0
        for _, step in sorted(marks):  # an end sorts before a start at the same moment
            running += step
            best = max(best, running)
        most[key] = best
    return most


def ratings_match_a_recompute(store: SqlStore, ladder: str) -> bool:
    live = {row.version: row.tally for row in store.ratings(ladder)}
    return recompute(store.finished_results(ladder)) == live


def results(store: SqlStore, ladder: str) -> dict[str, tuple[object, ...]]:
    """The ended matches of a ladder, with everything a result is."""
    return {
        row.match_id: (
            row.status,
            row.seat_1,
            row.seat_2,
            row.winner_seat,
            row.reason,
            row.rated,
            row.sequence,
        )
        for row in store.matches(ladder, limit=100_000)
        if row.status != "running"
    }
