"""The store under test (upgraded, on SQLite and on PostgreSQL) and the values the tests feed it."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
from arbiter.ladder.model import BotVersion, LadderConfig, Termination
from arbiter.store import MatchResult, MatchStart, MoveRow, SqlStore
from arbiter_games.policy import MatchPolicy
from arbiter_games.timecontrol import TimeControl

T0 = 1_800_000_000.0
ALPHA = BotVersion("alpha", "1.0")
BETA = BotVersion("beta", "2.1")


class Clock:
    """A settable clock for the store's own times (created_at, updated_at)."""

    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def store(store_url: str, clock: Clock) -> Iterator[SqlStore]:
    opened = SqlStore(store_url, clock=clock)
    opened.upgrade()
    yield opened
    opened.close()


def ladder(name: str = "torrent-blitz", **changes: Any) -> LadderConfig:
    config = LadderConfig(
        name=name,
        game="torrent",
        options={"size": 9},
        control=TimeControl(base=60.0, increment=0.5, per_decision=5.0),
        policy=MatchPolicy(on_timeout="default_action", on_illegal="reject"),
    )
    return replace(config, **changes)


def start(match_id: str = "m1", ladder: str | None = "torrent-blitz", **changes: Any) -> MatchStart:
    begun = MatchStart(
        match_id=match_id,
        game="torrent",
        options={"size": 9},
        seat_1=ALPHA,
        seat_2=BETA,
        seed="00ff" * 8,
        seed_commitment="sha256:" + "ab" * 32,
        control=TimeControl(base=60.0, increment=0.5),
        policy=MatchPolicy(),
        started_at=T0 + 100.0,
        ladder=ladder,
        rated=ladder is not None,
    )
    return replace(begun, **changes)


def move(ply: int, **changes: Any) -> MoveRow:
    played = MoveRow(
        ply=ply,
        seat=1 + ply % 2,
        action=f"a{ply}",
        turn_id=ply + 1,
        charged=0.25,
        clocks={"1": 59.5, "2": 60.0},
    )
    return replace(played, **changes)


def result(
    winner: int | None = 1, termination: Termination = Termination.GAME_END, **changes: Any
) -> MatchResult:
    ended = MatchResult(
        winner_seat=winner,
        scores={1: 40, 2: 41} if winner else {1: 40, 2: 40},
        reason="game_over",
        termination=termination,
        ended_at=T0 + 200.0,
    )
    return replace(ended, **changes)


def with_players(store: SqlStore, *bots: str) -> None:
    """The standard ladder and registered bots (ratings and mail need registered bots)."""
    store.add_ladder(ladder())
    for bot in bots or ("alpha", "beta"):
        store.add_bot(bot, owner=f"owner of {bot}")
