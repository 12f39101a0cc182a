"""Totals per bot (docs/protocol.md, "Rate limits" and "Ladders"; docs/reliability.md, "Totals per
bot"): the matches one bot holds at once over all its ladders, seeks and challenges, and the Play
calls one token opens per minute. Over the real protocol, on a SQLite store."""

from __future__ import annotations

import asyncio
from pathlib import Path

import grpc
from arbiter.ladder.model import LadderConfig
from arbiter.node import ArbiterConfig
from arbiter.security.ratelimit import Limit, RateLimits
from arbiter_games.timecontrol import TimeControl
from arbiter_wire import convert
from arbiter_wire.reasons import reason_of, retry_delay
from arbiter_wire.v1 import bot_service_pb2 as pb
from grpc_status import rpc_status

from tests.ladder.harness import eventually, ladder_lab

#: Ten ladders; nobody answers a turn, so every match stays running for the test's length.
LADDERS = [
    LadderConfig(f"l{i}", "torrent", {"size": 5}, TimeControl(base=120.0, increment=1.0)) for i in range(10)
]
CAP = 6


def sqlite(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'arbiter.db'}"


def capped(config: ArbiterConfig) -> None:
    config.max_matches_per_bot = CAP


def test_a_bot_holds_at_most_the_cap_over_all_its_ladders_and_seeks(tmp_path):
    # ann is on all ten ladders; each other bot on one of them only: nobody else pairs but with
    # ann, so ann's matches are bounded by the cap alone (the others offer 40 slots).
    others = [f"opp{i}" for i in range(len(LADDERS))]

    async def scenario() -> None:
        async with ladder_lab(sqlite(tmp_path), ["ann", *others], LADDERS, configure=capped) as lab:
            clients = {name: await lab.connect(name) for name in ["ann", *others]}
            for ladder in LADDERS:
                await clients["ann"].join(ladder.name, max_concurrent=4)  # 40 slots asked for
            for name, ladder in zip(others, LADDERS, strict=True):
                await clients[name].join(ladder.name, max_concurrent=4)
            await lab.watch.until(lambda w: w.running["ann"] >= CAP, timeout=30.0)
            await asyncio.sleep(1.0)  # the scheduling passes that would start one more have run
            assert lab.arbiter.hosting.taken_slots("ann") == CAP
            assert lab.watch.peak["ann"] == CAP
            # A seek beyond the cap is refused, saying why.
            await clients["ann"].send(
                seek=pb.Seek(spec=convert.spec_to_pb("torrent", {"size": 5}), seek_id="one-more")
            )
            rejected = await clients["ann"].expect(
                "seek_rejected", skip=("ladder_joined", "match_started", "turn")
            )
            assert rejected.seek_id == "one-more"
            assert reason_of(rejected.status) == "RESOURCE_EXHAUSTED"
            assert f"at most {CAP} matches per bot" in rejected.status.message

    asyncio.run(scenario())


def test_the_totals_are_serve_options_with_defaults():
    from arbiter.cli import main
    from arbiter.hosting.host import MAX_MATCHES_PER_BOT
    from arbiter.sessions.auth import BotDirectory
    from click.testing import CliRunner

    help_text = CliRunner().invoke(main, ["serve", "--help"]).output
    assert "--max-matches-per-bot" in help_text and "--limit-play-calls" in help_text
    assert ArbiterConfig(bots=BotDirectory()).max_matches_per_bot == MAX_MATCHES_PER_BOT == 32
    assert RateLimits().play_calls == Limit(60, 60.0)


def few_play_calls(config: ArbiterConfig) -> None:
    config.rate_limits = RateLimits(play_calls=Limit(5, 60.0))


def test_a_token_opens_a_bounded_number_of_play_calls(tmp_path):
    async def scenario() -> None:
        async with ladder_lab(sqlite(tmp_path), ["ann"], LADDERS[:1], configure=few_play_calls) as lab:
            for _ in range(5):
                live = await lab.connect("ann")  # each replaces the one before
            session = lab.arbiter.sessions.sessions["ann"]
            refused = await lab.connect("ann", welcome=False)
            error = await refused.status_at_end()
            assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            status = rpc_status.from_call(error)
            assert status is not None and reason_of(status) == "RATE_LIMITED"
            delay = retry_delay(status)
            assert delay is not None and 0 < delay <= 12.0  # one call per 12 s after the five
            # The refused call replaced nothing: the fifth call is still the bot's session.
            assert lab.arbiter.sessions.sessions["ann"] is session and not session.closed
            await live.join(LADDERS[0].name)
            assert (await live.expect("ladder_joined")).ladder == LADDERS[0].name
            await eventually(lambda: lab.arbiter.limiter.refusals.get("play_calls") == 1)

    asyncio.run(scenario())
