"""The store's contract (issue 20, item 19): what each method of ``SqlStore`` promises, checked on
both backends, SQLite and PostgreSQL, by one parametrised suite (as Flower tests its state
backends), so that no promise holds on one backend only.

Each test gets an empty, migrated database: a copy of one migrated SQLite file, or the session's
one PostgreSQL contract database with every table emptied (far quicker than a new database).
"""

from __future__ import annotations

import shutil
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from arbiter.ladder.model import BotVersion, RatedResult, Rating, Termination
from arbiter.store import FencedWrite, RatingTally, RatingUpdate, SqlStore, StoreError
from arbiter.store.schema import Base, ClusterNode
from sqlalchemy import func, select, text

from tests.postgres import Cluster

from .conftest import ALPHA, BETA, T0, Clock, ladder, move, result, start, with_players

LADDER = "torrent-blitz"
TABLES = ", ".join(table.name for table in Base.metadata.sorted_tables)
BEFORE = Rating(25.0, 8.333)
UPDATES = [
    RatingUpdate(1, ALPHA, BEFORE, Rating(27.6, 7.2)),
    RatingUpdate(2, BETA, BEFORE, Rating(22.4, 7.2)),
]
TALLIES = {
    ALPHA: RatingTally(Rating(27.6, 7.2), 1, 1, 0, 0),
    BETA: RatingTally(Rating(22.4, 7.2), 1, 0, 1, 0),
}


# --- one empty database per test, on each backend ------------------------------------------------
@pytest.fixture(scope="session")
def migrated_sqlite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("contract") / "migrated.db"
    made = SqlStore(f"sqlite:///{path}")
    made.upgrade()
    made.close()  # the last connection's close folds the WAL into the file: it copies whole
    return path


@pytest.fixture(scope="session")
def contract_postgres(postgres_cluster: Cluster) -> str:
    url = postgres_cluster.new_database("arbiter_contract")
    made = SqlStore(url)
    made.upgrade()
    made.close()
    return url


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request: pytest.FixtureRequest, tmp_path: Path, clock: Clock) -> Iterator[SqlStore]:
    if request.param == "sqlite":
        shutil.copy(request.getfixturevalue("migrated_sqlite"), tmp_path / "arbiter.db")
        url = f"sqlite:///{tmp_path / 'arbiter.db'}"
    else:
        url = request.getfixturevalue("contract_postgres")
    opened = SqlStore(url, clock=clock)
    if opened.postgres:
        with opened.transaction() as session:
            session.execute(text(f"TRUNCATE {TABLES} RESTART IDENTITY CASCADE"))
    opened.check_schema()
    yield opened
    opened.close()


def another(store: SqlStore) -> SqlStore:
    """A second store on the same database (another process, another node)."""
    return SqlStore(store.url)


def at_once(calls: Sequence[Callable[[], Any]]) -> list[Any]:
    """Run every call in a thread of its own, all released together."""
    barrier = threading.Barrier(len(calls))

    def run(call: Callable[[], Any]) -> Any:
        barrier.wait()
        return call()

    with ThreadPoolExecutor(len(calls)) as pool:
        return list(pool.map(run, calls))


def count(store: SqlStore, table: str) -> int:
    with store.transaction() as session:
        return int(session.scalar(select(func.count()).select_from(text(table))) or 0)


# --- bots and ladders ----------------------------------------------------------------------------
def test_bots_are_unique_by_name_and_checked(store):
    token = store.add_bot("alpha", owner="ann")
    for bad in (("alpha", "bob"), ("two words", "bob"), ("beta", "line\nbreak")):
        with pytest.raises(StoreError):
            store.add_bot(*bad)
    assert [bot.name for bot in store.list_bots()] == ["alpha"]
    assert store.get_bot("alpha") == store.bot_row("alpha") == store.authenticate(token)
    assert store.get_bot("ghost") is None and store.bot_row("ghost") is None


