"""Matches rebuilt from the move log after a restart: resumed when both bots are back; after the
resume grace, played on if one is (the absent one's clock runs), else aborted."""

from __future__ import annotations

import asyncio
import re
import secrets
import time
from pathlib import Path

from arbiter.ladder.model import BotVersion
from arbiter.match.match import TURN_IDS_AFTER_RESTORE
from arbiter.node import Arbiter, ArbiterConfig
from arbiter.sessions.auth import BotDirectory
from arbiter.store import MatchStart, MoveRow, SqlStore
from arbiter.transport.server import create_server
from arbiter_games.hexflank import Place
from arbiter_games.policy import MatchPolicy
from arbiter_games.timecontrol import TimeControl
from arbiter_wire import convert
from arbiter_wire.reasons import reason_of
from arbiter_wire.v1 import common_pb2

from tests.server.raw_client import RawBot


def logged_match(store: SqlStore, tokens: dict[str, str], ben_left: float = 28.0) -> str:
    """A Torrent-5 match the store lists as running, with two logged actions (Ann to move; Ben
    has ``ben_left`` seconds)."""
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
            MoveRow(1, 2, "a5", turn_id=2, charged=30.0 - ben_left, clocks={"1": 29.5, "2": ben_left}),
        ],
    )
    return match_id


def setup_store(store_url: str) -> tuple[SqlStore, dict[str, str]]:
    store = SqlStore(store_url)
    store.upgrade()
    return store, {name: store.add_bot(name, f"owner of {name}") for name in ("ann", "ben")}


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
        arbiter = Arbiter(config, store=store)
        server = await create_server(config, arbiter=arbiter)
        deadline = time.monotonic() + 10
        while (match_id in arbiter.hosting.matches or arbiter.hosting.untold) and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        ann = RawBot(server.address, tokens["ann"])  # back after the grace: the result waits
        welcome = await ann.expect("welcome")
        ended = await ann.expect("match_ended", timeout=5)
        await ann.close()
        await server.stop(0.2)
        return welcome, ended

    welcome, ended = asyncio.run(scenario())
    assert list(welcome.ended_match_ids) == [match_id]
    assert "neither bot was back within 0.3 s" in ended.result.detail
    (row,) = [m for m in store.matches(limit=10) if m.match_id == match_id]
    assert row.status == "aborted" and not row.rated
    record = store.match_record(match_id)
    assert record is not None and record["result"]["reason"] == "aborted"
    store.close()


def test_a_bot_that_stays_away_from_its_restored_match_loses_it_on_time(store_url):
    # Ann is back, Ben is not: once the grace is over the match plays on, and Ben's clock (1 s
    # left) runs as for any absence. Before, the match was aborted and Ann lost her result.
    store, tokens = setup_store(store_url)
    match_id = logged_match(store, tokens, ben_left=1.0)

    async def scenario():
        config = ArbiterConfig(bots=BotDirectory(), resume_grace=0.3)
        server = await create_server(config, arbiter=Arbiter(config, store=store))
        ann = RawBot(server.address, tokens["ann"])
        await ann.expect("welcome")
        await ann.expect("match_started")
        turn = await ann.expect("turn", timeout=5)  # after the grace, without Ben
        await ann.move(match_id, turn.turn_id, Place("e1"))
        while (message := await ann.next(timeout=10)).WhichOneof("kind") != "match_ended":
            pass  # MoveAcknowledged, Ben's turn going on without him
        ended = message.match_ended
        await ann.close()
        await server.stop(0.2)
        return ended

    ended = asyncio.run(scenario())
    assert ended.result.reason == common_pb2.END_REASON_TIMEOUT
    assert ended.result.winner_seat == common_pb2.SEAT_1 and ended.result.faulty_seat == common_pb2.SEAT_2
    (row,) = [m for m in store.matches(limit=10) if m.match_id == match_id]
    assert row.status == "finished"
    store.close()


def documented_jump() -> int:
    """The jump of turn ids after a restart, as docs/protocol.md gives it to bot authors."""
    text = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text()
    found = re.search(r"turn ids jump by ([\d,]+)", text)
    assert found is not None, "docs/protocol.md no longer says how far turn ids jump"
    return int(found.group(1).replace(",", ""))


def test_after_a_restore_turn_ids_jump_past_every_logged_one_and_an_old_turn_is_stale(store_url):
    # Issue 20, property 10. The log is that of a match restored once already: its last action
    # has turn id 10003 (the number of actions is 3). Ben's turn 10004 was pending when the
    # arbiter went down; after the restart his answer to it is STALE_TURN, the new turn's id is
    # at least 10003 + the documented jump, and an answer to that one is taken.
    store, tokens = setup_store(store_url)
    match_id = logged_match(store, tokens)
    store.append_moves(
        match_id, [MoveRow(2, 1, "e1", turn_id=10003, charged=0.5, clocks={"1": 29.0, "2": 28.0})]
    )
    jump = documented_jump()

    async def scenario():
        config = ArbiterConfig(bots=BotDirectory())
        server = await create_server(config, arbiter=Arbiter(config, store=store))
        ann, ben = RawBot(server.address, tokens["ann"]), RawBot(server.address, tokens["ben"])
        for bot in (ann, ben):
            await bot.expect("welcome")
            await bot.expect("match_started")
        turn = await ben.expect("turn")
        assert turn.turn_id >= 10003 + jump, turn.turn_id
        action = convert.legal_from_pb(turn.legal)[0]
        await ben.move(match_id, 10004, action)
        stale = await ben.expect("move_rejected")
        await ben.move(match_id, turn.turn_id, action)
        await ann.expect("turn")
        await ann.close()
        await ben.close()
        await server.stop(0.2)
        return stale

    stale = asyncio.run(scenario())
    assert jump == TURN_IDS_AFTER_RESTORE
    assert (stale.turn_id, reason_of(stale.status)) == (10004, "STALE_TURN")
    assert [m.action for m in store.moves_of(match_id)][:3] == ["e5", "a5", "e1"]
    assert len(store.moves_of(match_id)) == 4
    store.close()
