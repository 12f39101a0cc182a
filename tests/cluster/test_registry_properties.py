"""What the cluster's registry never does, whatever the timing (issue 20, properties 11 to 13).

- A node that is not active (draining, stopped, dead) takes nobody over: nothing, no change.
- A ladder whose host's lease ran out is not claimed before that host is taken over (nor a ladder
  whose host drains: it hands it over at the end of its drain), so two nodes never rate one ladder.
- A hand-over never picks a node whose lease ran out.

A registration's lease is short (0.3 s) for the node that is to expire and long (60 s) for the
others, so that no live node's lease can run out while a test runs, even on a loaded machine.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from arbiter.cluster import NodeRegistry
from arbiter.store import SqlStore
from sqlalchemy import text

from tests.store.conftest import ladder, start, with_players

LIVE_LEASE = 60.0
SHORT_LEASE = 0.3
#: Longer than SHORT_LEASE: the short lease has run out by the database's clock afterwards.
PAST_SHORT_LEASE = 0.6


@pytest.fixture
def url(postgres_cluster, request):
    return postgres_cluster.new_database(f"props_{request.node.name[-40:].lower()}")


def node(url: str, address: str, lease: float = LIVE_LEASE) -> tuple[SqlStore, NodeRegistry]:
    store = SqlStore(url)
    store.upgrade()
    registry = NodeRegistry(store, address, lease)
    store.fence_epoch = registry.register()
    return store, registry


def cluster_rows(store: SqlStore) -> dict[str, list[tuple[Any, ...]]]:
    """Every row a takeover, a claim or a hand-over could change."""
    queries = {
        "nodes": "SELECT epoch, state, taken_by, lease_expires FROM cluster_nodes ORDER BY epoch",
        "matches": "SELECT id, owner_epoch, status FROM matches ORDER BY id",
        "ladders": "SELECT ladder, epoch, claimed_at FROM ladder_hosts ORDER BY ladder",
        "seeks": "SELECT id, epoch, claimed_by FROM cluster_seeks ORDER BY id",
    }
    with store.transaction() as session:
        return {name: [tuple(row) for row in session.execute(text(sql))] for name, sql in queries.items()}


def test_a_node_that_is_not_active_takes_nobody_over(url):
    store_a, a = node(url, "127.0.0.1:1001", lease=SHORT_LEASE)  # to be found expired
    with_players(store_a)
    assert store_a.match_started(start("m1"))
    assert a.claim_ladder("torrent-blitz").epoch == a.epoch
    _, draining = node(url, "127.0.0.1:1002")
    draining.drain()
    _, stopped = node(url, "127.0.0.1:1003")
    stopped.stopped()
    _, dead = node(url, "127.0.0.1:1004")
    _, taker = node(url, "127.0.0.1:1005")
    assert taker.take_over(dead.epoch, force=True) is not None  # dead: taken over by taker
    time.sleep(PAST_SHORT_LEASE)
    assert a.epoch in taker.expired()
    before = cluster_rows(store_a)
    for registry in (draining, stopped, dead):
        assert registry.take_over(a.epoch) is None
        assert registry.take_over(a.epoch, force=True) is None
        assert cluster_rows(store_a) == before, registry.address
    # An active node still may: the refusals above were not for want of an expired node.
    taken = taker.take_over(a.epoch)
    assert taken is not None and taken.match_ids == ("m1",) and taken.ladders == ("torrent-blitz",)


@pytest.mark.parametrize("host_state", ["active", "draining"])
def test_a_ladder_whose_host_lease_ran_out_is_claimed_only_after_a_takeover(url, host_state):
    store_a, a = node(url, "127.0.0.1:1001", lease=SHORT_LEASE)
    with_players(store_a)
    assert a.claim_ladder("torrent-blitz").epoch == a.epoch
    if host_state == "draining":
        a.drain()
    _, b = node(url, "127.0.0.1:1002")
    time.sleep(PAST_SHORT_LEASE)
    before = cluster_rows(store_a)
    host = b.claim_ladder("torrent-blitz")
    assert (host.epoch, host.live) == (a.epoch, False)  # the expired host, as it is
    assert cluster_rows(store_a) == before  # nothing claimed
    assert b.take_over(a.epoch) is not None  # the takeover moves the ladder, in one transaction
    assert b.claim_ladder("torrent-blitz").epoch == b.epoch


def test_a_ladder_whose_host_drains_stays_with_it_until_its_hand_over(url):
    store_a, a = node(url, "127.0.0.1:1001")
    with_players(store_a)
    assert a.claim_ladder("torrent-blitz").epoch == a.epoch
    _, b = node(url, "127.0.0.1:1002")
    a.drain()  # its matches of the ladder may still be running: it still rates the ladder
    before = cluster_rows(store_a)
    host = b.claim_ladder("torrent-blitz")
    assert (host.epoch, host.state, host.live) == (a.epoch, "draining", True)
    assert cluster_rows(store_a) == before
    assert a.hand_over() == {"torrent-blitz": "127.0.0.1:1002"}
    assert b.claim_ladder("torrent-blitz").epoch == b.epoch


def test_a_hand_over_never_picks_a_node_whose_lease_ran_out(url):
    store_a, a = node(url, "127.0.0.1:1001")
    with_players(store_a)
    store_a.add_ladder(ladder("second"))
    store_a.add_ladder(ladder("third"))
    assert a.claim_ladder("torrent-blitz").epoch == a.epoch
    # b hosts no ladder (the fewest) and has the lowest epoch: the first pick, were it live.
    _, b = node(url, "127.0.0.1:1002", lease=SHORT_LEASE)
    _, c = node(url, "127.0.0.1:1003")
    assert c.claim_ladder("second").epoch == c.epoch
    time.sleep(PAST_SHORT_LEASE)
    assert b.epoch in a.expired()
    a.drain()
    assert a.hand_over() == {"torrent-blitz": "127.0.0.1:1003"}
    # With no live active node left but b (expired) and a (draining), nothing moves.
    assert c.claim_ladder("third").epoch == c.epoch
    c.drain()
    before = cluster_rows(store_a)
    assert c.hand_over() == {}
    assert cluster_rows(store_a) == before
