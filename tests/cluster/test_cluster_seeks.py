"""Seeks paired across the nodes of a cluster, on a real PostgreSQL with real ``arbiter serve``
processes: with the Python SDK, with a raw client doing what docs/protocol.md says, with many bots
on three nodes, and with a seek left on a node that is then killed."""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from typing import Any

import grpc
from arbiter.store import MatchRow, SqlStore
from arbiter_bot.client import Backoff, Session, run_bot
from arbiter_bot.examples.random_bot import RandomBot
from arbiter_wire import convert
from arbiter_wire.v1 import bot_service_pb2 as pb
from sqlalchemy import text

from tests.cluster.checks import log_events, started_once
from tests.cluster.harness import HEARTBEAT, LEASE, epochs, nodes, owners, wait_until, wind_down
from tests.server.raw_client import RawBot, play_out

SPEC = ("torrent", {"size": 5})
BACKOFF = Backoff(initial=0.1, maximum=0.5)


def setup(url: str, *bots: str) -> tuple[SqlStore, dict[str, str]]:
    store = SqlStore(url)
    store.upgrade()
    return store, {name: store.add_bot(name, f"owner of {name}") for name in bots}


def open_seeks(store: SqlStore) -> list[tuple[str, int]]:
    """(bot, epoch) of every open seek row."""
    with store.transaction() as session:
        rows = session.execute(
            text("SELECT bot, epoch FROM cluster_seeks WHERE claimed_by IS NULL ORDER BY id")
        ).all()
    return [(str(r[0]), int(r[1])) for r in rows]


def test_two_bots_seeking_on_two_nodes_play_one_match_on_one_node(postgres_cluster, tmp_path):
    url = postgres_cluster.new_database("seeks_sdk")
    store, tokens = setup(url, "ann", "ben")
    with nodes(url, tmp_path, 2) as (one, two):
        first, second = epochs(store)[one.address], epochs(store)[two.address]

        async def scenario():
            ann = asyncio.create_task(
                run_bot(RandomBot(1), one.address, tokens["ann"], SPEC, games=1, backoff=BACKOFF)
            )
            await wait_until(lambda: open_seeks(store) == [("ann", first)], 30, "ann's seek on node 1")
            ben = run_bot(RandomBot(2), two.address, tokens["ben"], SPEC, games=1, backoff=BACKOFF)
            return await asyncio.wait_for(asyncio.gather(ann, ben), 120)

        (ann_games, ben_games) = asyncio.run(scenario())
        logs = [one.text(), two.text()]
    # ben's seek came to node 2, which claimed ann's waiting seek and hosted the match; ann was
    # sent there.
    assert [(s.match_id, s.opponent_name) for s in ann_games] == [(ben_games[0].match_id, "ben")]
    assert ann_games[0].outcome != "unknown" and ben_games[0].outcome != "unknown"
    match_id = ann_games[0].match_id
    assert owners(store) == {match_id: second}
    assert started_once(logs) == Counter({match_id: 1})
    assert [r["bot"] for r in log_events(logs[:1], "bot_redirected")] == ["ann"]
    row = store.match_row(match_id)
    assert row is not None and row.status == "finished" and row.seat_1.bot == "ann"  # it waited longer
    # The result was written once, and the match's record by its node only.
    assert len(store.matches(limit=100)) == 1
    assert [p.parent.name for p in tmp_path.glob(f"records-*/*-{match_id}.json")] == [f"records-{two.port}"]
    assert "FencedWrite" not in "".join(logs)
    store.close()


def seek(seek_id: str) -> pb.PlayRequest:
    """A Torrent seek with the defaults (size 7, the arbiter's time control)."""
    return pb.PlayRequest(seek=pb.Seek(spec=convert.spec_to_pb("torrent", {}), seek_id=seek_id))


