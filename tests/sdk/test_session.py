"""The client's conversation logic, driven message by message without a server."""

from __future__ import annotations

import asyncio
import random
import threading
from collections.abc import Sequence
from typing import Any

import grpc
import pytest
from arbiter_bot import (
    BadRequestError,
    Bot,
    MatchInfo,
    MatchSummary,
    Rejection,
    SeedMismatch,
    Session,
    TurnContext,
)
from arbiter_bot.bot import TimeControl
from arbiter_bot.client import time_control_to_pb
from arbiter_bot.errors import rich_status
from arbiter_games import get_game
from arbiter_games.hexflank import Place
from arbiter_games.surge import SURGE, PlaceStone, Skip, commitment
from arbiter_wire import convert
from arbiter_wire.v1 import bot_service_pb2 as pb
from arbiter_wire.v1 import common_pb2 as cpb
from google.protobuf import any_pb2
from google.protobuf.duration_pb2 import Duration
from google.rpc import error_details_pb2, status_pb2


class ScriptedBot(Bot):
    """Plays the given answers in turn, then the first legal action; records everything."""

    def __init__(self, answers: Sequence[Any] = ()) -> None:
        self.answers = list(answers)
        self.contexts: list[TurnContext] = []
        self.started: list[MatchInfo] = []
        self.ended: list[MatchSummary] = []
        self.rejected: list[Rejection] = []
        self.threads: set[int] = set()

    def choose(self, observation: Any, legal: Sequence[Any], context: TurnContext) -> Any:
        self.contexts.append(context)
        self.threads.add(threading.get_ident())
        if self.answers:
            answer = self.answers.pop(0)
            if isinstance(answer, Exception):
                raise answer
            return answer
        return legal[0]

    def on_match_start(self, info: MatchInfo) -> None:
        self.started.append(info)

    def on_match_end(self, summary: MatchSummary) -> None:
        self.ended.append(summary)

    def on_move_rejected(self, rejection: Rejection) -> None:
        self.rejected.append(rejection)


class Harness:
    """A Session whose stream is a queue we read, fed with hand-made arbiter messages."""

    def __init__(self, bot: Bot, spec: Any = ("torrent", {"size": 5}), **kwargs: Any) -> None:
        self.session = Session(bot, "unused:1", "token", spec, rng=random.Random(0), **kwargs)
        self.outbox: asyncio.Queue[pb.PlayRequest | None] = asyncio.Queue()
        self.stop = asyncio.Event()
        self.session._outbox = self.outbox
        self.session._stop = self.stop

    async def feed(self, **kind: Any) -> None:
        await self.session._handle(pb.PlayResponse(**kind))

    async def sent(self, timeout: float = 5.0) -> pb.PlayRequest:
        item = await asyncio.wait_for(self.outbox.get(), timeout)
        assert item is not None
        return item

    async def nothing_sent(self) -> None:
        await asyncio.sleep(0.05)
        for task in list(self.session._tasks):
            await task
        assert self.outbox.empty(), self.outbox.get_nowait()

    async def settle(self) -> None:
        for task in list(self.session._tasks):
            await task


def welcome(*resumed: str) -> pb.Welcome:
    return pb.Welcome(bot_name="me", resumed_match_ids=list(resumed))


def match_started(
    match_id: str = "m1", game: str = "torrent", seat: int = 1, **extra: Any
) -> pb.MatchStarted:
    options = {"size": 5} if game != "surge" else {}
    colour = {"torrent": ("black", "white"), "surge": ("blue", "orange")}[
        game if game == "surge" else "torrent"
    ]
    return pb.MatchStarted(
        match_id=match_id,
        spec=convert.spec_to_pb(game, options),
        seat=convert.seat_pb(seat),
        colour=convert.colour_pb(colour[seat - 1]),
        opponent_name="them",
        time_control=time_control_to_pb(TimeControl(60.0, 1.0)),
        illegal_action_policy=pb.ILLEGAL_ACTION_POLICY_REJECT,
        **extra,
    )


