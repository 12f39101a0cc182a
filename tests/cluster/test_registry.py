"""Node registrations, leases, takeovers, ladder claims and the epoch fence, on a real PostgreSQL."""

from __future__ import annotations

import threading
import time

import pytest
from arbiter.cluster import NodeRegistry, NotPostgres, make_join_token, read_join_token
from arbiter.cluster.tokens import UsedTokens
from arbiter.store import FencedWrite, SqlStore

from tests.store.conftest import ladder, move, result, start, with_players


@pytest.fixture
def url(postgres_cluster, request):
    return postgres_cluster.new_database(
        f"cluster_{request.node.name[-40:].replace('[', '_').replace(']', '')}"
    )


def node(url: str, address: str, lease: float = 5.0) -> tuple[SqlStore, NodeRegistry]:
    """A node's own store (as each process has) and its registration, fenced by its epoch."""
    store = SqlStore(url)
    store.upgrade()
    registry = NodeRegistry(store, address, lease)
    store.fence_epoch = registry.register()
    return store, registry


def test_a_cluster_needs_postgresql(tmp_path):
    store = SqlStore(f"sqlite:///{tmp_path / 'a.db'}")
    with pytest.raises(NotPostgres, match="PostgreSQL"):
        NodeRegistry(store, "127.0.0.1:1", 5.0)


def test_each_registration_gets_a_larger_epoch_and_a_running_lease(url):
    _, first = node(url, "127.0.0.1:1001")
    _, second = node(url, "127.0.0.1:1002")
    assert second.epoch > first.epoch
    assert first.heartbeat() == "active"
    infos = {info.epoch: info for info in first.nodes()}
    assert infos[first.epoch].leased and infos[second.epoch].state == "active"
    assert first.expired() == []  # nobody's lease has run out
    assert first.take_over(second.epoch) is None  # nor can it be taken while it runs


def test_an_expired_node_is_taken_over_once_with_its_matches_and_ladders(url):
    store_a, a = node(url, "127.0.0.1:1001", lease=0.3)
    with_players(store_a)
    assert store_a.match_started(start("m1"))
    assert store_a.match_started(start("m2"))
    store_a.finish_match("m2", result())  # finished: stays as it is
    assert a.claim_ladder("torrent-blitz").epoch == a.epoch
    _, b = node(url, "127.0.0.1:1002")
    _, c = node(url, "127.0.0.1:1003")
    time.sleep(0.5)  # a's lease runs out (no heartbeat)
    assert b.expired() == [a.epoch]
    taken = b.take_over(a.epoch)
    assert taken is not None
    assert taken.match_ids == ("m1",) and taken.ladders == ("torrent-blitz",)
    assert c.take_over(a.epoch) is None  # taken once
    assert a.heartbeat() is None  # a learns it lost its registration
    assert b.ladder_host("torrent-blitz").epoch == b.epoch
    assert [h.epoch for h in c.hosts_of_bot("alpha")] == [b.epoch]


def test_writes_of_a_node_that_was_taken_over_are_refused_by_the_epoch(url):
    store_a, a = node(url, "127.0.0.1:1001")
    with_players(store_a)
    store_a.match_started(start("m1"))
    store_a.append_moves("m1", [move(0), move(1)])
    store_b, b = node(url, "127.0.0.1:1002")
    assert b.take_over(a.epoch, force=True) is not None
    with pytest.raises(FencedWrite):
        store_a.append_moves("m1", [move(2)])
    with pytest.raises(FencedWrite):
        store_a.finish_match("m1", result(winner=2))
    with pytest.raises(FencedWrite):
        store_a.match_started(start("m3"))  # a dead registration starts nothing
    store_b.append_moves("m1", [move(2)])
    assert store_b.finish_match("m1", result(winner=1))
    assert [m.ply for m in store_b.moves_of("m1")] == [0, 1, 2]
    row = store_b.match_row("m1")
    assert row is not None and row.status == "finished"
    assert store_b.match_row("m3") is None
    assert store_a.finish_match("m1", result(winner=2)) is False  # ended: nothing is written
    assert store_b.finish_match("m1", result(winner=2)) is False  # a result is written once
    assert store_b.match_row("m1").winner_seat == 1


def test_two_nodes_claiming_a_free_ladder_at_once_agree_on_one_host(url):
    store_a, a = node(url, "127.0.0.1:1001")
    with_players(store_a)
    store_a.add_ladder(ladder("second"))
    _, b = node(url, "127.0.0.1:1002")

    def claim(registry: NodeRegistry, name: str, barrier: threading.Barrier, hosts: list[int]) -> None:
        barrier.wait()
        hosts.append(registry.claim_ladder(name).epoch)

    for name in ("torrent-blitz", "second"):
        hosts: list[int] = []
        barrier = threading.Barrier(2)
        threads = [threading.Thread(target=claim, args=(r, name, barrier, hosts)) for r in (a, b)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert len(hosts) == 2 and hosts[0] == hosts[1]


def test_a_draining_node_hands_its_ladders_to_a_live_node_and_leaves_cleanly(url):
    store_a, a = node(url, "127.0.0.1:1001")
    with_players(store_a)
    a.claim_ladder("torrent-blitz")
    _, b = node(url, "127.0.0.1:1002")
    a.drain()
    assert a.hand_over() == {"torrent-blitz": "127.0.0.1:1002"}
    assert b.claim_ladder("torrent-blitz").epoch == b.epoch
    a.stopped()
    states = {info.epoch: info.state for info in b.nodes()}
    assert states[a.epoch] == "stopped"
    assert a.heartbeat() is None


def test_join_tokens_name_one_bot_one_node_and_expire():
    secret = b"k" * 32
    token = make_join_token(secret, "ann.b", 7, expires=1000.0)
    assert read_join_token(secret, token, 7, now=999.0) == "ann.b"
    assert read_join_token(secret, token, 8, now=999.0) is None  # another node's
    assert read_join_token(secret, token, 7, now=1001.0) is None  # expired
    assert read_join_token(b"x" * 32, token, 7, now=999.0) is None  # another cluster's key
    forged = token.replace(token.split(".")[3], "Ym9i")  # "bob", same signature
    assert read_join_token(secret, forged, 7, now=999.0) is None
    assert read_join_token(secret, "a-bot-token", 7, now=999.0) is None
    # Two made for one bot in the same second differ (each is used once), and both are good.
    again = make_join_token(secret, "ann.b", 7, expires=1000.0)
    assert again != token and read_join_token(secret, again, 7, now=999.0) == "ann.b"
    used = UsedTokens()
    assert used.use(token, 999.0) and not used.use(token, 999.0) and used.use(again, 999.0)


def test_a_node_restarted_at_its_address_takes_its_old_registration_over_at_once(url):
    store_a, a = node(url, "127.0.0.1:1001")
    with_players(store_a)
    store_a.match_started(start("m1"))
    _, other = node(url, "127.0.0.1:1002")
    _, again = node(url, "127.0.0.1:1001")  # the same node, started again: a new epoch
    assert other.same_address() == [] and again.same_address() == [a.epoch]
    taken = again.take_over(a.epoch, force=True)  # its lease still runs: forced
    assert taken is not None and taken.match_ids == ("m1",)
    assert [h.epoch for h in other.hosts_of_bot("alpha")] == [again.epoch]
