"""`arbiter serve` with the TLS options, and its warning about plain text beyond loopback."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from tests.conftest import ROOT

from .certs import make_pki

ENV = dict(os.environ, PYTHONPATH=f"{ROOT / 'server'}:{ROOT / 'clients' / 'python'}")


def start(tmp_path: Path, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "arbiter.cli",
            "serve",
            "--port",
            "0",
            "--bot",
            "a=secret",
            "--database",
            "none",
            "--records",
            str(tmp_path / "records"),
            *extra,
        ],
        env=ENV,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=str(tmp_path),
    )


def port_of(process: subprocess.Popen[str]) -> int:
    assert process.stdout is not None
    line = process.stdout.readline()
    assert line.startswith("listening on "), line
    return int(line.rsplit(":", 1)[1])


def stop(process: subprocess.Popen[str]) -> str:
    process.send_signal(signal.SIGTERM)
    _, stderr = process.communicate(timeout=30)
    assert process.returncode == 0, stderr
    return stderr


def warnings_in(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("warning: ")]


def test_plain_text_on_all_addresses_prints_one_warning_line(tmp_path):
    process = start(tmp_path, "--host", "0.0.0.0")
    try:
        port_of(process)
    finally:
        stderr = stop(process)
    assert warnings_in(stderr) == [
        "warning: serving plain text (no TLS) on 0.0.0.0: tokens and moves cross the network"
        " unencrypted; give --tls-cert and --tls-key"
    ]


def test_mutual_tls_from_the_command_line(tmp_path):
    pki = make_pki(tmp_path)
    process = start(
        tmp_path,
        "--host",
        "0.0.0.0",
        "--tls-cert",
        str(pki.server_cert),
        "--tls-key",
        str(pki.server_key),
        "--tls-client-ca",
        str(pki.ca),
    )
    try:
        port = port_of(process)
        answers = []
        for key, cert in ((pki.read("client_key"), pki.read("client_cert")), (None, None)):
            credentials = grpc.ssl_channel_credentials(pki.read("ca"), key, cert)
            with grpc.secure_channel(f"127.0.0.1:{port}", credentials) as channel:
                try:
                    reply = health_pb2_grpc.HealthStub(channel).Check(
                        health_pb2.HealthCheckRequest(), timeout=10
                    )
                    answers.append(reply.status)
                except grpc.RpcError as err:
                    answers.append(err.code())
    finally:
        stderr = stop(process)
    assert answers == [health_pb2.HealthCheckResponse.SERVING, grpc.StatusCode.UNAVAILABLE]
    assert warnings_in(stderr) == []  # TLS: nothing to warn about


def test_tls_options_that_cannot_work_stop_at_once(tmp_path):
    pki = make_pki(tmp_path)
    not_pem = tmp_path / "key.txt"
    not_pem.write_text("not a key")
    cases = [
        (["--tls-cert", str(pki.server_cert)], "give --tls-cert and --tls-key together"),
        (["--tls-client-ca", str(pki.ca)], "--tls-client-ca needs --tls-cert and --tls-key"),
        (
            ["--tls-cert", str(pki.server_cert), "--tls-key", str(not_pem)],
            "not a PEM file holding a private key",
        ),
    ]
    for extra, message in cases:
        process = start(tmp_path, *extra)
        try:
            _, stderr = process.communicate(timeout=30)
        finally:
            if process.poll() is None:
                process.kill()
        assert process.returncode == 2, stderr
        assert message in stderr
