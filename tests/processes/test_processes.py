"""``arbiter serve --processes 2``: real processes on real sockets (docs/processes.md).

The supervisor starts two workers sharing one public port (SO_REUSEPORT); each also listens on a
private port of its own. These tests check that every match is hosted by one process, that
bots on different workers still meet (on worker 0), that reconnects and second sessions reach
the worker holding the bot, that ladders are worker 0's, and how the supervisor stops.
"""

from __future__ import annotations

import asyncio
import collections
import json
import os
import random
import signal
import subprocess
import sys
import urllib.request
from collections.abc import Callable
from pathlib import Path

import grpc
import pytest
from arbiter.ladder.model import LadderConfig
from arbiter.store import SqlStore
from arbiter_bot import MatchSummary
from arbiter_bot.client import Backoff, run_bot
from arbiter_bot.examples.random_bot import RandomBot
from arbiter_games.timecontrol import TimeControl
from arbiter_wire.v1 import bot_service_pb2 as pb
from grpc_health.v1 import health_pb2, health_pb2_grpc

from tests.cluster.harness import wait_sync
from tests.cluster.test_js_sdk import JS, node_program
from tests.processes.harness import TOKENS, alive, serving, start, stop
from tests.server.raw_client import RawBot, play_out

SPEC = ("torrent", {"size": 5})
BACKOFF = Backoff(initial=0.1, maximum=0.5)
OWN_CONNECTION = [("grpc.use_local_subchannel_pool", 1)]


async def health(address: str) -> int:
    async with grpc.aio.insecure_channel(address) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        answer = await stub.Check(health_pb2.HealthCheckRequest(service=""), timeout=30)
        return int(answer.status)


