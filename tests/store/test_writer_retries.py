"""The store writer's retries: a write the database drops half way is done again, and only once."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from arbiter.hosting.persistence import StoreWriter
from arbiter.ladder.host import LadderResult
from arbiter.ladder.model import Termination
from arbiter.match.events import MatchEnd, MatchEnded, MatchFacts
from arbiter.store import SqlStore, StoreError
from arbiter_games import get_game
from arbiter_games.policy import MatchPolicy
from arbiter_games.timecontrol import TimeControl

from tests.store.conftest import T0, start, with_players

LADDER = "torrent-blitz"


def ended(match_id: str) -> MatchEnded:
    facts = MatchFacts(
        match_id=match_id,
        game=get_game("torrent"),
        options={"size": 9},
        bots={1: "alpha", 2: "beta"},
        control=TimeControl(base=60.0, increment=0.5),
        policy=MatchPolicy(),
        seed_commitment="sha256:" + "ab" * 32,
        ladder=LADDER,
        rated=False,
    )
    end = MatchEnd(reason="timeout", winner_seat=2, scores={1: 0, 2: 1}, faulty_seat=1)
    return MatchEnded(facts, end, {}, {}, "", [], {"ended_at": T0 + 200.0})


def reckoning(match_id: str) -> LadderResult:
    return LadderResult(
        match_id=match_id,
        ladder=LADDER,
        termination=Termination.TIMEOUT,
        rated=False,
        changes=(),
        tallies={},
        failed={"alpha": True, "beta": False},
        paused={},
        failure_limit=3,
    )


def test_a_failure_whose_count_the_database_dropped_after_the_result_was_committed_is_counted(
    store: SqlStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The result commits, then the database goes away before the bots' runs of failures are
    # written: the retry must still write them (the result itself is not written again).
    with_players(store)
    store.match_started(start("m1", rated=False))
    real = store.record_outcome_for_bot
    calls: list[str] = []

    def flaky(*args: Any) -> bool:
        calls.append(args[1])
        if len(calls) == 1:
            raise StoreError("database error: the connection is lost", transient=True)
        return real(*args)

    monkeypatch.setattr(store, "record_outcome_for_bot", flaky)
    writer = StoreWriter(store, sleep=lambda seconds: None)

    async def scenario() -> None:
        writer.ladder_result(reckoning("m1"))
        writer(ended("m1"))
        await writer.settle(30.0)
        await writer.close()

    asyncio.run(scenario())
    row = store.match_row("m1")
    assert row is not None and row.status == "finished"
    assert calls == ["alpha", "alpha", "beta"]
    assert store.failures_in_a_row(LADDER, "alpha") == 1
    assert store.failures_in_a_row(LADDER, "beta") == 0