def turn_of(
    game: str, state: Any, match_id: str = "m1", turn_id: int = 1, limit: float | None = 5.0
) -> pb.Turn:
    rules = get_game(game)
    seat = rules.to_move(state)
    assert seat is not None
    obs = rules.observe(state, seat)
    return pb.Turn(
        match_id=match_id,
        turn_id=turn_id,
        observation=convert.observation_to_pb(obs),
        legal=convert.legal_to_pb(game, rules.legal_actions(state)),
        clocks=[cpb.Clock(seat=cpb.SEAT_1, remaining=Duration(seconds=59)), cpb.Clock(seat=cpb.SEAT_2)],
        decision_limit=convert.duration_pb(limit),
        seat=convert.seat_pb(seat),
        colour=convert.colour_pb(obs.colour),
    )


def torrent_start() -> Any:
    return get_game("torrent").new_game({"size": 5})


def rejected(reason: str, code: grpc.StatusCode, may_retry: bool, turn_id: int = 1) -> pb.MoveRejected:
    info = error_details_pb2.ErrorInfo(reason=reason, domain="arbiter.v1")
    detail = any_pb2.Any()
    detail.Pack(info)
    status = status_pb2.Status(code=code.value[0], message=f"{reason} happened", details=[detail])
    return pb.MoveRejected(match_id="m1", turn_id=turn_id, status=status, may_retry=may_retry)


def ended(match_id: str = "m1", winner: int = 1, seat: int = 1, **extra: Any) -> pb.MatchEnded:
    result = cpb.Result(
        winner_seat=convert.seat_pb(winner), seat_1_score=5, seat_2_score=3, reason=cpb.END_REASON_TWO_PASSES
    )
    return pb.MatchEnded(
        match_id=match_id, result=result, seat=convert.seat_pb(seat), actions=["e5"], **extra
    )


def run(coro: Any) -> Any:
    return asyncio.run(coro)


@pytest.mark.parametrize(("games", "concurrent", "seeks"), [(None, 1, 1), (None, 3, 3), (2, 3, 2), (5, 2, 2)])
def test_welcome_sends_seeks(games: int | None, concurrent: int, seeks: int) -> None:
    async def scenario() -> list[pb.PlayRequest]:
        h = Harness(ScriptedBot(), games=games, max_concurrent=concurrent, time_control=TimeControl(10.0))
        await h.feed(welcome=welcome())
        return [h.outbox.get_nowait() for _ in range(h.outbox.qsize())]  # type: ignore[misc]

    sent = run(scenario())
    assert len(sent) == seeks
    for request in sent:
        assert request.WhichOneof("kind") == "seek"
        assert convert.spec_from_pb(request.seek.spec) == ("torrent", {"size": 5})
        assert request.seek.time_control.base.seconds == 10


def test_a_turn_is_answered_with_its_turn_id_from_a_worker_thread() -> None:
    bot = ScriptedBot([Place("e5")])

    async def scenario() -> pb.PlayRequest:
        h = Harness(bot, games=1)
        await h.feed(welcome=welcome())
        await h.sent()  # the seek
        await h.feed(match_started=match_started())
        await h.feed(turn=turn_of("torrent", torrent_start(), turn_id=7))
        return await h.sent()

    move = run(scenario()).move
    assert (move.match_id, move.turn_id) == ("m1", 7)
    assert convert.action_from_pb("torrent", move.action) == Place("e5")
    assert threading.get_ident() not in bot.threads
    context = bot.contexts[0]
    assert (context.seat, context.colour, context.game, dict(context.options)) == (
        1,
        "black",
        "torrent",
        {"size": 5},
    )
    assert context.decision_limit == 5.0 and context.clocks == {1: 59.0, 2: None}
    assert context.time_left() is not None and 0 < context.time_left() <= 5.0  # type: ignore[operator]
    assert bot.started[0].opponent_name == "them" and bot.started[0].illegal_action_policy == "reject"


def test_a_repeated_turn_gets_the_same_answer_without_asking_again() -> None:
    bot = ScriptedBot([Place("c3")])

    async def scenario() -> tuple[pb.PlayRequest, pb.PlayRequest]:
        h = Harness(bot)
        await h.feed(match_started=match_started())
        turn = turn_of("torrent", torrent_start())
        await h.feed(turn=turn)
        first = await h.sent()
        await h.feed(match_started=match_started(resumed=True))  # after a reconnect
        await h.feed(turn=turn)
        return first, await h.sent()

    first, second = run(scenario())
    assert first == second
    assert len(bot.contexts) == 1 and len(bot.started) == 1


