"""TLS and mutual TLS: handshakes that must succeed succeed, the others fail; SDK bots play over TLS."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import grpc
import pytest
from arbiter.node import ArbiterConfig
from arbiter.security.tls import TlsError, TlsFiles, is_loopback, plaintext_warning, tls_files
from arbiter.sessions.auth import BotDirectory
from arbiter.transport.server import RunningServer, create_server
from arbiter_bot import Bot, run_bot, tls_credentials
from arbiter_games.timecontrol import TimeControl
from grpc_health.v1 import health_pb2, health_pb2_grpc

from .certs import Pki, make_pki

TOKENS = {"alice": "token-alice", "bob": "token-bob"}


@contextlib.asynccontextmanager
async def tls_server(pki: Pki, mutual: bool = False) -> AsyncIterator[RunningServer]:
    bots = BotDirectory()
    for name, token in TOKENS.items():
        bots.add(name, token)
    config = ArbiterConfig(bots=bots, default_control=TimeControl(base=30.0, increment=1.0))
    tls = TlsFiles(pki.server_cert, pki.server_key, pki.ca if mutual else None)
    server = await create_server(config, "127.0.0.1", 0, tls=tls)
    try:
        yield server
    finally:
        await server.stop(grace=0.5)


async def health_check(address: str, credentials: grpc.ChannelCredentials | None) -> grpc.StatusCode:
    """OK when the health service answered SERVING through this channel, else the call's code."""
    if credentials is None:
        channel = grpc.aio.insecure_channel(address)
    else:
        channel = grpc.aio.secure_channel(address, credentials)
    try:
        reply = await health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=10)
        assert reply.status == health_pb2.HealthCheckResponse.SERVING
        return grpc.StatusCode.OK
    except grpc.aio.AioRpcError as err:
        return err.code()
    finally:
        await channel.close()


def test_tls_handshake_needs_the_right_ca(tmp_path):
    pki, other = make_pki(tmp_path), make_pki(tmp_path, "other")

    async def scenario():
        async with tls_server(pki) as server:
            return (
                await health_check(server.address, grpc.ssl_channel_credentials(pki.read("ca"))),
                await health_check(server.address, grpc.ssl_channel_credentials(other.read("ca"))),
                await health_check(server.address, None),  # plain text to a TLS port
            )

    right, wrong, plain = asyncio.run(scenario())
    assert right == grpc.StatusCode.OK
    assert wrong == grpc.StatusCode.UNAVAILABLE
    assert plain == grpc.StatusCode.UNAVAILABLE


def test_mutual_tls_needs_a_client_certificate_from_the_ca(tmp_path):
    pki, other = make_pki(tmp_path), make_pki(tmp_path, "other")

    async def scenario():
        async with tls_server(pki, mutual=True) as server:
            ca = pki.read("ca")
            with_cert = grpc.ssl_channel_credentials(ca, pki.read("client_key"), pki.read("client_cert"))
            foreign = grpc.ssl_channel_credentials(ca, other.read("client_key"), other.read("client_cert"))
            return (
                await health_check(server.address, with_cert),
                await health_check(server.address, grpc.ssl_channel_credentials(ca)),
                await health_check(server.address, foreign),
            )

    with_cert, without, foreign = asyncio.run(scenario())
    assert with_cert == grpc.StatusCode.OK
    assert without == grpc.StatusCode.UNAVAILABLE
    assert foreign == grpc.StatusCode.UNAVAILABLE


class FirstLegal(Bot):
    name = "first-legal"

    def choose(self, observation, legal, context):
        return legal[0]


def test_sdk_bots_play_a_match_over_mutual_tls(tmp_path):
    pki = make_pki(tmp_path)

    async def scenario():
        async with tls_server(pki, mutual=True) as server:
            credentials = tls_credentials(str(pki.ca), str(pki.client_cert), str(pki.client_key))
            return await asyncio.wait_for(
                asyncio.gather(
                    *(
                        run_bot(
                            FirstLegal(),
                            server.address,
                            TOKENS[name],
                            ("torrent", {"size": 5}),
                            games=1,
                            credentials=credentials,
                            max_reconnects=0,
                        )
                        for name in ("alice", "bob")
                    )
                ),
                60,
            )

    alice, bob = asyncio.run(scenario())
    assert len(alice) == len(bob) == 1
    assert alice[0].match_id == bob[0].match_id
    assert alice[0].reason not in ("aborted", "timeout")


def test_the_example_bot_command_line_plays_over_tls(tmp_path):
    """--ca FILE (implying --tls) and $ARBITER_TLS with $ARBITER_CA, one bot each, in processes."""
    import os
    import sys

    from tests.conftest import ROOT

    pki = make_pki(tmp_path)
    env = dict(os.environ, PYTHONPATH=f"{ROOT / 'server'}:{ROOT / 'clients' / 'python'}")

    async def bot(server: RunningServer, name: str, extra: list[str], more_env: dict[str, str]):
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "arbiter_bot.examples.random_bot",
            "--server",
            server.address,
            "--game",
            "torrent",
            "--size",
            "5",
            "--games",
            "1",
            *extra,
            env=dict(env, ARBITER_TOKEN=TOKENS[name], **more_env),
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        out, err = await asyncio.wait_for(process.communicate(), 60)
        return process.returncode, out.decode(), err.decode()

    async def scenario():
        async with tls_server(pki) as server:
            return await asyncio.gather(
                bot(server, "alice", ["--ca", str(pki.ca)], {}),
                bot(server, "bob", [], {"ARBITER_TLS": "1", "ARBITER_CA": str(pki.ca)}),
            )

    results = asyncio.run(scenario())
    for code, out, err in results:
        assert code == 0, err[-2000:]
        assert len(out.strip().splitlines()) == 1 and "vs " in out  # one line per finished match


def test_tls_files_are_read_together_and_checked(tmp_path):
    pki = make_pki(tmp_path)
    assert tls_files(None, None, None) is None
    files = tls_files(str(pki.server_cert), str(pki.server_key), str(pki.ca))
    assert files is not None and files.mutual
    for cert, key, ca in ((str(pki.server_cert), None, None), (None, None, str(pki.ca))):
        with pytest.raises(TlsError):
            tls_files(cert, key, ca)
    not_pem = tmp_path / "not.pem"
    not_pem.write_text("hello")
    with pytest.raises(TlsError, match=r"--tls-key .* not a PEM file holding a private key"):
        TlsFiles(pki.server_cert, not_pem).credentials()
    with pytest.raises(TlsError, match="cannot read it"):
        TlsFiles(tmp_path / "missing.pem", pki.server_key).credentials()


@pytest.mark.parametrize(
    "host,loopback",
    [
        ("127.0.0.1", True),
        ("127.1.2.3", True),
        ("localhost", True),
        ("::1", True),
        ("[::1]", True),
        ("0.0.0.0", False),
        ("::", False),
        ("10.1.2.3", False),
        ("arbiter.example", False),
    ],
)
def test_plain_text_beyond_loopback_is_warned_about(host, loopback, tmp_path):
    assert is_loopback(host) is loopback
    warning = plaintext_warning(host, None)
    assert (warning is None) is loopback
    if warning is not None:
        assert warning.startswith("warning: ") and "\n" not in warning
    pki = make_pki(tmp_path)
    assert plaintext_warning(host, TlsFiles(pki.server_cert, pki.server_key)) is None