def test_a_raw_client_sent_to_its_match_on_the_other_node(postgres_cluster, tmp_path):
    """What a bot observes (docs/protocol.md, "Clusters: Redirect"): SeekPending, then a
    Redirect (REDIRECT_REASON_MATCHES) ending the call; on the other node, Welcome listing the
    match and MatchStarted{resumed: true}; the first Turn comes only once it is there. Which of
    the two bots is sent depends on which node pairs the seeks first; both ways are checked."""
    url = postgres_cluster.new_database("seeks_raw")
    store, tokens = setup(url, "ann", "ben")
    with nodes(url, tmp_path, 2) as (one, two):

        async def scenario():
            ann = RawBot(one.address, tokens["ann"])
            await ann.expect("welcome")
            await ann.call.write(seek("a1"))
            pending = await ann.expect("seek_pending")
            assert pending.seek_id == "a1" and pending.waiting == 1
            ben = RawBot(two.address, tokens["ben"])
            await ben.expect("welcome")
            await ben.call.write(seek("b1"))
            # The pairing is made by whichever node claims the other's seek first (ben's node on
            # its seek, or ann's at its next beat): that node hosts the match and its bot hears
            # MatchStarted at once; the other bot is sent there.
            kind, first = await first_of(ben, ("match_started", "redirect"))
            if kind == "match_started":
                here, started, moved, target = ben, first, ann, two
                redirect = await ann.expect("redirect", timeout=10)
            else:
                here, moved, target, redirect = ann, ben, one, first
                started = await ann.expect("match_started", timeout=10)
                kinds = [m.WhichOneof("kind") for m in ben.received]
                assert kinds.index("seek_pending") < kinds.index("redirect")  # as docs/protocol.md says
            assert started.seek_id in ("a1", "b1") and not started.resumed
            assert await moved.call.read() is grpc.aio.EOF
            assert await moved.call.code() == grpc.StatusCode.OK
            await moved.close()
            assert redirect.address == target.address and redirect.reason == pb.REDIRECT_REASON_MATCHES
            assert redirect.ladder == "" and redirect.join_token_expires_in.seconds == 30
            # No turn before the moved bot is there: the match waits, its clocks stopped.
            await asyncio.sleep(4 * HEARTBEAT)
            assert "turn" not in [m.WhichOneof("kind") for m in here.received]
            there = RawBot(redirect.address, redirect.join_token)
            welcome = await there.expect("welcome")
            assert list(welcome.resumed_match_ids) == [started.match_id]
            resumed = await there.expect("match_started")
            assert resumed.resumed and resumed.match_id == started.match_id
            rng = random.Random(7)
            both = await asyncio.gather(
                play_out(there, lambda turn, legal: rng.choice(legal)),
                play_out(here, lambda turn, legal: rng.choice(legal)),
            )
            await there.close()
            await here.close()
            return started.match_id, both, target

        match_id, (one_end, other_end), host = asyncio.run(scenario())
    assert one_end.match_id == other_end.match_id == match_id
    assert owners(store) == {match_id: epochs(store)[host.address]}
    store.close()


async def first_of(bot: RawBot, kinds: tuple[str, ...], timeout: float = 10.0) -> tuple[str, Any]:
    """The first message of one of ``kinds`` the bot receives (others are kept in ``received``)."""
    while True:
        message = await bot.next(timeout)
        kind = message.WhichOneof("kind")
        if kind in kinds:
            return kind, getattr(message, kind)


def most_at_once(rows: list[MatchRow]) -> Counter[str]:
    """Per bot: the most matches it had at one moment (from each match's start to its end)."""
    marks: dict[str, list[tuple[float, int]]] = {}
    for row in rows:
        for bot in {row.seat_1.bot, row.seat_2.bot}:
            marks.setdefault(bot, []).append((row.started_at, 1))
            marks[bot].append((row.ended_at if row.ended_at is not None else float("inf"), -1))
    most: Counter[str] = Counter()
    for bot, points in marks.items():
        running = 0
        for _, step in sorted(points):  # an end sorts before a start at the same moment
            running += step
            most[bot] = max(most[bot], running)
    return most


