"""A result waiting for its commit keeps its bot on its worker (issue 20, item 18).

``arbiter serve --processes 2`` on PostgreSQL: a match on worker 1 ends (a forfeit) while the test
holds its row locked, so the store writer cannot commit the result and both MatchEnded wait. One
bot disconnects then, and reconnects to worker 0: it is sent back to worker 1 (it is still held
there), and once the lock goes its MatchEnded reaches it there. A worker that let the bot go
would welcome it on worker 0, where that result never comes.
"""

from __future__ import annotations

import asyncio

import psycopg
from arbiter.store import SqlStore
from arbiter_wire.v1 import bot_service_pb2 as pb

from tests.processes.harness import Served, serving
from tests.server.raw_client import RawBot

DATABASE = "processes_result_held"


async def until(condition, what: str, timeout: float = 60.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition():
        assert asyncio.get_running_loop().time() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.05)


async def next_of(bot: RawBot, kind: str) -> pb.PlayResponse:
    """The next message of ``kind``, passing over the others (seek_pending, ...)."""
    while True:
        message = await bot.next(timeout=60.0)
        if message.WhichOneof("kind") == kind:
            return message


def test_a_bot_gone_while_its_result_waits_for_the_commit_gets_it_on_its_worker(postgres_cluster, tmp_path):
    url = postgres_cluster.new_database(DATABASE)
    store = SqlStore(url)
    store.upgrade()
    tokens = {name: store.add_bot(name, f"owner of {name}") for name in ("ann", "ben")}
    lock = psycopg.connect(**postgres_cluster.connect_args(DATABASE))
    try:
        with serving(tmp_path, "--database", url) as served:
            asyncio.run(asyncio.wait_for(scenario(served, store, lock, tokens), 240))
    finally:
        lock.close()
        store.close()


async def scenario(served: Served, store: SqlStore, lock: psycopg.Connection, tokens: dict[str, str]) -> None:
    worker_1 = served.private(1)
    bots = {name: RawBot(worker_1, tokens[name]) for name in tokens}
    for bot in bots.values():
        await bot.expect("welcome")
        await bot.seek("torrent", {"size": 5})
    started = {name: (await next_of(bot, "match_started")).match_started for name, bot in bots.items()}
    match_id = started["ann"].match_id
    mover = "ann" if started["ann"].seat == 1 else "ben"
    gone = "ben" if mover == "ann" else "ann"
    await until(lambda: store.match_row(match_id) is not None, "the match's row")
    # The result cannot be committed while this lock is held (finish_match locks the row).
    lock.execute("SELECT id FROM matches WHERE id = %s FOR NO KEY UPDATE", (match_id,))
    turn = (await next_of(bots[mover], "turn")).turn
    forfeit = pb.Move(match_id=match_id, turn_id=turn.turn_id, action=pb.Action())  # malformed: lost
    await bots[mover].call.write(pb.PlayRequest(move=forfeit))
    await until(lambda: any(e.get("match_id") == match_id for e in served.events("match_ended")), "the end")
    await bots[gone].close()
    await until(lambda: bool(_closed(served, gone)), "the disconnect seen by worker 1")
    # It comes back on the other worker, which sends it to the worker holding it.
    probe = RawBot(served.private(0), tokens[gone])
    first = await probe.next(timeout=60.0)
    await probe.close()
    assert first.WhichOneof("kind") == "redirect", first
    assert first.redirect.address == worker_1 and first.redirect.reason == pb.REDIRECT_REASON_MATCHES
    back = RawBot(first.redirect.address, tokens[gone])
    await back.expect("welcome")
    lock.rollback()  # the commit goes through now
    for bot in (back, bots[mover]):
        ended = (await next_of(bot, "match_ended")).match_ended
        assert ended.match_id == match_id
    row = store.match_row(match_id)
    assert row is not None and row.status == "finished" and row.faulty_seat == started[mover].seat
    for bot in (back, bots[mover]):
        await bot.close()


def _closed(served: Served, bot: str) -> list[dict[str, object]]:
    return [e for e in served.events("session_closed") if e.get("bot") == bot and e.get("worker") == 1]
