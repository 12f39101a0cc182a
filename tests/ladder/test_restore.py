"""Matches rebuilt from the move log after a restart: resumed when both bots are back, else aborted."""

from __future__ import annotations

import asyncio
import secrets
import time

from arbiter.ladder.model import BotVersion
from arbiter.node import Arbiter, ArbiterConfig
from arbiter.sessions.auth import BotDirectory
from arbiter.store import MatchStart, MoveRow, SqlStore
from arbiter.transport.server import create_server
from arbiter_games.hexflank import Place
from arbiter_games.policy import MatchPolicy
from arbiter_games.timecontrol import TimeControl

from tests.server.raw_client import RawBot


def logged_match(store: SqlStore, tokens: dict[str, str]) -> str:
    """A Torrent-5 match the store lists as running, with two logged actions."""
    match_id = "m" + secrets.token_hex(7)
    seed = secrets.token_bytes(32)
    start = MatchStart(
        match_id=match_id,
        game="torrent",
        options={"size": 5},
        seat_1=BotVersion("ann", "v1"),
        seat_2=BotVersion("ben", "v1"),
        seed=seed.hex(),
        seed_commitment="",
        control=TimeControl(base=30.0),
        policy=MatchPolicy(),
        started_at=time.time(),
    )
    store.match_started(start)
    store.append_moves(
        match_id,
        [
            MoveRow(0, 1, "e5", turn_id=1, charged=0.5, clocks={"1": 29.5, "2": 30.0}),
            MoveRow(1, 2, "a5", turn_id=2, charged=2.0, clocks={"1": 29.5, "2": 28.0}),
        ],
    )
    return match_id


def setup_store(store_url: str) -> tuple[SqlStore, dict[str, str]]:
    store = SqlStore(store_url)
    store.upgrade()
    return store, {name: store.add_bot(name, "t") for name in ("ann", "ben")}


def test_a_logged_match_resumes_from_its_last_action_when_both_bots_are_back(store_url):
    store, tokens = setup_store(store_url)
    match_id = logged_match(store, tokens)

    async def scenario():
        config = ArbiterConfig(bots=BotDirectory())
        server = await create_server(config, arbiter=Arbiter(config, store=store))
        ann = RawBot(server.address, tokens["ann"])
        welcome = await ann.expect("welcome")
        resumed = await ann.expect("match_started")
        await asyncio.sleep(0.2)
        assert not [m for m in ann.received if m.WhichOneof("kind") == "turn"]  # no turn until Ben is back
        ben = RawBot(server.address, tokens["ben"])
        await ben.expect("welcome")
        await ben.expect("match_started")
        turn = await ann.expect("turn")
        await ann.move(match_id, turn.turn_id, Place("e1"))
        await ben.expect("turn")
        await ann.close()
        await ben.close()
        await server.stop(0.2)
        return welcome, resumed, turn

    welcome, resumed, turn = asyncio.run(scenario())
    assert list(welcome.resumed_match_ids) == [match_id]
    assert resumed.resumed and resumed.observation.flank.board.count("B") == 1
    assert resumed.observation.flank.board.count("W") == 1
    clocks = {c.seat: c.remaining.ToTimedelta().total_seconds() for c in turn.clocks}
    assert clocks == {1: 29.5, 2: 28.0}  # the outage is charged to no one
    assert turn.turn_id > 2  # above every id the bots may have seen before the restart
    moves = store.moves_of(match_id)
    assert [m.action for m in moves] == ["e5", "a5", "e1"] and moves[2].ply == 2
    store.close()


def test_a_logged_match_whose_bots_do_not_come_back_is_aborted_unrated(store_url):
    store, tokens = setup_store(store_url)
    match_id = logged_match(store, tokens)

    async def scenario():
        config = ArbiterConfig(bots=BotDirectory(), resume_grace=0.3)
        server = await create_server(config, arbiter=Arbiter(config, store=store))
        ann = RawBot(server.address, tokens["ann"])  # only one of the two comes back
        await ann.expect("welcome")
        await ann.expect("match_started")
        ended = await ann.expect("match_ended", timeout=5)
        await ann.close()
        await server.stop(0.2)
        return ended

    ended = asyncio.run(scenario())
    assert "not both back within 0.3 s" in ended.result.detail
    (row,) = [m for m in store.matches(limit=10) if m.match_id == match_id]
    assert row.status == "aborted" and not row.rated
    record = store.match_record(match_id)
    assert record is not None and record["result"]["reason"] == "aborted"
    store.close()
