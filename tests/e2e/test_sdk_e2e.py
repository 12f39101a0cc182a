"""The SDK against the real arbiter: full matches, the seed check, auth, replacement, resume, retries."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Sequence
from typing import Any

import pytest

pytest.importorskip("arbiter.transport.server")

from arbiter.node import ArbiterConfig
from arbiter.sessions.auth import BotDirectory
from arbiter.transport.server import RunningServer, create_server
from arbiter_bot import (
    AuthenticationError,
    Backoff,
    BadRequestError,
    Bot,
    MatchSummary,
    Rejection,
    ReplacedError,
    Session,
    TimeControl,
    TurnContext,
    run_bot,
)
from arbiter_bot.examples.greedy_flank import GreedyFlankBot
from arbiter_bot.examples.random_bot import RandomBot
from arbiter_bot.examples.surge_tips import SurgeTipsBot
from arbiter_games.hexflank import Place
from arbiter_games.policy import MatchPolicy
from arbiter_games.timecontrol import TimeControl as ServerTimeControl

TOKENS = {"alice": "token-alice", "bob": "token-bob"}
FAST = Backoff(initial=0.05, factor=2.0, maximum=0.2, jitter=0.1)
TIMEOUT = 60.0


@contextlib.asynccontextmanager
async def running_server(policy: MatchPolicy | None = None) -> AsyncIterator[RunningServer]:
    bots = BotDirectory()
    for name, token in TOKENS.items():
        bots.add(name, token)
    config = ArbiterConfig(
        bots=bots, default_control=ServerTimeControl(base=30.0, increment=1.0), policy=policy or MatchPolicy()
    )
    server = await create_server(config)
    try:
        yield server
    finally:
        await server.stop(grace=0.5)


async def pair(
    server: RunningServer, alice: Bot, bob: Bot, spec: Any, games: int, **kwargs: Any
) -> tuple[list[MatchSummary], list[MatchSummary]]:
    a = run_bot(alice, server.address, TOKENS["alice"], spec, games=games, backoff=FAST, **kwargs)
    b = run_bot(bob, server.address, TOKENS["bob"], spec, games=games, backoff=FAST, **kwargs)
    got = await asyncio.wait_for(asyncio.gather(a, b), TIMEOUT)
    return got[0], got[1]


def assert_consistent(mine: Sequence[MatchSummary], theirs: Sequence[MatchSummary]) -> None:
    assert {s.match_id for s in mine} == {s.match_id for s in theirs}
    by_id = {s.match_id: s for s in theirs}
    for s in mine:
        other = by_id[s.match_id]
        assert s.seat != other.seat
        assert s.scores == other.scores
        assert s.winner_seat == other.winner_seat
        assert s.outcome in ("win", "loss", "draw")
        assert s.reason not in ("illegal_action", "malformed_action", "timeout")


def test_torrent_matches_between_sdk_bots() -> None:
    async def scenario() -> tuple[list[MatchSummary], list[MatchSummary]]:
        async with running_server() as server:
            return await pair(server, GreedyFlankBot(1), RandomBot(2), ("torrent", {"size": 5}), games=2)

    alice, bob = asyncio.run(scenario())
    assert len(alice) == len(bob) == 2
    assert_consistent(alice, bob)
    assert sorted(s.seat for s in alice) == [1, 2]  # seats alternate between the same two bots
    assert all(s.seed_verified is None for s in alice)
    assert all(s.actions and s.final_observation is not None for s in alice)


def test_surge_match_seed_is_verified_on_both_sides() -> None:
    async def scenario() -> tuple[list[MatchSummary], list[MatchSummary]]:
        async with running_server() as server:
            return await pair(server, SurgeTipsBot(1), RandomBot(2), "surge", games=1, strict_seed=True)

    alice, bob = asyncio.run(scenario())
    assert_consistent(alice, bob)
    for summary in alice + bob:
        assert summary.seed_verified is True, summary.seed_problems
        assert len(summary.seed) == 64


def test_concurrent_matches_with_a_time_control() -> None:
    control = TimeControl(base=20.0, increment=0.5, per_decision=5.0)

    async def scenario() -> tuple[list[MatchSummary], list[MatchSummary]]:
        async with running_server() as server:
            return await pair(
                server,
                RandomBot(1),
                RandomBot(2),
                ("fravan", {"size": 5}),
                games=3,
                time_control=control,
                max_concurrent=2,
            )

    alice, bob = asyncio.run(scenario())
    assert len(alice) == len(bob) == 3
    assert_consistent(alice, bob)


def test_wrong_token_raises_authentication_error() -> None:
    async def scenario() -> None:
        async with running_server() as server:
            await asyncio.wait_for(run_bot(RandomBot(), server.address, "nope", "surge", games=1), TIMEOUT)

    with pytest.raises(AuthenticationError) as caught:
        asyncio.run(scenario())
    assert caught.value.reason == "BAD_TOKEN"


def test_bad_seek_raises_bad_request() -> None:
    async def scenario() -> None:
        async with running_server() as server:
            await asyncio.wait_for(
                run_bot(RandomBot(), server.address, TOKENS["alice"], ("torrent", {"size": 4}), games=1),
                TIMEOUT,
            )

    with pytest.raises(BadRequestError) as caught:
        asyncio.run(scenario())
    assert caught.value.reason == "BAD_REQUEST"


def test_second_connection_replaces_the_first() -> None:
    async def scenario() -> None:
        async with running_server() as server:
            first = asyncio.create_task(
                run_bot(RandomBot(), server.address, TOKENS["alice"], "surge", backoff=FAST)
            )
            await asyncio.sleep(0.5)  # the first session is open and seeking
            second = asyncio.create_task(
                run_bot(RandomBot(), server.address, TOKENS["alice"], "surge", backoff=FAST)
            )
            try:
                await asyncio.wait_for(first, TIMEOUT)
            finally:
                second.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await second

    with pytest.raises(ReplacedError) as caught:
        asyncio.run(scenario())
    assert caught.value.reason == "REPLACED"


class DroppingBot(RandomBot):
    """Drops its connection once, in the middle of its third turn, then plays on."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.session: Session | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self.turns = 0
        self.dropped = False

    def choose(self, observation: Any, legal: Sequence[Any], context: TurnContext) -> Any:
        self.turns += 1
        if self.turns == 3 and self.session is not None and self.loop is not None:
            self.dropped = True
            self.loop.call_soon_threadsafe(self.session.drop_connection)
        return super().choose(observation, legal, context)


