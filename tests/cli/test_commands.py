"""The documented commands work: match, demo, replay, token, serve (health, reflection, SIGTERM)."""

import json
import os
import signal
import subprocess
import sys
import time

import grpc
from arbiter.cli import main
from click.testing import CliRunner
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from tests.conftest import ROOT


def test_match_between_built_in_bots(tmp_path):
    result = CliRunner().invoke(
        main,
        [
            "match",
            "greedy",
            "random",
            "--game",
            "torrent",
            "--size",
            "5",
            "--games",
            "4",
            "--records",
            str(tmp_path),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "Elo difference A - B" in result.output
    records = sorted(tmp_path.glob("torrent-*.json"))
    assert len(records) == 4
    seats = [json.loads(p.read_text())["seats"]["1"] for p in records]
    assert sorted(seats) == ["A-greedy", "A-greedy", "B-random", "B-random"]  # seats alternate


def test_match_with_a_command_bot(tmp_path):
    command = f"{sys.executable} -m arbiter_bot.examples.random_bot"
    result = CliRunner().invoke(
        main, ["match", "surge_tips", command, "--game", "surge", "--games", "2", "--records", str(tmp_path)]
    )
    assert result.exit_code == 0, result.output
    assert len(list(tmp_path.glob("surge-*.json"))) == 2
    assert "seed verified" in (tmp_path / "bot-B.log").read_text()


def test_match_reports_a_bot_that_cannot_start(tmp_path):
    result = CliRunner().invoke(
        main, ["match", "random", "sh -c 'exit 3'", "--games", "1", "--records", str(tmp_path)]
    )
    assert result.exit_code == 1
    assert "exited with status" in result.output
    # A program that does not exist is refused before anything starts.
    result = CliRunner().invoke(
        main, ["match", "random", "/nonexistent/bot", "--games", "1", "--records", str(tmp_path)]
    )
    assert result.exit_code == 2
    assert "no program /nonexistent/bot" in result.output


def test_demo_runs_its_programme():
    result = CliRunner().invoke(main, ["demo", "--once", "--delay", "0", "--no-colour"])
    assert result.exit_code == 0, result.output
    for game in ("Torrent over", "Surge Stones over", "Fravan over"):
        assert game in result.output


def test_replay_prints_boards_and_checks(tmp_path):
    CliRunner().invoke(
        main, ["match", "random", "random", "--size", "5", "--games", "1", "--records", str(tmp_path)]
    )
    record = next(tmp_path.glob("torrent-*.json"))
    result = CliRunner().invoke(main, ["replay", str(record)])
    assert result.exit_code == 0, result.output
    assert "record checked: ok" in result.output and "1. " in result.output
    data = json.loads(record.read_text())
    data["result"]["scores"] = {"1": 999, "2": 0}
    record.write_text(json.dumps(data))
    assert CliRunner().invoke(main, ["replay", "--quiet", str(record)]).exit_code == 1
    assert CliRunner().invoke(main, ["replay", str(tmp_path / "missing.json")]).exit_code == 2


def test_token_prints_a_hash_line():
    result = CliRunner().invoke(main, ["token", "alice"])
    token = result.output.splitlines()[0].split()[-1]
    line = result.output.splitlines()[1].split()[-1]
    assert line.startswith("alice=sha256:") and token not in line


def test_serve_offers_health_and_stops_gracefully(tmp_path):
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = dict(os.environ, PYTHONPATH=f"{ROOT / 'server'}:{ROOT / 'clients' / 'python'}")
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "arbiter.cli",
            "serve",
            "--port",
            str(port),
            "--bot",
            "a=secret",
            "--records",
            str(tmp_path),
        ],
        env=env,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,  # its default store, arbiter.db, goes there
    )
    try:
        channel = grpc.insecure_channel(f"127.0.0.1:{port}")
        grpc.channel_ready_future(channel).result(timeout=20)
        stub = health_pb2_grpc.HealthStub(channel)
        reply = stub.Check(health_pb2.HealthCheckRequest(service="arbiter.v1.BotService"), timeout=5)
        assert reply.status == health_pb2.HealthCheckResponse.SERVING
        reflection = reflection_pb2_grpc.ServerReflectionStub(channel)
        request = reflection_pb2.ServerReflectionRequest(list_services="")
        answers = reflection.ServerReflectionInfo(iter([request]))
        services = {s.name for answer in answers for s in answer.list_services_response.service}
        assert "arbiter.v1.BotService" in services and "grpc.health.v1.Health" in services
        channel.close()
        time.sleep(0.2)
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0
    events = [json.loads(line)["event"] for line in stderr.splitlines() if line.startswith("{")]
    assert events[0] == "serving" and events[-1] == "stopped"
    assert "secret" not in stderr


def test_bot_labels_name_what_runs():
    from arbiter.runner.local_match import label

    assert label("greedy") == "greedy"
    assert label("python -m arbiter_bot.examples.random_bot") == "random_bot"
    assert label("/usr/bin/python3 bots/my_bot.py --fast") == "my_bot"
    assert label("./mybot --level 3") == "mybot"