def test_many_bots_on_three_nodes_seeking_at_once(postgres_cluster, tmp_path):
    url = postgres_cluster.new_database("seeks_many")
    names = [f"bot{i:02d}" for i in range(12)]
    store, tokens = setup(url, *names)
    slots = {name: 2 if i % 3 == 0 else 1 for i, name in enumerate(names)}
    with nodes(url, tmp_path, 3) as cluster:
        addresses = [node.address for node in cluster]

        def bot(i: int) -> Session:
            seeds = ",".join(addresses[i % 3 :] + addresses[: i % 3])  # spread over the three nodes
            return Session(
                RandomBot(i), seeds, tokens[names[i]], SPEC, max_concurrent=slots[names[i]], backoff=BACKOFF
            )

        sessions = [bot(i) for i in range(len(names))]

        async def scenario():
            tasks = [asyncio.create_task(s.run()) for s in sessions]  # all at once
            enough = lambda: sum(1 for r in store.matches(limit=1000) if r.status != "running") >= 24  # noqa: E731
            await wind_down(sessions, tasks, enough, 180)

        asyncio.run(scenario())
        # A seek still open when its bot stopped may have been paired: that match waits for the
        # bot, and is aborted (unrated) when the nodes stop.
        logs_before_stop = [node.text() for node in cluster]
    logs = [node.text() for node in cluster]
    rows = store.matches(limit=1000)
    counts = started_once(logs)
    assert set(counts) == {r.match_id for r in rows} and set(counts.values()) == {1}  # each hosted once
    assert all(r.status in ("finished", "aborted") for r in rows)
    assert sum(1 for r in rows if r.status == "finished") >= 24
    assert all(not r.rated for r in rows)
    # Some matches were paired across nodes (a bot was sent to another node).
    assert log_events(logs_before_stop, "bot_redirected")
    assert len(set(owners(store).values())) >= 2
    most = most_at_once(rows)
    assert all(most[bot] <= slots[bot] for bot in most), (most, slots)
    assert "FencedWrite" not in "".join(logs)
    store.close()


def test_a_seek_of_a_bot_that_left_or_on_a_killed_node_is_never_paired(postgres_cluster, tmp_path):
    url = postgres_cluster.new_database("seeks_killed")
    store, tokens = setup(url, "ann", "ben", "cal")
    with nodes(url, tmp_path, 2) as (one, two):
        first = epochs(store)[one.address]

        async def scenario():
            # A bot that leaves takes its seek along.
            cal = RawBot(two.address, tokens["cal"])
            await cal.expect("welcome")
            await cal.seek("torrent", {"size": 5})
            await cal.expect("seek_pending")
            assert [bot for bot, _ in open_seeks(store)] == ["cal"]
            await cal.close()
            await wait_until(lambda: open_seeks(store) == [], 10, "cal's seek to go")
            ann = RawBot(one.address, tokens["ann"])
            await ann.expect("welcome")
            await ann.seek("torrent", {"size": 5})
            await ann.expect("seek_pending")
            one.kill()
            await ann.close()
            # Node 2 takes the dead node over once its lease has run out: ann's seek goes with it.
            await wait_until(lambda: '"cluster_took_over"' in two.text(), 3 * LEASE, "the takeover")
            assert open_seeks(store) == []
            ben = RawBot(two.address, tokens["ben"])
            await ben.expect("welcome")
            await ben.seek("torrent", {"size": 5})
            pending = await ben.expect("seek_pending")
            assert pending.waiting == 1  # ben's own
            await asyncio.sleep(4 * HEARTBEAT)  # a few heartbeats' retries: still nothing
            try:
                message = await ben.next(timeout=0.5)
                raise AssertionError(f"ben got {message}")
            except TimeoutError:
                pass
            await ben.close()

        asyncio.run(scenario())
        assert log_events([two.text()], "match_started") == []
        with store.transaction() as session:
            killed = session.scalar(text("SELECT state FROM cluster_nodes WHERE epoch = :e"), {"e": first})
    assert killed == "dead"
    assert store.matches(limit=10) == []
    store.close()