def test_a_dropped_connection_resumes_the_match() -> None:
    async def scenario() -> tuple[list[MatchSummary], list[MatchSummary], DroppingBot]:
        async with running_server() as server:
            bot = DroppingBot(3)
            bot.loop = asyncio.get_running_loop()
            session = Session(
                bot, server.address, TOKENS["alice"], ("torrent", {"size": 5}), games=1, backoff=FAST
            )
            bot.session = session
            other = run_bot(RandomBot(4), server.address, TOKENS["bob"], ("torrent", {"size": 5}), games=1)
            got = await asyncio.wait_for(asyncio.gather(session.run(), other), TIMEOUT)
            return got[0], got[1], bot

    alice, bob, bot = asyncio.run(scenario())
    assert bot.dropped
    assert_consistent(alice, bob)
    assert alice[0].outcome in ("win", "loss")


class IllegalFirstBot(RandomBot):
    """Answers its first turn with an off-board point, then legally once refused."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.rejections: list[Rejection] = []
        self.retried_with: list[int] = []

    def choose(self, observation: Any, legal: Sequence[Any], context: TurnContext) -> Any:
        if not context.rejections and context.turn_id <= 2:  # its first turn
            return Place("z99")
        if context.rejections:
            self.retried_with.append(len(context.rejections))
        return super().choose(observation, legal, context)

    def on_move_rejected(self, rejection: Rejection) -> None:
        self.rejections.append(rejection)


def test_rejected_moves_are_retried_under_the_reject_policy() -> None:
    async def scenario() -> tuple[list[MatchSummary], list[MatchSummary], IllegalFirstBot]:
        async with running_server(MatchPolicy(on_illegal="reject")) as server:
            bot = IllegalFirstBot(5)
            alice, bob = await pair(server, bot, RandomBot(6), ("torrent", {"size": 5}), games=1)
            return alice, bob, bot

    alice, bob, bot = asyncio.run(scenario())
    assert_consistent(alice, bob)
    assert bot.rejections and all(r.reason == "ILLEGAL_ACTION" and r.may_retry for r in bot.rejections)
    assert bot.retried_with and all(n == 1 for n in bot.retried_with)


class SlowFirstBot(RandomBot):
    """Thinks too long on its first turn."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.rejections: list[Rejection] = []
        self.slept = False

    def choose(self, observation: Any, legal: Sequence[Any], context: TurnContext) -> Any:
        if not self.slept:
            self.slept = True
            time.sleep(0.5)
        return super().choose(observation, legal, context)

    def on_move_rejected(self, rejection: Rejection) -> None:
        self.rejections.append(rejection)