def test_a_retryable_rejection_asks_the_bot_again() -> None:
    bot = ScriptedBot([Place("z9"), Place("e5")])

    async def scenario() -> pb.PlayRequest:
        h = Harness(bot)
        await h.feed(match_started=match_started())
        await h.feed(turn=turn_of("torrent", torrent_start()))
        await h.sent()
        await h.feed(move_rejected=rejected("ILLEGAL_ACTION", grpc.StatusCode.FAILED_PRECONDITION, True))
        return await h.sent()

    retry = run(scenario()).move
    assert convert.action_from_pb("torrent", retry.action) == Place("e5") and retry.turn_id == 1
    assert len(bot.contexts) == 2
    (earlier,) = bot.contexts[1].rejections
    assert earlier.reason == "ILLEGAL_ACTION" and earlier.action == Place("z9") and earlier.may_retry
    assert bot.rejected == [earlier]
    assert bot.contexts[1].received_at == bot.contexts[0].received_at  # the clock kept running


@pytest.mark.parametrize(
    ("reason", "code", "may_retry"),
    [
        ("CLOCK_EXPIRED", grpc.StatusCode.DEADLINE_EXCEEDED, True),
        ("ILLEGAL_ACTION", grpc.StatusCode.FAILED_PRECONDITION, False),
        ("STALE_TURN", grpc.StatusCode.FAILED_PRECONDITION, False),
    ],
)
def test_other_rejections_are_not_retried(reason: str, code: grpc.StatusCode, may_retry: bool) -> None:
    bot = ScriptedBot()

    async def scenario() -> None:
        h = Harness(bot)
        await h.feed(match_started=match_started())
        await h.feed(turn=turn_of("torrent", torrent_start()))
        await h.sent()
        await h.feed(move_rejected=rejected(reason, code, may_retry))
        await h.nothing_sent()

    run(scenario())
    assert len(bot.contexts) == 1 and bot.rejected[0].reason == reason


def test_endless_rejections_end_in_an_untried_legal_action() -> None:
    bot = ScriptedBot([Place("z9")] * 10)

    async def scenario() -> pb.PlayRequest:
        h = Harness(bot, max_retries=2)
        await h.feed(match_started=match_started())
        await h.feed(turn=turn_of("torrent", torrent_start()))
        for _ in range(3):
            await h.sent()
            await h.feed(move_rejected=rejected("ILLEGAL_ACTION", grpc.StatusCode.FAILED_PRECONDITION, True))
        return await h.sent()

    last = run(scenario()).move
    action = convert.action_from_pb("torrent", last.action)
    assert action in get_game("torrent").legal_actions(torrent_start())
    assert len(bot.contexts) == 3  # asked once, then retried twice


def test_a_failing_choose_falls_back_or_stops() -> None:
    async def fallback() -> pb.PlayRequest:
        h = Harness(ScriptedBot([RuntimeError("bug")]))
        await h.feed(match_started=match_started())
        await h.feed(turn=turn_of("torrent", torrent_start()))
        return await h.sent()

    action = convert.action_from_pb("torrent", run(fallback()).move.action)
    assert action in get_game("torrent").legal_actions(torrent_start())

    async def strict() -> Harness:
        h = Harness(ScriptedBot([RuntimeError("bug")]), fallback_on_error=False)
        await h.feed(match_started=match_started())
        await h.feed(turn=turn_of("torrent", torrent_start()))
        await h.settle()
        return h

    h = run(strict())
    assert isinstance(h.session._fatal, RuntimeError) and h.stop.is_set() and h.outbox.empty()


def test_text_actions_are_accepted() -> None:
    async def scenario() -> pb.PlayRequest:
        h = Harness(ScriptedBot(["e5"]))
        await h.feed(match_started=match_started())
        await h.feed(turn=turn_of("torrent", torrent_start()))
        return await h.sent()

    assert convert.action_from_pb("torrent", run(scenario()).move.action) == Place("e5")


def test_match_end_reports_and_seeks_again_until_the_games_are_played() -> None:
    bot = ScriptedBot()

    async def scenario() -> Harness:
        h = Harness(bot, games=2)
        await h.feed(welcome=welcome())
        assert (await h.sent()).WhichOneof("kind") == "seek"
        await h.feed(match_started=match_started("m1"))
        await h.feed(match_ended=ended("m1", winner=1))
        assert (await h.sent()).WhichOneof("kind") == "seek"
        assert not h.stop.is_set()
        await h.feed(match_started=match_started("m2", seat=2))
        await h.feed(match_ended=ended("m2", winner=1, seat=2))
        await h.nothing_sent()
        return h

    h = run(scenario())
    assert h.stop.is_set() and h.session.done()
    assert [s.outcome for s in h.session.summaries] == ["win", "loss"]
    assert [s.match_id for s in bot.ended] == ["m1", "m2"]


