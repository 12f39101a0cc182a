"""The seeks of a cluster (``cluster_seeks``) and their claim SQL, on a real PostgreSQL."""

from __future__ import annotations

import threading
import time

from arbiter.cluster import NodeRegistry
from arbiter.cluster.seeks import Claim, SeekTable, key_of, pairing_key
from arbiter.ladder.model import BotVersion
from arbiter.lobby import SeekKey
from arbiter.store import SqlStore
from arbiter_games.timecontrol import TimeControl
from sqlalchemy import text

from tests.cluster.test_registry import node, url  # noqa: F401 (the fixture)
from tests.store.conftest import result, start

BLITZ = SeekKey.of("torrent", {"size": 7}, TimeControl(base=60.0, increment=1.0))


def seeks(address: str, database: str, lease: float = 5.0) -> tuple[SqlStore, NodeRegistry, SeekTable]:
    store, registry = node(database, address, lease)
    return store, registry, SeekTable(store, registry.epoch)


def rows(store: SqlStore) -> list[tuple[object, ...]]:
    with store.transaction() as session:
        found = session.execute(
            text("SELECT id, bot, epoch, claimed_by, match_id, seat FROM cluster_seeks ORDER BY id")
        ).all()
    return [tuple(row) for row in found]


def test_the_key_is_the_normalised_seek_and_reads_back():
    assert key_of(pairing_key(BLITZ)) == BLITZ
    other_size = SeekKey.of("torrent", {"size": 5}, BLITZ.control)
    other_clock = SeekKey.of("torrent", {"size": 7}, TimeControl(base=60.0, increment=2.0))
    assert len({pairing_key(BLITZ), pairing_key(other_size), pairing_key(other_clock)}) == 3


def test_seeks_on_two_nodes_pair_once_and_the_other_node_sees_its_bot_claimed(url):  # noqa: F811
    store_a, a, seeks_a = seeks("127.0.0.1:1001", url)
    _, b, seeks_b = seeks("127.0.0.1:1002", url)
    waiting = seeks_a.add("alpha", "s-alpha", BLITZ)
    assert seeks_a.claim(waiting) is None  # nobody else seeks yet
    assert seeks_b.waiting(BLITZ) == 1
    arriving = seeks_b.add("beta", "s-beta", BLITZ)
    claim = seeks_b.claim(arriving)
    assert claim is not None and claim.key == BLITZ
    # The waiting seek takes seat 1 the first time; the match is node b's.
    assert {seat: (r.bot, r.seek_id, r.epoch) for seat, r in claim.seats.items()} == {
        1: ("alpha", "s-alpha", a.epoch),
        2: ("beta", "s-beta", b.epoch),
    }
    assert [r[3:] for r in rows(store_a)] == [(b.epoch, claim.match_id, 1), (b.epoch, claim.match_id, 2)]
    assert seeks_a.claim(waiting) is None and seeks_b.claim(arriving) is None  # claimed once
    assert seeks_b.waiting(BLITZ) == 0
    moved = seeks_a.moved()
    assert [(m.bot, m.match_id, m.epoch, m.address) for m in moved] == [
        ("alpha", claim.match_id, b.epoch, "127.0.0.1:1002")
    ]
    assert seeks_b.moved() == []
    # Until the match has a row, the claim says where alpha plays.
    assert [h.epoch for h in a.hosts_of_bot("alpha")] == [b.epoch]
    seeks_a.sent([m.row for m in moved])
    assert seeks_a.moved() == []
    assert [r[2] for r in rows(store_a)] == [b.epoch, b.epoch]  # alpha's session is at b now


def test_two_nodes_claiming_at_once_pair_a_waiting_seek_once(url):  # noqa: F811
    store_a, _, seeks_a = seeks("127.0.0.1:1001", url)
    _, _, seeks_b = seeks("127.0.0.1:1002", url)
    _, _, seeks_c = seeks("127.0.0.1:1003", url)
    for round_ in range(15):  # a race: run it a few times
        waiting = seeks_c.add(f"gamma{round_}", "", BLITZ)
        mine = {seeks_a: seeks_a.add(f"alpha{round_}", "", BLITZ)}
        mine[seeks_b] = seeks_b.add(f"beta{round_}", "", BLITZ)
        barrier = threading.Barrier(2)
        claims: list[Claim | None] = []

        def claim(
            table: SeekTable, row: int, barrier: threading.Barrier = barrier, out: list[Claim | None] = claims
        ) -> None:
            barrier.wait()
            out.append(table.claim(row))

        threads = [threading.Thread(target=claim, args=(table, row)) for table, row in mine.items()]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        made = [c for c in claims if c is not None]
        # One claim took gamma's waiting seek (the oldest); the other found nothing it could lock
        # (or, once the first had committed, nothing left open but its own).
        assert len(made) == 1, claims
        assert waiting in {r.row for r in made[0].seats.values()}
        seeks_a.drop([mine[seeks_a]])
        seeks_b.drop([mine[seeks_b]])
    claimed = [r for r in rows(store_a) if r[3] is not None]
    assert len(claimed) == 30 and len({(r[4], r[5]) for r in claimed}) == 30