def test_a_timeout_under_the_default_action_policy_lets_the_match_go_on() -> None:
    control = TimeControl(base=30.0, per_decision=0.2)

    async def scenario() -> tuple[list[MatchSummary], list[MatchSummary], SlowFirstBot]:
        async with running_server(MatchPolicy(on_timeout="default_action")) as server:
            bot = SlowFirstBot(7)
            alice, bob = await pair(server, bot, RandomBot(8), "surge", games=1, time_control=control)
            return alice, bob, bot

    alice, bob, bot = asyncio.run(scenario())
    assert_consistent(alice, bob)
    assert [r.reason for r in bot.rejections][:1] == ["CLOCK_EXPIRED"]
    assert all(not r.may_retry for r in bot.rejections)


class SlowEveryTurnBot(RandomBot):
    """Thinks longer than its cap on every turn and counts how many ``choose`` run at once."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.running = 0
        self.most = 0
        self.calls = 0
        self.started: list[Any] = []

    def on_match_start(self, info: Any) -> None:
        self.started.append(info)

    def choose(self, observation: Any, legal: Sequence[Any], context: TurnContext) -> Any:
        self.running += 1
        self.most = max(self.most, self.running)
        self.calls += 1
        try:
            time.sleep(0.25)
            return super().choose(observation, legal, context)
        finally:
            self.running -= 1


def test_choose_never_runs_twice_at_once_for_one_match() -> None:
    """Under the default-action policy the arbiter moves on while a slow choose still thinks;
    the SDK keeps the newest turn waiting instead of starting a second choose."""
    control = TimeControl(base=30.0, per_decision=0.1)

    async def scenario() -> SlowEveryTurnBot:
        async with running_server(MatchPolicy(on_timeout="default_action")) as server:
            slow = SlowEveryTurnBot(3)
            await pair(server, slow, RandomBot(4), ("torrent", {"size": 5}), games=1, time_control=control)
            return slow

    slow = asyncio.run(scenario())
    assert slow.calls >= 3
    assert slow.most == 1
    first = slow.started[0]
    assert first.observation is not None and first.observation.board.count(".") == 61


def test_max_concurrent_is_checked_against_the_arbiters_seek_limit() -> None:
    with pytest.raises(ValueError, match="max_concurrent"):
        Session(RandomBot(1), "127.0.0.1:1", "token", "torrent", max_concurrent=17)


def test_a_text_action_that_is_not_an_action_falls_back_in_every_game() -> None:
    class TyposBot(RandomBot):
        def choose(self, observation: Any, legal: Sequence[Any], context: TurnContext) -> Any:
            return "PASS" if context.game != "surge" else "7@C2"

    async def scenario(spec: Any) -> tuple[list[MatchSummary], list[MatchSummary]]:
        async with running_server() as server:
            return await pair(server, TyposBot(5), RandomBot(6), spec, games=1)

    for spec in (("torrent", {"size": 5}), "surge"):
        alice, _bob = asyncio.run(scenario(spec))
        assert alice[0].reason not in ("illegal_action", "malformed_action")  # random legal actions instead
