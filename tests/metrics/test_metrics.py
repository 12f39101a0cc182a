"""Prometheus metrics: counters fed by the event bus move while bots play; /metrics over HTTP."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import types
from collections.abc import AsyncIterator

import grpc
from arbiter.metrics import ArbiterMetrics, LeaseState
from arbiter.node import Arbiter, ArbiterConfig
from arbiter.sessions.auth import BotDirectory
from arbiter.transport.server import RunningServer, create_server
from arbiter_games.policy import MatchPolicy
from arbiter_games.timecontrol import TimeControl
from arbiter_wire.v1 import bot_service_pb2 as pb
from arbiter_wire.v1 import common_pb2 as cpb
from grpc_health.v1 import health_pb2, health_pb2_grpc

from tests.conftest import ROOT
from tests.server.raw_client import TOKENS, RawBot, connect, play_out

from .scrape import scrape, total, value

PLAY = "/arbiter.v1.BotService/Play"


@contextlib.asynccontextmanager
async def serving(control: TimeControl, policy: MatchPolicy) -> AsyncIterator[tuple[RunningServer, str]]:
    bots = BotDirectory()
    for name, token in TOKENS.items():
        bots.add(name, token)
    server = await create_server(ArbiterConfig(bots=bots, default_control=control, policy=policy))
    http = server.arbiter.metrics.serve("127.0.0.1", 0)
    try:
        yield server, f"http://{http.address}/metrics"
    finally:
        await server.stop(grace=0.5)
        http.stop()


async def scraped(url: str):
    return await asyncio.to_thread(scrape, url)


def test_counters_move_during_matches():
    async def scenario():
        policy = MatchPolicy(on_illegal="reject")
        async with serving(TimeControl(base=30.0, increment=1.0), policy) as (server, url):
            before = await scraped(url)
            alice, bob = await connect(server, "alice"), await connect(server, "bob")
            during_sessions = await scraped(url)
            await alice.seek("torrent", {"size": 5})
            await bob.seek("torrent", {"size": 5})
            first, _ = await asyncio.gather(play_out(alice), play_out(bob))
            after = await scraped(url)
            await alice.close()
            await bob.close()
            return before, during_sessions, after, first

    before, during, after, first = asyncio.run(scenario())
    assert value(before, "arbiter_sessions") == 0
    assert value(during, "arbiter_sessions") == 2
    assert value(before, "arbiter_matches_started_total", game="torrent") == 0
    assert value(after, "arbiter_matches_started_total", game="torrent") == 1
    assert total(after, "arbiter_matches_ended_total", game="torrent") == 1
    termination = cpb.EndReason.Name(first.result.reason).removeprefix("END_REASON_").lower()
    assert value(after, "arbiter_matches_ended_total", game="torrent", termination=termination) == 1
    assert value(after, "arbiter_matches_running") == 0
    moves = value(after, "arbiter_moves_total", game="torrent")
    assert moves >= 9  # a 5x5 match takes at least a few moves per seat
    assert value(after, "arbiter_move_charged_seconds_count", game="torrent") == moves
    assert value(after, "arbiter_move_charged_seconds_bucket", game="torrent", le="+Inf") == moves
    assert value(after, "arbiter_rpcs_started_total", method=PLAY) == 2
    assert value(after, "arbiter_node_lease_state") == LeaseState.NONE


def test_refusals_flags_and_rpc_codes():
    async def scenario():
        control = TimeControl(base=None, per_decision=0.3)  # a seat that does not answer flags
        async with serving(control, MatchPolicy(on_illegal="reject")) as (server, url):
            alice, bob = await connect(server, "alice"), await connect(server, "bob")
            await alice.seek("torrent", {"size": 5})
            await bob.seek("torrent", {"size": 5})
            # Each answers every turn with an empty action: the first is refused (MALFORMED_ACTION,
            # which may be answered again), then nobody answers and the seat's 0.3 s run out.
            ended, _ = await asyncio.gather(
                *(play_out(bot, lambda turn, legal: pb.Action()) for bot in (alice, bob))
            )
            bad = RawBot(server.address, "wrong")
            with contextlib.suppress(grpc.aio.AioRpcError):
                await bad.next()
            await bad.close()
            channel = grpc.aio.insecure_channel(server.address)
            await health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest())
            await channel.close()
            server.arbiter.metrics.set_lease_state(LeaseState.DRAINING)
            samples = await scraped(url)
            await alice.close()
            await bob.close()
            return ended, samples

    ended, samples = asyncio.run(scenario())
    assert ended.result.reason == cpb.END_REASON_TIMEOUT
    assert value(samples, "arbiter_moves_rejected_total", reason="MALFORMED_ACTION") == 1
    assert value(samples, "arbiter_flags_total", game="torrent", outcome="loss") == 1
    assert value(samples, "arbiter_matches_ended_total", game="torrent", termination="timeout") == 1
    assert value(samples, "arbiter_rpcs_handled_total", method=PLAY, code="UNAUTHENTICATED") == 1
    assert value(samples, "arbiter_rpcs_started_total", method=PLAY) == 3
    check = "/grpc.health.v1.Health/Check"
    assert value(samples, "arbiter_rpcs_handled_total", method=check, code="OK") == 1
    assert value(samples, "arbiter_node_lease_state") == 2  # LeaseState.DRAINING


def test_each_arbiter_has_a_registry_of_its_own():
    config = ArbiterConfig(bots=BotDirectory())
    one, two = Arbiter(config), Arbiter(config)
    assert isinstance(one.metrics, ArbiterMetrics)
    assert one.metrics.registry is not two.metrics.registry
    one.metrics.set_lease_state(LeaseState.HOLDING)
    assert one.metrics.registry.get_sample_value("arbiter_node_lease_state") == 1
    assert two.metrics.registry.get_sample_value("arbiter_node_lease_state") == 0


def test_serve_metrics_with_a_store(tmp_path):
    """`arbiter serve --metrics 127.0.0.1:0` with SQLite: a match moves the counters and the store's
    transaction histogram, scraped over HTTP from the process."""
    env = dict(os.environ, PYTHONPATH=f"{ROOT / 'server'}:{ROOT / 'clients' / 'python'}")
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "arbiter.cli",
            "serve",
            "--port",
            "0",
            "--metrics",
            "127.0.0.1:0",
            "--database",
            f"sqlite:///{tmp_path / 'arbiter.db'}",
            "--records",
            str(tmp_path / "records"),
            "--bot",
            f"alice={TOKENS['alice']}",
            "--bot",
            f"bob={TOKENS['bob']}",
        ],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=str(tmp_path),
    )
    try:
        assert process.stdout is not None
        address = process.stdout.readline().split()[-1]
        metrics_line = process.stdout.readline().strip()
        assert metrics_line.startswith("metrics on http://127.0.0.1:"), metrics_line
        url = metrics_line.split()[-1]
        before = scrape(url)

        async def play() -> None:
            alice, bob = RawBot(address, TOKENS["alice"]), RawBot(address, TOKENS["bob"])
            await alice.expect("welcome")
            await bob.expect("welcome")
            await alice.seek("fravan", {"size": 5})
            await bob.seek("fravan", {"size": 5})
            await asyncio.gather(play_out(alice), play_out(bob))
            await alice.close()
            await bob.close()

        asyncio.run(play())
        after = scrape(url)
    finally:
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=30)
    assert process.returncode == 0, stderr[-2000:]
    assert value(before, "arbiter_matches_started_total", game="fravan") == 0
    assert value(after, "arbiter_matches_started_total", game="fravan") == 1
    assert total(after, "arbiter_matches_ended_total", game="fravan") == 1
    assert value(after, "arbiter_moves_total", game="fravan") > 0
    # The writer's transactions: the start, the moves (in batches) and the result, each timed.
    for write in ("match_started", "append_moves", "finish"):
        assert value(after, "arbiter_store_transaction_seconds_count", write=write) >= 1, write
    assert total(before, "arbiter_store_transaction_seconds_count") < total(
        after, "arbiter_store_transaction_seconds_count"
    )
    assert value(after, "arbiter_rpcs_started_total", method=PLAY) == 2


def test_ladder_members_and_rate_limit_refusals_are_read_when_scraped():
    from arbiter.ladder.model import LadderConfig
    from arbiter.security.ratelimit import RateLimiter, RateLimits

    async def scenario():
        bots = BotDirectory()
        for name, token in TOKENS.items():
            bots.add(name, token)
        config = ArbiterConfig(bots=bots)
        # An in-memory ladder; alice alone joins it (nobody to pair), then asks again past the limit.
        ladders = [LadderConfig("t5", "torrent", {"size": 5}, TimeControl(base=30.0, increment=1.0))]
        arbiter = Arbiter(config, ladders=ladders)
        arbiter.limiter = RateLimiter(RateLimits.of(bad_tokens=0, lobby=1, requests=0), lambda: 0.0)
        server = await create_server(config, arbiter=arbiter)
        registry = arbiter.metrics.registry
        try:
            alice = await connect(server, "alice")
            await alice.call.write(pb.PlayRequest(join_ladder=pb.JoinLadder(ladder="t5", max_concurrent=1)))
            await alice.expect("ladder_joined")
            joined = registry.get_sample_value("arbiter_ladder_bots_joined", {"ladder": "t5"})
            await alice.call.write(pb.PlayRequest(join_ladder=pb.JoinLadder(ladder="t5", max_concurrent=1)))
            refused = await alice.expect("ladder_rejected")
            limited = registry.get_sample_value("arbiter_rate_limited_total", {"limit": "lobby"})
            await alice.close()
            return joined, refused, limited
        finally:
            await server.stop(grace=0.5)

    joined, refused, limited = asyncio.run(scenario())
    assert joined == 1
    assert refused.ladder == "t5"
    assert limited == 1


def test_the_lease_gauge_follows_the_cluster_member():
    """In a cluster the gauge is read from the node's member: holding, draining, then lost."""
    arbiter = Arbiter(ArbiterConfig(bots=BotDirectory()))
    member = types.SimpleNamespace(lost=False, draining=False, on_adopt=None, on_lost=None)
    arbiter.join_cluster(member, lambda: None)  # type: ignore[arg-type]

    def gauge() -> float | None:
        return arbiter.metrics.registry.get_sample_value("arbiter_node_lease_state")

    assert gauge() == LeaseState.HOLDING
    member.draining = True
    assert gauge() == LeaseState.DRAINING
    member.lost = True
    assert gauge() == LeaseState.NONE