def test_incompatible_seeks_and_a_bot_with_itself_never_pair(url):  # noqa: F811
    _, _, seeks_a = seeks("127.0.0.1:1001", url)
    _, _, seeks_b = seeks("127.0.0.1:1002", url)
    seeks_a.add("alpha", "", BLITZ)
    seeks_a.add("alpha", "", BLITZ)
    other_size = SeekKey.of("torrent", {"size": 5}, BLITZ.control)
    other_clock = SeekKey.of("torrent", {"size": 7}, TimeControl(base=30.0))
    other_game = SeekKey.of("fravan", {"size": 7}, BLITZ.control)
    for key in (other_size, other_clock, other_game):
        assert seeks_b.claim(seeks_b.add("beta", "", key)) is None
    assert all(seeks_a.claim(row) is None for row in seeks_a.open_rows())  # alpha with alpha: never


def test_seeks_of_an_expired_or_draining_node_are_never_claimed_and_go_with_a_takeover(url):  # noqa: F811
    store_a, a, seeks_a = seeks("127.0.0.1:1001", url, lease=0.3)
    _, b, seeks_b = seeks("127.0.0.1:1002", url)
    _, c, seeks_c = seeks("127.0.0.1:1003", url)
    seeks_a.add("alpha", "", BLITZ)
    seeks_b.add("beta", "", BLITZ)
    b.drain()
    time.sleep(0.5)  # a's lease runs out (no heartbeat); b drains
    assert seeks_c.claim(seeks_c.add("gamma", "", BLITZ)) is None
    assert seeks_b.claim(seeks_b.open_rows()[0]) is None  # a draining node claims nothing either
    assert c.take_over(a.epoch) is not None
    assert sorted(str(r[1]) for r in rows(store_a)) == ["beta", "gamma"]  # alpha's seek went with a
    b.stopped()
    assert [str(r[1]) for r in rows(store_a)] == ["gamma"]  # and beta's when b left


def test_a_bot_moving_for_one_match_is_claimed_by_nobody_else(url):  # noqa: F811
    store_a, a, seeks_a = seeks("127.0.0.1:1001", url)
    _, b, seeks_b = seeks("127.0.0.1:1002", url)
    _, c, seeks_c = seeks("127.0.0.1:1003", url)
    first = seeks_b.add("beta", "one", BLITZ)
    second = seeks_b.add("beta", "two", BLITZ)
    claim = seeks_a.claim(seeks_a.add("alpha", "", BLITZ))
    assert claim is not None and {r.row for r in claim.seats.values()} >= {first}
    # beta is on its way to a: its other seek pairs neither on c nor on b, nor again on a.
    for table, bot in ((seeks_c, "gamma"), (seeks_b, "delta"), (seeks_a, "epsilon")):
        probe = table.add(bot, "", BLITZ)
        assert table.claim(probe) is None, bot
        table.drop([probe])
    assert second in seeks_b.open_rows()
    # Once the match has ended, beta is free again, and the claimed rows are forgotten.
    store_a.match_started(start(claim.match_id, ladder=None, rated=False))
    store_a.finish_match(claim.match_id, result())
    assert seeks_a.forget_ended() == 2
    seeks_c.add("gamma", "", BLITZ)
    claim = seeks_b.claim(second)
    assert claim is not None and {r.bot for r in claim.seats.values()} == {"beta", "gamma"}
    assert a.epoch < b.epoch < c.epoch


def test_a_bot_with_a_running_match_pairs_on_its_own_node_only(url):  # noqa: F811
    store_b, _, seeks_b = seeks("127.0.0.1:1002", url)
    _, _, seeks_a = seeks("127.0.0.1:1001", url)
    # beta (and alpha: the helper's seats) play a match on node b.
    store_b.match_started(start("running", ladder=None, rated=False))
    beta = seeks_b.add("beta", "", BLITZ)
    assert seeks_a.claim(seeks_a.add("gamma", "", BLITZ)) is None  # gamma's node may not take beta
    claim = seeks_b.claim(beta)  # beta's own node may: one match per seek, as on a single node
    assert claim is not None
    assert {r.bot for r in claim.seats.values()} == {"beta", "gamma"}


def test_seats_alternate_between_two_bots_from_one_match_to_the_next(url):  # noqa: F811
    store_a, _, seeks_a = seeks("127.0.0.1:1001", url)
    _, _, seeks_b = seeks("127.0.0.1:1002", url)
    firsts = []
    for number in range(3):
        seeks_a.add("alpha", "", BLITZ)
        claim = seeks_b.claim(seeks_b.add("beta", "", BLITZ))
        assert claim is not None
        firsts.append(claim.seats[1].bot)
        one, two = claim.seats[1].bot, claim.seats[2].bot
        seats = {"seat_1": BotVersion(one, "1"), "seat_2": BotVersion(two, "1")}
        store_a.match_started(start(claim.match_id, ladder=None, started_at=1_000_000.0 + number, **seats))
        store_a.finish_match(claim.match_id, result())
    assert firsts == ["alpha", "beta", "alpha"]
