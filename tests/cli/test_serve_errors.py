"""`arbiter serve` refuses a port it cannot have with one line, and says where it listens."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from tests.conftest import ROOT

ENV = dict(os.environ, PYTHONPATH=f"{ROOT / 'server'}:{ROOT / 'clients' / 'python'}")


def serve(port: int | str, *extra: str, tmp_path: object) -> subprocess.Popen[str]:
    Path(str(tmp_path)).mkdir(parents=True, exist_ok=True)
    return subprocess.Popen(
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
            *extra,
        ],
        env=ENV,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=str(tmp_path),  # its default store, arbiter.db, goes there
    )


def refused(process: subprocess.Popen[str]) -> str:
    """The one line of a serve that must stop at once (killed if it serves instead)."""
    try:
        _, stderr = process.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        pytest.fail("arbiter serve kept running instead of refusing the port")
    assert process.returncode != 0
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("error: ")
    return lines[0]


def stop(process: subprocess.Popen[str]) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()


def listening_port(process: subprocess.Popen[str]) -> int:
    """The port from serve's first standard output line, ``listening on HOST:PORT``."""
    assert process.stdout is not None
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.append(process.stdout.readline()), daemon=True)
    reader.start()
    reader.join(timeout=30)
    if not lines:
        process.kill()
        pytest.fail("arbiter serve printed no 'listening on' line")
    line = lines[0].strip()
    assert line.startswith("listening on 127.0.0.1:"), line
    return int(line.rsplit(":", 1)[1])


def test_port_zero_prints_the_bound_address(tmp_path):
    process = serve(0, tmp_path=tmp_path)
    try:
        port = listening_port(process)
        assert port > 0
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            reply = health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(service="arbiter.v1.BotService"), timeout=10
            )
        assert reply.status == health_pb2.HealthCheckResponse.SERVING
    finally:
        stop(process)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_a_port_another_arbiter_uses_is_refused(tmp_path):
    port = free_port()
    first = serve(port, tmp_path=tmp_path / "first")
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            grpc.channel_ready_future(channel).result(timeout=30)
        line = refused(serve(port, tmp_path=tmp_path / "second"))
        assert f"127.0.0.1:{port}" in line and "in use" in line
        assert first.poll() is None  # the first one goes on serving
    finally:
        stop(first)


def test_a_port_another_program_holds_is_refused(tmp_path):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        port = sock.getsockname()[1]
        line = refused(serve(port, tmp_path=tmp_path))
    assert f"127.0.0.1:{port}" in line


@pytest.mark.parametrize("port", ["70000", "-1"])
def test_a_port_out_of_range_is_refused(tmp_path, port):
    line = refused(serve(port, tmp_path=tmp_path))
    assert port in line and "65535" in line