def test_a_match_that_ended_while_away_is_reported_as_unknown() -> None:
    bot = ScriptedBot()

    async def scenario() -> Harness:
        h = Harness(bot, games=3)
        await h.feed(welcome=welcome())
        await h.feed(match_started=match_started("gone"))
        await h.feed(match_started=match_started("alive"))
        await h.feed(welcome=welcome("alive"))  # reconnected: "gone" ended meanwhile
        return h

    h = run(scenario())
    assert [(s.match_id, s.outcome) for s in bot.ended] == [("gone", "unknown")]
    assert set(h.session._matches) == {"alive"}


def test_a_bad_seek_stops_the_session() -> None:
    async def scenario() -> Harness:
        h = Harness(ScriptedBot())
        await h.feed(welcome=welcome())
        status = rejected("BAD_REQUEST", grpc.StatusCode.INVALID_ARGUMENT, False).status
        await h.feed(seek_rejected=pb.SeekRejected(status=status))
        return h

    h = run(scenario())
    assert isinstance(h.session._fatal, BadRequestError) and h.stop.is_set()


def surge_match(seed: bytes, seat: int, committed: str, strict: bool) -> Harness:
    """A whole Surge match fed to a session from the engine, the bot playing ``seat``."""
    rng = random.Random(1)

    async def scenario() -> Harness:
        h = Harness(ScriptedBot(), spec="surge", strict_seed=strict)
        await h.feed(match_started=match_started("s", "surge", seat, seed_commitment=committed))
        state = SURGE.new_game(seed=seed)
        turn_id = 0
        while SURGE.outcome(state) is None:
            turn_id += 1
            if SURGE.to_move(state) == seat and SURGE.can_place(state):
                await h.feed(turn=turn_of("surge", state, "s", turn_id))
                move = (await h.sent()).move
                action = convert.action_from_pb("surge", move.action)
                assert isinstance(action, PlaceStone | Skip)
            else:
                action = rng.choice(SURGE.legal_actions(state))
            SURGE.apply_in_place(state, action)
        final = convert.observation_to_pb(SURGE.observe(state, seat))
        await h.feed(match_ended=ended("s", seat=seat, seed=seed.hex(), final_observation=final))
        return h

    return run(scenario())


def test_surge_seed_is_verified() -> None:
    seed = random.Random(11).randbytes(32)
    h = surge_match(seed, 2, commitment(seed), strict=True)
    (summary,) = h.session.summaries
    assert summary.seed_verified is True and h.session._fatal is None


def test_a_forged_surge_seed_is_detected() -> None:
    seed = random.Random(12).randbytes(32)
    h = surge_match(seed, 1, commitment(random.Random(13).randbytes(32)), strict=True)
    (summary,) = h.session.summaries
    assert summary.seed_verified is False and summary.seed_problems
    assert isinstance(h.session._fatal, SeedMismatch) and h.stop.is_set()


class FakeError(grpc.RpcError):  # type: ignore[misc]  # grpc has no type hints
    def __init__(self, code: grpc.StatusCode, trailers: Any) -> None:
        self._code, self._trailers = code, trailers

    def code(self) -> grpc.StatusCode:
        return self._code

    def details(self) -> str:
        return "plain details"

    def trailing_metadata(self) -> Any:
        return self._trailers


def test_rich_status_reads_the_error_info() -> None:
    status = rejected("REPLACED", grpc.StatusCode.ABORTED, False).status
    rich = rich_status(
        FakeError(grpc.StatusCode.ABORTED, (("grpc-status-details-bin", status.SerializeToString()),))
    )
    assert (rich.code, rich.reason, rich.domain, rich.message) == (
        grpc.StatusCode.ABORTED,
        "REPLACED",
        "arbiter.v1",
        "REPLACED happened",
    )
    plain = rich_status(FakeError(grpc.StatusCode.UNAVAILABLE, None))
    assert (plain.code, plain.reason, plain.message) == (grpc.StatusCode.UNAVAILABLE, None, "plain details")