def test_a_rotate_or_a_disable_shows_at_once_in_authenticate_and_credentials(store):
    old = store.add_bot("alpha", owner="ann")
    new = store.rotate_token("alpha")
    assert store.authenticate(old) is None
    store.set_bot_enabled("alpha", False)
    found = store.authenticate(new)
    assert found is not None and (found.name, found.enabled) == ("alpha", False)  # the caller decides
    [credential] = store.credentials(["alpha", "ghost"]).values()
    assert (credential.name, credential.enabled) == ("alpha", False)
    assert store.credentials(["alpha"]) != {} and store.authenticate("") is None
    for change in (store.rotate_token, lambda name: store.set_bot_enabled(name, True)):
        with pytest.raises(StoreError, match="no bot named 'ghost'"):
            change("ghost")


def test_credentials_find_every_registered_name_whatever_their_number(store, monkeypatch):
    monkeypatch.setattr("arbiter.store.sql.CREDENTIALS_PER_QUERY", 2)  # several queries for 5 names
    names = [f"bot{n}" for n in range(5)]
    for name in names:
        store.add_bot(name, owner="ann")
    found = store.credentials([*names, "ghost", "bot0"])
    assert sorted(found) == names and all(c.enabled for c in found.values())
    hashes = {c.token_hash: name for name, c in found.items()}
    assert store.bots_with_token_hashes([*hashes, "sha256:" + "0" * 64]) == hashes


def test_ladders_are_unique_by_name_and_round_trip(store):
    torrent, other = ladder(), ladder("other", rated=False, enabled=False)
    store.add_ladder(torrent)
    store.add_ladder(other)
    with pytest.raises(StoreError, match="exists already"):
        store.add_ladder(torrent)
    with pytest.raises(StoreError, match="bad ladder name"):
        store.add_ladder(ladder("a/b"))
    assert store.list_ladders() == [other, torrent] and store.get_ladder(LADDER) == torrent
    assert store.get_ladder("nope") is None


# --- matches -------------------------------------------------------------------------------------
def test_a_start_is_recorded_once_and_says_whether_one_owner_has_both_bots(store):
    store.add_ladder(ladder())
    for bot, owner in (("alpha", "ann"), ("beta", "ann"), ("gamma", "bob")):
        store.add_bot(bot, owner=owner)
    assert store.match_started(start("m1")) is True
    assert store.match_started(start("m1", seed="11" * 32, started_at=T0)) is False
    [running] = store.running_matches()
    assert running.start == start("m1") and list(running.moves) == []
    store.match_started(start("m2", seat_2=BotVersion("gamma", "1")))
    owners = {m: getattr(store.match_row(m), "same_owner", None) for m in ("m1", "m2")}
    assert owners == {"m1": True, "m2": False}


def test_moves_keep_their_first_record_and_need_a_match(store):
    with_players(store)
    store.match_started(start("m1"))
    store.append_moves("m1", [move(0), move(1)])
    store.append_moves("m1", [move(1, action="changed"), move(2)])
    assert store.moves_of("m1") == [move(0), move(1), move(2)]
    assert store.running_match("m1") is not None
    assert list(store.running_match("m1").moves) == [move(0), move(1), move(2)]
    with pytest.raises(StoreError, match="no match 'nope'"):
        store.append_moves("nope", [move(0)])


def test_a_finish_is_written_once_with_its_ratings(store):
    with_players(store)
    store.match_started(start("m1"))
    assert store.finish_match("m1", result(winner=2), UPDATES, TALLIES) is True
    before = (store.match_row("m1"), store.ratings(LADDER), store.finished_results(LADDER))
    worse = {ALPHA: RatingTally(Rating(1.0, 1.0), 9, 0, 9, 0)}
    for again in (store, another(store)):
        assert again.finish_match("m1", result(winner=1, reason="other"), UPDATES, worse) is False
    assert (store.match_row("m1"), store.ratings(LADDER), store.finished_results(LADDER)) == before
    assert count(store, "rating_updates") == 1
    assert store.running_match("m1") is None and store.running_matches() == []
    with pytest.raises(StoreError, match="no match 'nope'"):
        store.finish_match("nope", result())


