"""Matches: start, moves, finish (idempotent, with its ratings in one go), resume after a restart."""

from __future__ import annotations

import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest
from arbiter.ladder.model import BotVersion, RatedResult, Rating, Termination
from arbiter.store import RatingTally, RatingUpdate, SqlStore, StoreError
from arbiter.store.engine import normalise_url
from sqlalchemy import create_engine, text

from tests.conftest import ROOT

from .conftest import ALPHA, BETA, T0, move, result, start, with_players

BEFORE = Rating(25.0, 8.333)
UPDATES = [
    RatingUpdate(1, ALPHA, BEFORE, Rating(27.6, 7.2)),
    RatingUpdate(2, BETA, BEFORE, Rating(22.4, 7.2)),
]
TALLIES = {
    ALPHA: RatingTally(Rating(27.6, 7.2), 1, 1, 0, 0),
    BETA: RatingTally(Rating(22.4, 7.2), 1, 0, 1, 0),
}


def _count(url: str, table: str) -> int:
    engine = create_engine(normalise_url(url))
    with engine.connect() as connection:
        count = connection.execute(text(f"SELECT count(*) FROM {table}")).scalar_one()
    engine.dispose()
    return count


def test_a_match_from_start_to_finish(store):
    with_players(store)
    assert store.match_started(start("m1")) is True
    assert store.match_started(start("m1", seed="changed")) is False
    store.append_moves("m1", [move(0), move(1)])
    store.append_moves("m1", [move(1, action="other"), move(2, turn_id=None, charged=None, auto="skip")])
    assert store.moves_of("m1") == [move(0), move(1), move(2, turn_id=None, charged=None, auto="skip")]
    [running] = store.matches()
    assert (running.status, running.winner_seat, running.ended_at) == ("running", None, None)

    record = {"format": 1, "match_id": "m1", "actions": [{"action": "a0"}]}
    assert store.finish_match("m1", result(winner=2, record=record), UPDATES, TALLIES) is True
    [finished] = store.matches(ladder="torrent-blitz", bot="beta")
    assert (finished.status, finished.winner_seat, finished.scores) == ("finished", 2, {1: 40, 2: 41})
    assert (finished.termination, finished.sequence, finished.ended_at) == (Termination.GAME_END, 1, T0 + 200)
    assert store.match_record("m1") == record
    assert store.running_matches() == []
    assert store.finished_results("torrent-blitz") == [
        RatedResult(1, "m1", "torrent-blitz", ALPHA, BETA, 2, Termination.GAME_END, True, T0 + 200)
    ]
    assert {row.version: row.tally for row in store.ratings("torrent-blitz")} == TALLIES
    assert [row.version for row in store.ratings("torrent-blitz")] == [ALPHA, BETA]  # best first


def test_finishing_twice_changes_nothing(store):
    with_players(store)
    store.match_started(start("m1"))
    assert store.finish_match("m1", result(winner=1), UPDATES, TALLIES) is True
    before = (store.matches(), store.ratings("torrent-blitz"), store.finished_results("torrent-blitz"))
    worse = {ALPHA: RatingTally(Rating(1.0, 1.0), 9, 0, 9, 0)}
    assert store.finish_match("m1", result(winner=2, reason="other"), UPDATES, worse) is False
    assert (
        store.matches(),
        store.ratings("torrent-blitz"),
        store.finished_results("torrent-blitz"),
    ) == before
    assert _count(store.url, "rating_updates") == 1


def test_finished_results_follow_the_order_of_finishing(store):
    with_players(store)
    for offset, match_id in enumerate(("a", "b", "c")):
        store.match_started(start(match_id, started_at=T0 + offset))
    store.finish_match("c", result(winner=None, scores={1: 3, 2: 3}))
    store.finish_match("a", result(termination=Termination.TIMEOUT, faulty_seat=2))
    store.finish_match("b", result(termination=Termination.ABORTED, winner=None))
    store.match_started(start("casual", ladder=None))
    store.finish_match("casual", result())
    assert [(r.sequence, r.match_id, r.winner_seat) for r in store.finished_results("torrent-blitz")] == [
        (1, "c", None),
        (2, "a", 1),
    ]
    aborted = next(row for row in store.matches() if row.match_id == "b")
    assert (aborted.status, aborted.rated, aborted.sequence) == ("aborted", False, 3)
    assert [row.match_id for row in store.matches(limit=3)] == ["casual", "c", "b"]  # newest first
    assert [row.match_id for row in store.matches(ladder="torrent-blitz", bot="alpha")] == ["c", "b", "a"]
    assert store.matches(bot="nobody") == []


def test_a_finish_is_all_or_nothing(store):
    with_players(store)
    store.match_started(start("m1"))
    unregistered = {**TALLIES, BotVersion("ghost", "1"): RatingTally(BEFORE)}
    with pytest.raises(StoreError, match="database error"):
        store.finish_match("m1", result(), UPDATES, unregistered)
    with pytest.raises(StoreError, match="rating updates must be one for seat 1"):
        store.finish_match("m1", result(), UPDATES[:1], TALLIES)
    assert [row.status for row in store.matches()] == ["running"]
    assert store.ratings("torrent-blitz") == []
    assert _count(store.url, "rating_updates") == 0
    with pytest.raises(StoreError, match="no match 'nope'"):
        store.finish_match("nope", result())
    with pytest.raises(StoreError, match="no match 'nope'"):
        store.append_moves("nope", [move(0)])


CRASHING_ARBITER = """
import os, sys
sys.path[:0] = [{root!r} + "/server", {root!r} + "/clients/python", {root!r}]
from tests.store.conftest import move, start, with_players
from arbiter.store import SqlStore
store = SqlStore({url!r})
store.upgrade()
with_players(store)
store.match_started(start("m1"))
store.match_started(start("m2", ladder=None))
store.append_moves("m1", [move(0), move(1)])
os._exit(9)  # no close, no clean shutdown
"""


def test_a_running_match_survives_a_crash_with_its_moves(store_url, clock):
    code = CRASHING_ARBITER.format(root=str(ROOT), url=store_url)
    crashed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert crashed.returncode == 9, crashed.stderr
    second = SqlStore(store_url, clock=clock)
    second.check_schema()
    resumed = second.running_matches()
    assert [(r.start, list(r.moves)) for r in resumed] == [
        (start("m1"), [move(0), move(1)]),
        (start("m2", ladder=None), []),
    ]
    second.close()


def test_ratings_can_be_replaced_after_a_recompute(store):
    with_players(store)
    store.match_started(start("m1"))
    store.finish_match("m1", result(), UPDATES, TALLIES)
    store.replace_ratings("torrent-blitz", {BETA: RatingTally(Rating(30.0, 5.0), 1, 1, 0, 0)})
    assert [(row.version, row.tally.rating) for row in store.ratings("torrent-blitz")] == [
        (BETA, Rating(30.0, 5.0))
    ]


def test_concurrent_finishes_from_two_stores_get_distinct_sequence_numbers(store):
    with_players(store)
    other = SqlStore(store.url)
    ids = [f"m{n}" for n in range(16)]
    for match_id in ids:
        store.match_started(start(match_id))

    def finish(n: int) -> bool:
        return (store, other)[n % 2].finish_match(ids[n // 2], result())

    with ThreadPoolExecutor(4) as pool:
        finished = list(pool.map(finish, range(32)))  # each match twice, once through each store
    other.close()
    assert sorted(finished) == [False] * 16 + [True] * 16
    assert sorted(r.sequence for r in store.finished_results("torrent-blitz")) == list(range(1, 17))