def parent_of(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


def two_free_ports() -> int:
    """A port P such that P and P + 1 are both free now."""
    import socket

    for _ in range(50):
        with socket.socket() as first:
            first.bind(("127.0.0.1", 0))
            port = int(first.getsockname()[1])
            with socket.socket() as second:
                try:
                    second.bind(("127.0.0.1", port + 1))
                except OSError:
                    continue
                return port
    raise AssertionError("no two free ports in a row")


def test_two_workers_start_share_the_port_and_are_healthy(tmp_path: Path) -> None:
    metrics = two_free_ports()
    with serving(tmp_path, "--database", "none", "--metrics", f"127.0.0.1:{metrics}") as served:
        # Worker I serves its metrics at the --metrics port + I.
        shown = sorted(line for line in served.lines if line.startswith("metrics on "))
        assert shown == [f"metrics on http://127.0.0.1:{metrics + i}/metrics" for i in (0, 1)]
        for i in (0, 1):
            with urllib.request.urlopen(f"http://127.0.0.1:{metrics + i}/metrics", timeout=30) as page:
                assert b"arbiter_" in page.read()
        assert served.lines[0] == f"listening on {served.address}"  # the first line, said once
        assert sum(line.startswith("listening on") for line in served.lines) == 1
        pids = [served.workers[i][0] for i in (0, 1)]
        assert len(set(pids)) == 2
        assert all(parent_of(pid) == served.process.pid for pid in pids)
        addresses = [served.address, served.private(0), served.private(1)]
        assert len(set(addresses)) == 3

        async def check_all() -> list[int]:
            return list(await asyncio.gather(*map(health, addresses)))

        statuses = asyncio.run(check_all())
        assert statuses == [health_pb2.HealthCheckResponse.SERVING] * 3
        # Every worker bound the public port: their log lines say where they serve.
        serving_lines = served.events("serving")
        assert sorted(e["worker"] for e in serving_lines) == [0, 1]
        assert {e["address"] for e in serving_lines} == {served.address}


def hosts_of_matches(served_events: list[dict[str, object]]) -> dict[str, set[object]]:
    """Each match id -> the workers whose log says it started there."""
    hosts: dict[str, set[object]] = collections.defaultdict(set)
    for event in served_events:
        hosts[str(event["match_id"])].add(event["worker"])
    return hosts


def test_sdk_bots_play_every_match_to_its_end_in_one_process(tmp_path: Path) -> None:
    play_matches_and_check_their_hosts(tmp_path, "none")


def test_sdk_bots_play_in_one_process_each_with_a_store(tmp_path: Path, store_url: str) -> None:
    play_matches_and_check_their_hosts(tmp_path, store_url)


def play_matches_and_check_their_hosts(tmp_path: Path, url: str) -> None:
    """12 SDK bots on the public port, in 6 pairs, play 2 matches per pair; each match was
    hosted by one worker, where both of its bots had their session, and ended there. (A pair's
    two bots ask for a time control of their own, so they pair only with each other: every bot
    finds its opponent for each of its games, wherever the kernel sent the two.)"""
    names = list(TOKENS)[:12]
    with serving(tmp_path, "--database", url) as served:

        async def scenario() -> list[list[MatchSummary]]:
            bots = [
                run_bot(
                    RandomBot(i),
                    served.address,
                    TOKENS[name],
                    SPEC,
                    2,
                    TimeControl(base=60.0 + i // 2, increment=1.0),
                    backoff=BACKOFF,
                    # A connection of its own, as a bot in a process of its own has: gRPC shares
                    # one between the channels of a process to one address, which would take
                    # every bot to the same worker.
                    channel_options=OWN_CONNECTION,
                )
                for i, name in enumerate(names)
            ]
            return list(await asyncio.wait_for(asyncio.gather(*bots), 240))

        results = asyncio.run(scenario())
        summaries = [(name, s) for name, result in zip(names, results, strict=True) for s in result]
        # A worker logs a match's end beside sending it, not before: its line may come just
        # after the bots are done. Read the logs once every match the bots saw end is in them.
        seen = {s.match_id for _, s in summaries}
        wait_until(lambda: seen <= {str(e["match_id"]) for e in served.events("match_ended")}, 30)
        started = served.events("match_started")
        ended = served.events("match_ended")
        opened = served.events("session_opened")
        moved = served.events("seek_moved")
    assert [len(r) for r in results] == [2] * 12
    assert all(s.outcome != "unknown" for _, s in summaries)
    by_match = collections.defaultdict(list)
    for name, summary in summaries:
        by_match[summary.match_id].append((name, summary.opponent_name))
    assert len(by_match) == 12
    assert all(len(seats) == 2 for seats in by_match.values())  # both bots saw every match end
    starts, ends = hosts_of_matches(started), hosts_of_matches(ended)
    for match_id, seats in by_match.items():
        # One process started it and ended it, and both of its bots had a session there.
        assert len(starts[match_id]) == 1 and starts[match_id] == ends[match_id], match_id
        (worker,) = starts[match_id]
        for name, _ in seats:
            assert any(e["bot"] == name and e["worker"] == worker for e in opened), (match_id, name)
    assert len(started) == len(ended) == len(by_match)  # nothing started that did not end
    records = list((tmp_path / "records").glob("*.json"))
    assert {json.loads(p.read_text())["match_id"] for p in records} == set(by_match)
    assert all(e["worker"] != 0 for e in moved)  # worker 0 never moves a seek


def test_lone_bots_on_different_workers_meet_on_worker_0(tmp_path: Path) -> None:
    with serving(tmp_path, "--database", "none") as served:

        async def scenario() -> list[list[MatchSummary]]:
            # One bot on each worker's own port: neither finds an opponent where it is.
            one = run_bot(RandomBot(1), served.private(1), TOKENS["bot1"], SPEC, 1, backoff=BACKOFF)
            zero = run_bot(RandomBot(0), served.private(0), TOKENS["bot0"], SPEC, 1, backoff=BACKOFF)
            return list(await asyncio.wait_for(asyncio.gather(one, zero), 120))

        results = asyncio.run(scenario())
        moved = served.events("seek_moved")
        started = served.events("match_started")
    assert [len(r) for r in results] == [1, 1]
    assert [(e["bot"], e["worker"]) for e in moved] == [("bot1", 1)]
    assert [(e["worker"], {e["seat_1"], e["seat_2"]}) for e in started] == [(0, {"bot0", "bot1"})]


async def seek_raw(bot: RawBot) -> None:
    await bot.seek("torrent", {"size": 5})


def test_a_bot_that_reconnects_mid_match_resumes_it_on_its_worker(tmp_path: Path) -> None:
    with serving(tmp_path, "--database", "none") as served:

        async def scenario() -> None:
            worker_1 = served.private(1)
            first, second = RawBot(worker_1, TOKENS["bot0"]), RawBot(worker_1, TOKENS["bot1"])
            for bot in (first, second):
                await bot.expect("welcome")
                await seek_raw(bot)
            started = {b: await b.expect("match_started") for b in (first, second)}
            mover = first if started[first].seat == 1 else second
            other = second if mover is first else first
            turn = await mover.expect("turn")
            name = "bot0" if mover is first else "bot1"
            await mover.close()
            # The other worker sends it back to its match's worker, at once (the first message).
            elsewhere = RawBot(served.private(0), TOKENS[name])
            redirect = await elsewhere.expect("redirect")
            assert await elsewhere.call.read() is grpc.aio.EOF
            assert await elsewhere.call.code() == grpc.StatusCode.OK
            await elsewhere.close()
            assert redirect.address == worker_1 and redirect.reason == pb.REDIRECT_REASON_MATCHES
            assert redirect.join_token == ""  # its own token is used there
            # The public port, following a Redirect if the kernel handed the call to worker 0.
            back = RawBot(served.address, TOKENS[name])
            first_message = await back.next()
            if first_message.WhichOneof("kind") == "redirect":
                assert first_message.redirect.address == worker_1
                await back.close()
                back = RawBot(first_message.redirect.address, TOKENS[name])
                first_message = await back.next()
            assert first_message.WhichOneof("kind") == "welcome"
            assert list(first_message.welcome.resumed_match_ids) == [turn.match_id]
            assert (await back.expect("match_started")).resumed
            again = await back.expect("turn")
            assert (again.match_id, again.turn_id) == (turn.match_id, turn.turn_id)
            rng = random.Random(3)
            await back.move(again.match_id, again.turn_id, rng.choice(list(_legal(again))))
            ended = await asyncio.gather(
                play_out(back, lambda t, legal: rng.choice(legal)),
                play_out(other, lambda t, legal: rng.choice(legal)),
            )
            assert ended[0].match_id == ended[1].match_id == turn.match_id
            for bot in (back, other):
                await bot.close()

        asyncio.run(asyncio.wait_for(scenario(), 120))
        assert [e["worker"] for e in served.events("match_started")] == [1]


def _legal(turn: pb.Turn) -> list[object]:
    from arbiter_wire import convert

    return list(convert.legal_from_pb(turn.legal))


def test_a_second_session_on_another_worker_is_redirected_to_the_first(tmp_path: Path) -> None:
    with serving(tmp_path, "--database", "none") as served:

        async def scenario() -> None:
            live = RawBot(served.private(0), TOKENS["bot5"])
            await live.expect("welcome")
            second = RawBot(served.private(1), TOKENS["bot5"])
            redirect = await second.expect("redirect")
            assert await second.call.read() is grpc.aio.EOF
            await second.close()
            assert redirect.address == served.private(0)
            assert redirect.reason == pb.REDIRECT_REASON_MATCHES and redirect.join_token == ""
            # Where it was sent, it replaces the live session (one session per bot).
            there = RawBot(redirect.address, TOKENS["bot5"])
            assert (await there.expect("welcome")).bot_name == "bot5"
            with pytest.raises(grpc.aio.AioRpcError) as raised:
                await live.next()
            assert raised.value.code() == grpc.StatusCode.ABORTED  # reason REPLACED
            for bot in (live, there):
                await bot.close()
            # Once its session is over the bot is held nowhere: worker 1 takes it.
            welcome = await welcomed_on(served.private(1), TOKENS["bot5"], 30)
            assert welcome.bot_name == "bot5"

        asyncio.run(asyncio.wait_for(scenario(), 120))


async def welcomed_on(address: str, token: str, timeout: float) -> pb.Welcome:
    """Connect to ``address`` until it answers with a Welcome rather than a Redirect."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        bot = RawBot(address, token)
        message = await bot.next()
        await bot.close()
        if message.WhichOneof("kind") == "welcome":
            return message.welcome
        assert message.WhichOneof("kind") == "redirect"
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"{address} still redirects the bot")
        await asyncio.sleep(0.1)


def test_ladder_requests_on_worker_1_are_sent_to_worker_0(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'arbiter.db'}"
    store = SqlStore(url)
    store.upgrade()
    tokens = {name: store.add_bot(name, f"owner of {name}") for name in ("ann", "ben")}
    store.add_ladder(LadderConfig("t5", "torrent", {"size": 5}, TimeControl(base=60.0, increment=1.0)))
    store.close()
    with serving(tmp_path, "--database", url, "--web", "127.0.0.1:0") as served:
        # The web pages are worker 0's alone.
        assert sum(line.startswith("web pages on ") for line in served.lines) == 1

        async def scenario() -> None:
            raw = RawBot(served.private(1), tokens["ann"])
            await raw.expect("welcome")
            await raw.call.write(pb.PlayRequest(join_ladder=pb.JoinLadder(ladder="t5", max_concurrent=1)))
            redirect = await raw.expect("redirect")
            assert await raw.call.read() is grpc.aio.EOF
            await raw.close()
            assert redirect.address == served.private(0)
            assert redirect.reason == pb.REDIRECT_REASON_LADDER and redirect.ladder == "t5"
            raw = RawBot(served.private(1), tokens["ann"])
            await raw.expect("welcome")
            challenge = pb.Challenge(ladder="t5", opponent="ben", challenge_id="c1")
            await raw.call.write(pb.PlayRequest(challenge=challenge))
            redirect = await raw.expect("redirect")
            await raw.close()
            assert redirect.reason == pb.REDIRECT_REASON_LADDER and redirect.address == served.private(0)
            # SDK bots on worker 1 follow the Redirect and play their ladder matches on worker 0.
            both = [
                run_bot(RandomBot(i), served.private(1), tokens[n], SPEC, 1, ladder="t5", backoff=BACKOFF)
                for i, n in enumerate(("ann", "ben"))
            ]
            summaries = await asyncio.wait_for(asyncio.gather(*both), 120)
            assert [len(s) for s in summaries] == [1, 1]

        asyncio.run(scenario())
        started = served.events("match_started")
    assert [e["worker"] for e in started] == [0]
    store = SqlStore(url)
    assert {row.status for row in store.matches("t5")} == {"finished"}
    store.close()


def test_a_worker_killed_makes_the_supervisor_stop_the_other_and_fail(tmp_path: Path) -> None:
    served = start(tmp_path, "--database", "none")
    try:
        victim, other = served.workers[1][0], served.workers[0][0]
        os.kill(victim, signal.SIGKILL)
        status = served.process.wait(60)
    finally:
        stop(served)
    assert status == 1
    wait_sync(lambda: not alive(other), 30, "worker 0 stopped")
    assert "worker 1 (pid" in served.stderr() and "stopping the other workers" in served.stderr()


def test_sigterm_stops_every_worker_cleanly(tmp_path: Path) -> None:
    served = start(tmp_path, "--database", "none")
    pids = [served.workers[i][0] for i in (0, 1)]
    status = stop(served)
    assert status == 0
    assert not any(alive(pid) for pid in pids)
    assert sorted(e["worker"] for e in served.events("stopped")) == [0, 1]
    assert "every worker stopped" in served.stderr()


def test_processes_and_advertise_together_are_refused(tmp_path: Path) -> None:
    served = start(tmp_path, "--advertise", "127.0.0.1:1", ready=False)
    status = served.process.wait(60)
    assert status == 2
    assert served.stderr().strip().splitlines() == [
        "error: --processes cannot be used with --advertise: a node of a cluster is one process"
    ]


def test_the_typescript_sdk_seeks_again_where_its_lone_seek_was_moved(tmp_path: Path) -> None:
    """The JavaScript random bot alone on worker 1 is sent to worker 0 (a Redirect without a
    match and without a join token): it connects there with its own token, seeks again and plays
    the Python bot waiting there."""
    program = node_program()
    script = JS / "dist" / "src" / "examples" / "random_bot.js"
    sources = JS.glob("src/**/*.ts")
    if not script.exists() or any(p.stat().st_mtime > script.stat().st_mtime for p in sources):
        pytest.fail("the TypeScript SDK's build is missing or stale: cd clients/js && npm run build")
    with serving(tmp_path, "--database", "none") as served:

        async def scenario() -> tuple[bytes, list[MatchSummary]]:
            command = [program, str(script), "--server", served.private(1), "--token", TOKENS["bot1"]]
            command += ["--game", "torrent", "--size", "5", "--games", "1"]
            js = await asyncio.create_subprocess_exec(
                *command, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL
            )
            python = run_bot(RandomBot(0), served.private(0), TOKENS["bot0"], SPEC, 1, backoff=BACKOFF)
            (out, _), summaries = await asyncio.wait_for(asyncio.gather(js.communicate(), python), 120)
            assert js.returncode == 0
            return out, summaries

        out, summaries = asyncio.run(scenario())
        moved = served.events("seek_moved")
        started = served.events("match_started")
    assert [(e["bot"], e["worker"]) for e in moved] == [("bot1", 1)]
    assert [(e["worker"], {e["seat_1"], e["seat_2"]}) for e in started] == [(0, {"bot0", "bot1"})]
    assert len(summaries) == 1 and summaries[0].opponent_name == "bot1"
    assert len(out.decode().strip().splitlines()) == 1  # one line per finished match


def test_worker_0_alone_restores_an_unfinished_match_and_its_bots_are_sent_there(tmp_path: Path) -> None:
    """A worker killed in the middle of a match leaves it running in the store; at the next
    start worker 0 rebuilds it (once), and its bots, connecting to worker 1, are sent there."""
    url = f"sqlite:///{tmp_path / 'arbiter.db'}"
    store = SqlStore(url)
    store.upgrade()
    tokens = {name: store.add_bot(name, f"owner of {name}") for name in ("ann", "ben")}
    (tmp_path / "one").mkdir()
    (tmp_path / "two").mkdir()
    served = start(tmp_path / "one", "--database", url)
    try:

        async def first_half() -> str:
            bots = [RawBot(served.private(1), tokens[name]) for name in ("ann", "ben")]
            for bot in bots:
                await bot.expect("welcome")
                await seek_raw(bot)
            started = [await bot.expect("match_started") for bot in bots]
            mover = bots[0] if started[0].seat == 1 else bots[1]
            turn = await mover.expect("turn")
            rng = random.Random(1)
            await mover.move(turn.match_id, turn.turn_id, rng.choice(_legal(turn)))
            await wait_until_async(lambda: len(store.moves_of(turn.match_id)) == 1, 60)
            for bot in bots:
                await bot.close()
            return str(turn.match_id)

        match_id = asyncio.run(first_half())
        os.kill(served.workers[1][0], signal.SIGKILL)
        assert served.process.wait(60) == 1
    finally:
        stop(served)
    assert [m.start.match_id for m in store.running_matches()] == [match_id]
    with serving(tmp_path / "two", "--database", url) as again:

        async def second_half() -> list[pb.MatchEnded]:
            bots = []
            for name in ("ann", "ben"):
                probe = RawBot(again.private(1), tokens[name])
                redirect = await probe.expect("redirect")
                await probe.close()
                assert redirect.address == again.private(0)
                bot = RawBot(redirect.address, tokens[name])
                welcome = await bot.expect("welcome")
                assert list(welcome.resumed_match_ids) == [match_id]
                bots.append(bot)
            rng = random.Random(2)
            return list(
                await asyncio.gather(*(play_out(b, lambda t, legal: rng.choice(legal)) for b in bots))
            )

        ended = asyncio.run(asyncio.wait_for(second_half(), 120))
        restored = again.events("match_restored")
    assert [(e["worker"], e["match_id"]) for e in restored] == [(0, match_id)]
    assert {e.match_id for e in ended} == {match_id}
    row = store.match_row(match_id)
    assert row is not None and row.status == "finished"
    store.close()


def wait_until(condition: Callable[[], bool], timeout: float) -> None:
    asyncio.run(wait_until_async(condition, timeout))


async def wait_until_async(condition: Callable[[], bool], timeout: float) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition():
        assert asyncio.get_running_loop().time() < deadline, "timed out"
        await asyncio.sleep(0.05)


def test_process_host_without_processes_is_refused(tmp_path: Path) -> None:
    served = start(tmp_path, "--processes", "1", "--process-host", "127.0.0.1", ready=False)
    assert served.process.wait(60) == 2
    assert served.stderr().strip().splitlines() == [
        "error: --process-host is for --processes N (N of 2 or more)"
    ]


def test_a_port_held_by_another_program_is_refused(tmp_path: Path) -> None:
    """SO_REUSEPORT is for the workers only: a port another program listens on is refused."""
    import socket

    with socket.socket() as other:
        other.bind(("127.0.0.1", 0))
        other.listen()
        port = other.getsockname()[1]
        command = [sys.executable, "-m", "arbiter.cli", "serve", "--processes", "2", "--port", str(port)]
        command += ["--database", "none", "--bot", "a=b"]
        done = subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        f"error: cannot listen on 127.0.0.1:{port}: the address is in use or not available"
    ]
    assert done.stdout == ""
