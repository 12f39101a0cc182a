"""SIGTERM drains a node: it starts no new match, lets its running matches finish, hands its
ladder to another node and sends its bots there; the bots play on without noticing."""

from __future__ import annotations

import asyncio
import time

from arbiter.ladder.model import LadderConfig
from arbiter.store import SqlStore
from arbiter_bot.client import Backoff, Session
from arbiter_bot.examples.random_bot import RandomBot
from arbiter_games.timecontrol import TimeControl
from sqlalchemy import text

from tests.cluster.checks import log_events, most_at_once, ratings_match_a_recompute, started_once
from tests.cluster.harness import epochs, nodes, owners, play_until

BOTS = 6


class Slow(RandomBot):
    def choose(self, observation, legal, context):
        time.sleep(0.01)
        return super().choose(observation, legal, context)


def running_on(store: SqlStore, epoch: int) -> set[str]:
    with store.transaction() as session:
        found = session.execute(
            text("SELECT id FROM matches WHERE status = 'running' AND owner_epoch = :e"), {"e": epoch}
        ).scalars()
        return {str(match_id) for match_id in found}


def test_sigterm_drains_a_node_and_its_bots_play_on_elsewhere(postgres_cluster, tmp_path):
    url = postgres_cluster.new_database("drain")
    store = SqlStore(url)
    store.upgrade()
    names = [f"bot{i}" for i in range(BOTS)]
    tokens = {name: store.add_bot(name, f"owner of {name}") for name in names}
    store.add_ladder(LadderConfig("t5", "torrent", {"size": 5}, TimeControl(base=60.0, increment=1.0)))
    backoff = Backoff(initial=0.1, maximum=0.5)
    with nodes(url, tmp_path, 2) as (one, two):
        e1, e2 = epochs(store)[one.address], epochs(store)[two.address]
        seeds = f"{one.address},{two.address}"

        sessions = [
            Session(
                Slow(i),
                seeds,
                tokens[name],
                ("torrent", {"size": 5}),
                max_concurrent=1 + i % 2,
                ladder="t5",
                backoff=backoff,
            )
            for i, name in enumerate(names)
        ]
        state: dict[str, object] = {}

        def after_drain() -> bool:
            if "code" not in state:
                if len(running_on(store, e1)) < 2:
                    return False
                state["in_flight"] = running_on(store, e1)
                one.terminate()
                state["code"] = None
                return False
            assert one.process is not None
            if state["code"] is None and one.process.poll() is not None:
                state["code"] = one.process.returncode
            later = sum(1 for epoch in owners(store).values() if epoch == e2)
            return state["code"] is not None and later >= 2 * BOTS

        async def scenario():
            await play_until(sessions, after_drain, 240)
            return state["in_flight"], state["code"], [s.summaries for s in sessions]

        in_flight, code, summaries = asyncio.run(scenario())
        logs = [one.text(), two.text()]
        # While node 2 runs: it hosts the ladder now; node 1 left the cluster cleanly.
        with store.transaction() as session:
            assert session.scalar(text("SELECT epoch FROM ladder_hosts WHERE ladder = 't5'")) == e2
            left = session.scalar(text("SELECT state FROM cluster_nodes WHERE epoch = :e"), {"e": e1})
            assert left == "stopped"
        with store.transaction() as session:
            assert session.scalar(text("SELECT epoch FROM ladder_hosts WHERE ladder = 't5'")) == e2
            assert (
                session.scalar(text("SELECT state FROM cluster_nodes WHERE epoch = :e"), {"e": e1})
                == "stopped"
            )
    assert code == 0
    # Node 1's matches running at the SIGTERM were played to their end there, none aborted.
    for match_id in in_flight:
        row = store.match_row(match_id)
        assert row is not None and row.status == "finished", (match_id, row)
    # Node 1 started nothing after the SIGTERM; the bots went on playing on node 2.
    stopping = min(str(r["timestamp"]) for r in log_events([logs[0]], "cluster_draining"))
    late_starts = [r for r in log_events([logs[0]], "match_started") if str(r["timestamp"]) > stopping]
    assert late_starts == []
    assert any(epoch == e2 for epoch in owners(store).values())
    assert '"bot_redirected"' in logs[0]
    assert all(s and all(m.outcome != "unknown" for m in s) for s in summaries)
    assert all(row.status == "finished" for row in store.matches("t5", limit=10_000))
    assert all(count == 1 for count in started_once(logs).values())
    for (_, bot), most in most_at_once(store).items():
        assert most <= 1 + names.index(bot) % 2
    assert ratings_match_a_recompute(store, "t5")
    store.close()