def test_a_failed_finish_writes_nothing(store):
    with_players(store)
    store.match_started(start("m1"))
    with pytest.raises(StoreError):
        store.finish_match("m1", result(), UPDATES, {**TALLIES, BotVersion("ghost", "1"): TALLIES[ALPHA]})
    assert [row.status for row in store.matches()] == ["running"]
    assert store.ratings(LADDER) == [] and count(store, "rating_updates") == 0


def test_every_ended_match_gets_the_next_number_of_one_sequence(store):
    with_players(store)
    ids = [f"m{n:02}" for n in range(12)]
    for n, match_id in enumerate(ids):
        store.match_started(start(match_id, ladder=None if n % 3 == 0 else LADDER, started_at=T0 + n))
    store.finish_match(ids[0], result(termination=Termination.ABORTED, winner=None))
    others = [store, another(store)]
    # Each match finished twice at the same moment, once through each store.
    finished = at_once([partial(others[n % 2].finish_match, ids[1 + n // 2], result()) for n in range(22)])
    assert sorted(finished) == [False] * (len(ids) - 1) + [True] * (len(ids) - 1)
    numbers = {row.match_id: row.sequence for row in store.matches(limit=100)}
    assert sorted(numbers.values()) == list(range(1, len(ids) + 1))  # casual and aborted ones too
    assert numbers[ids[0]] == 1
    ordered = [r.sequence for r in store.finished_results(LADDER)]
    assert ordered == sorted(ordered) and len(ordered) == len([i for n, i in enumerate(ids) if n % 3])
    aborted = store.match_row(ids[0])
    assert aborted is not None and (aborted.status, aborted.rated) == ("aborted", False)


def test_a_recompute_replaces_the_ratings_of_its_ladder_only(store):
    with_players(store)
    store.add_ladder(ladder("other"))
    store.match_started(start("m1"))
    store.match_started(start("m2", ladder="other"))
    store.finish_match("m1", result(), UPDATES, TALLIES)
    store.finish_match("m2", result(), UPDATES, TALLIES)
    store.replace_ratings(LADDER, {BETA: RatingTally(Rating(30.0, 5.0), 1, 1, 0, 0)})
    assert [(r.version, r.tally.rating) for r in store.ratings(LADDER)] == [(BETA, Rating(30.0, 5.0))]
    assert {r.version: r.tally for r in store.ratings("other")} == TALLIES


# --- fenced writes -------------------------------------------------------------------------------
def register(store: SqlStore, state: str = "active") -> int:
    """A node's registration row (as the cluster's registry writes it); its epoch."""
    now = T0
    with store.transaction() as session:
        node = ClusterNode(
            address="127.0.0.1:1", state=state, started_at=now, heartbeat_at=now, lease_expires=now + 60
        )
        session.add(node)
        session.flush()
        return int(node.epoch)


def test_fenced_writes_come_only_from_the_live_epoch_owning_the_match(store):
    with_players(store)
    mine, theirs, gone = register(store), register(store), register(store, "dead")
    store.fence_epoch = mine
    other = another(store)
    other.fence_epoch = theirs
    assert store.match_started(start("m1")) and other.match_started(start("m2"))
    store.append_moves("m1", [move(0)])
    for write in (
        lambda: store.append_moves("m2", [move(0)]),
        lambda: store.finish_match("m2", result()),
        lambda: other.finish_match("m1", result(), UPDATES, TALLIES),
    ):
        with pytest.raises(FencedWrite):
            write()
    assert store.moves_of("m2") == [] and store.ratings(LADDER) == []
    assert [r.start.match_id for r in store.running_matches(owner_epoch=mine)] == ["m1"]
    assert [r.start.match_id for r in store.running_matches()] == ["m1", "m2"]
    dead = another(store)
    dead.fence_epoch = gone
    with pytest.raises(FencedWrite):
        dead.match_started(start("m3"))
    assert store.match_row("m3") is None
    assert store.finish_match("m1", result(), UPDATES, TALLIES) is True
    other.close()
    dead.close()


# --- mail ----------------------------------------------------------------------------------------
def test_mail_is_kept_once_per_match_and_taken_by_its_bot_alone_once(store):
    with_players(store, "alpha", "beta", "gamma")
    for match_id in ("m1", "m2"):
        store.match_started(start(match_id))
    store.add_mail("alpha", "m2", b"\x00first")
    store.add_mail("alpha", "m1", b"second")
    store.add_mail("alpha", "m2", b"dropped")
    store.add_mail("beta", "m1", b"for beta")
    assert store.take_mail("gamma") == []
    assert store.take_mail("alpha") == [("m2", b"\x00first"), ("m1", b"second")]
    assert store.take_mail("alpha") == []
    assert store.take_mail("beta") == [("m1", b"for beta")]
    with pytest.raises(StoreError):
        store.add_mail("ghost", "m1", b"x")


def test_mail_taken_at_once_from_two_stores_goes_to_one_of_them(store):
    with_players(store)
    ids = [f"m{n}" for n in range(6)]
    for match_id in ids:
        store.match_started(start(match_id))
        store.add_mail("alpha", match_id, match_id.encode())
    other = another(store)
    taken = at_once([lambda: store.take_mail("alpha"), lambda: other.take_mail("alpha")])
    other.close()
    assert sorted(m for got in taken for m, _ in got) == ids


# --- ladder status and counts ---------------------------------------------------------------------
def test_a_run_of_failures_pauses_a_bot_on_one_ladder_until_resumed(store):
    with_players(store)
    store.add_ladder(ladder("other"))
    assert [store.record_outcome_for_bot(LADDER, "alpha", True, threshold=2) for _ in range(2)] == [
        False,
        True,
    ]
    assert store.failures_in_a_row(LADDER, "alpha") == 2 and store.failures_in_a_row("other", "alpha") == 0
    assert store.pauses_of("alpha") == {LADDER: "paused after 2 failed matches in a row"}
    assert store.paused("other", "alpha") is None and store.pauses_of("beta") == {}
    assert store.record_outcome_for_bot(LADDER, "alpha", False, threshold=2) is True  # stays paused
    assert store.failures_in_a_row(LADDER, "alpha") == 0
    store.resume_bot(LADDER, "alpha")
    store.resume_bot(LADDER, "beta")  # nothing to lift: nothing happens
    assert store.paused(LADDER, "alpha") is None and store.pauses_of("alpha") == {}


def test_challenges_are_counted_per_pair_within_the_window(store):
    with_players(store, "alpha", "beta", "gamma")
    take = store.take_challenge
    assert [take(LADDER, "alpha", "beta", T0 + n, limit=2, window=100) for n in range(3)] == [
        True,
        True,
        False,
    ]
    assert take(LADDER, "alpha", "gamma", T0 + 3, limit=2, window=100)  # another opponent
    assert take(LADDER, "beta", "alpha", T0 + 3, limit=2, window=100)  # the other way round
    assert take(LADDER, "alpha", "beta", T0 + 100.5, limit=2, window=100)  # the first one is out
    assert count(store, "ladder_challenges") == 5  # a refusal wrote nothing


def test_challenges_at_once_from_two_stores_never_pass_the_limit(store):
    with_players(store)
    other = another(store)
    calls = [partial(s.take_challenge, LADDER, "alpha", "beta", T0, 3, 60) for s in (store, other) * 4]
    taken = at_once(calls)
    other.close()
    assert sorted(taken) == [False] * 5 + [True] * 3


def test_new_versions_are_limited_within_the_window_and_old_ones_always_admitted(store):
    with_players(store)
    admit = store.admit_version
    assert [admit("alpha", v, T0 + n, limit=2, window=100) for n, v in enumerate(("1", "2", "3"))] == [
        True,
        True,
        False,
    ]
    assert admit("alpha", "1", T0 + 3, limit=2, window=100)  # had before
    assert admit("beta", "9", T0 + 3, limit=2, window=100)  # the limit is per bot
    assert store.versions_of("alpha") == [("1", T0), ("2", T0 + 1)]  # a refusal wrote nothing
    assert admit("alpha", "3", T0 + 100.5, limit=2, window=100)
    other = another(store)
    pairs = ((store, "a"), (other, "b"))
    tried = at_once([partial(s.admit_version, "beta", v, T0, 2, 60) for s, v in pairs])
    other.close()
    kept = sorted(v for v, _ in store.versions_of("beta"))
    assert tried.count(True) == 1 and kept in (["9", "a"], ["9", "b"])  # one new version at a time


def test_latest_versions_are_those_of_each_bots_last_rated_finished_match(store):
    with_players(store)
    played = (
        ("m1", ALPHA, result()),
        ("m2", BotVersion("alpha", "2.0"), result()),
        ("m3", BotVersion("alpha", "3.0"), result(termination=Termination.ABORTED, winner=None)),
    )
    for n, (match_id, version, ended) in enumerate(played):
        store.match_started(start(match_id, seat_1=version, started_at=T0 + n))
        store.finish_match(match_id, ended)
    store.match_started(start("m4", seat_1=BotVersion("alpha", "4.0"), rated=False))
    store.finish_match("m4", result())
    assert store.latest_versions(LADDER) == {"alpha": BotVersion("alpha", "2.0"), "beta": BETA}


# --- what the web pages read ------------------------------------------------------------------------
def test_the_reads_of_the_pages_agree_with_what_was_written(store):
    with_players(store)
    store.match_started(start("won", started_at=T0 + 1))
    store.finish_match("won", result(winner=1), UPDATES, TALLIES)
    store.match_started(start("timeout", started_at=T0 + 2))
    store.finish_match("timeout", result(winner=1, termination=Termination.TIMEOUT, faulty_seat=2))
    store.match_started(start("draw", started_at=T0 + 3))
    store.finish_match("draw", result(winner=None))
    store.match_started(start("aborted", started_at=T0 + 4))
    store.finish_match("aborted", result(winner=None, termination=Termination.ABORTED))
    store.match_started(start("running", started_at=T0 + 5))
    store.match_started(start("casual", ladder=None, started_at=T0 + 6))
    store.record_outcome_for_bot(LADDER, "beta", True, threshold=1)
    assert store.running_counts() == {LADDER: 1, None: 1}
    assert [r.match_id for r in store.match_rows(limit=3)] == ["casual", "running", "aborted"]
    assert [r.match_id for r in store.match_rows(ladder=LADDER, status="finished")] == [
        "draw",
        "timeout",
        "won",
    ]
    assert store.match_row("nope") is None and store.running_match("won") is None
    # beta's ended matches: "won" and "timeout" lost (the second its own fault), "draw", "aborted".
    beta = store.bot_summary("beta")
    assert (beta.total.games, beta.total.wins, beta.total.losses, beta.total.draws) == (3, 0, 2, 1)
    assert beta.total.aborted == 1 and beta.failures == {"timeout": 1}
    assert beta.opponents["alpha"] == beta.total
    listed = store.bot_matches("beta", None, 10)  # its running matches first, then the ended ones
    assert [row.match_id for row in listed.rows[:2]] == ["casual", "running"]
    assert {row.match_id for row in listed.rows[2:]} == {"won", "timeout", "draw", "aborted"}
    assert [(p.match_id, p.mu) for p in store.bot_summary("alpha").history] == [("won", 27.6)]
    assert [(r.ladder, r.version) for r in store.ratings_of_bot("beta")] == [(LADDER, BETA)]
    facts = store.ladder_facts(LADDER)
    assert [row.version for row in facts.ratings] == [ALPHA, BETA]
    assert facts.failures == {BETA: {"timeout": 1}}
    assert facts.paused == {"beta": "paused after 1 failed matches in a row"}
    assert facts.last_game[ALPHA] == T0 + 200 and facts.latest_game["alpha"] == (T0 + 200, "1.0")
    assert store.finished_results(LADDER) == [
        RatedResult(1, "won", LADDER, ALPHA, BETA, 1, Termination.GAME_END, True, T0 + 200),
        RatedResult(2, "timeout", LADDER, ALPHA, BETA, 1, Termination.TIMEOUT, True, T0 + 200),
        RatedResult(3, "draw", LADDER, ALPHA, BETA, None, Termination.GAME_END, True, T0 + 200),
    ]
