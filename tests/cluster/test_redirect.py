"""A bot that connects to the "wrong" node of a cluster is sent to the right one and plays there:
with the Python SDK, and with a raw client doing what docs/cluster.md and docs/protocol.md say."""

from __future__ import annotations

import asyncio
import random

import grpc
from arbiter.ladder.model import LadderConfig
from arbiter.store import SqlStore
from arbiter_bot.client import Backoff, run_bot
from arbiter_bot.examples.random_bot import RandomBot
from arbiter_games.timecontrol import TimeControl
from arbiter_wire.v1 import bot_service_pb2 as pb
from sqlalchemy import text

from tests.cluster.harness import epochs, nodes, owners, wait_until
from tests.server.raw_client import RawBot, play_out

SPEC = ("torrent", {"size": 5})


def setup(url: str, *bots: str) -> tuple[SqlStore, dict[str, str]]:
    store = SqlStore(url)
    store.upgrade()
    tokens = {name: store.add_bot(name, f"owner of {name}") for name in bots}
    store.add_ladder(LadderConfig("t5", "torrent", {"size": 5}, TimeControl(base=60.0, increment=1.0)))
    return store, tokens


def ladder_epoch(store: SqlStore) -> int | None:
    with store.transaction() as session:
        return session.scalar(text("SELECT epoch FROM ladder_hosts WHERE ladder = 't5'"))


def test_the_sdk_follows_a_redirect_to_the_node_of_its_ladder(postgres_cluster, tmp_path):
    url = postgres_cluster.new_database("redirect_sdk")
    store, tokens = setup(url, "ann", "ben")
    backoff = Backoff(initial=0.1, maximum=0.5)
    with nodes(url, tmp_path, 2) as (one, two):

        async def scenario():
            ann = asyncio.create_task(
                run_bot(RandomBot(1), one.address, tokens["ann"], SPEC, games=2, ladder="t5", backoff=backoff)
            )
            await wait_until(lambda: ladder_epoch(store) is not None, 30, "ann's join to claim the ladder")
            ben = run_bot(
                RandomBot(2), two.address, tokens["ben"], SPEC, games=2, ladder="t5", backoff=backoff
            )
            return await asyncio.wait_for(asyncio.gather(ann, ben), 120)

        summaries = asyncio.run(scenario())
        first = epochs(store)[one.address]
        assert ladder_epoch(store) == first
        assert '"bot_redirected"' in two.text()
    assert [len(s) for s in summaries] == [2, 2]
    assert all(s.outcome != "unknown" for both in summaries for s in both)
    # Every match was hosted, and written, by the node that hosts the ladder.
    assert set(owners(store).values()) == {first}
    assert {row.status for row in store.matches("t5")} == {"finished"}
    store.close()


def test_a_raw_client_follows_the_redirect_as_the_protocol_says(postgres_cluster, tmp_path):
    url = postgres_cluster.new_database("redirect_raw")
    store, tokens = setup(url, "ann", "ben")
    with nodes(url, tmp_path, 2) as (one, two):

        async def scenario():
            ann = asyncio.create_task(
                run_bot(RandomBot(3), one.address, tokens["ann"], SPEC, games=1, ladder="t5")
            )
            await wait_until(lambda: ladder_epoch(store) is not None, 30, "ann's join to claim the ladder")
            # ben on the wrong node: Welcome, then its JoinLadder is answered with a Redirect.
            wrong = RawBot(two.address, tokens["ben"])
            await wrong.expect("welcome")
            await wrong.call.write(pb.PlayRequest(join_ladder=pb.JoinLadder(ladder="t5", max_concurrent=1)))
            redirect = await wrong.expect("redirect")
            assert await wrong.call.read() is grpc.aio.EOF  # nothing follows; the call ends
            assert await wrong.call.code() == grpc.StatusCode.OK
            await wrong.close()
            assert redirect.address == one.address and redirect.ladder == "t5"
            assert redirect.reason == pb.REDIRECT_REASON_LADDER
            assert redirect.join_token and redirect.join_token_expires_in.seconds == 30
            # The join token is good on the node it names only.
            elsewhere = RawBot(two.address, redirect.join_token)
            try:
                await elsewhere.next()
                raise AssertionError("a join token for another node was accepted")
            except grpc.aio.AioRpcError as exc:
                assert exc.code() == grpc.StatusCode.UNAUTHENTICATED
            await elsewhere.close()
            # Where it was sent, with the join token in place of its own token.
            right = RawBot(redirect.address, redirect.join_token)
            welcome = await right.expect("welcome")
            assert welcome.bot_name == "ben"
            await right.call.write(pb.PlayRequest(join_ladder=pb.JoinLadder(ladder="t5", max_concurrent=1)))
            await right.expect("ladder_joined")
            started = await right.expect("match_started")
            # While the match runs (its row is written just after it starts), a connection to the
            # other node is sent here at once.
            await wait_until(lambda: started.match_id in owners(store), 30, "the match's row")
            again = RawBot(two.address, tokens["ben"])
            sent = await again.expect("redirect")
            await again.close()
            assert sent.address == one.address and sent.reason == pb.REDIRECT_REASON_MATCHES
            rng = random.Random(5)
            ended = await play_out(right, lambda turn, legal: rng.choice(legal))
            await right.close()
            await asyncio.wait_for(ann, 60)
            return started.match_id, ended

        match_id, ended = asyncio.run(scenario())
        first = epochs(store)[one.address]
    assert ended.match_id == match_id and ended.result.reason
    assert owners(store) == {match_id: first}
    row = store.match_row(match_id)
    assert row is not None and row.status == "finished"
    store.close()
