"""No token or a wrong one: UNAUTHENTICATED with ErrorInfo BAD_TOKEN, and nothing else happens."""

import asyncio

import grpc
import pytest
from arbiter.sessions.auth import BotDirectory, TokenError, hash_token
from arbiter_wire.reasons import reason_of
from grpc_status import rpc_status

from .raw_client import RawBot, running_server


@pytest.mark.parametrize("token", [None, "wrong", ""])
def test_bad_token_is_unauthenticated(token):
    async def scenario():
        async with running_server() as server:
            bot = RawBot(server.address, token)
            with pytest.raises(grpc.aio.AioRpcError) as info:
                await bot.next()
            status = rpc_status.from_call(info.value)
            await bot.close()
            return info.value.code(), status, len(server.arbiter.sessions.sessions)

    code, status, sessions = asyncio.run(scenario())
    assert code == grpc.StatusCode.UNAUTHENTICATED
    assert reason_of(status) == "BAD_TOKEN"
    assert sessions == 0


def test_only_hashes_are_kept():
    bots = BotDirectory()
    bots.add("alice", "secret-token")
    bots.add("bob", hash_token("other"))
    assert "secret-token" not in repr(vars(bots))
    assert bots.authenticate("secret-token") == "alice"
    assert bots.authenticate("other") == "bob"
    assert bots.authenticate("nope") is None


def test_token_file_and_bad_specs(tmp_path):
    path = tmp_path / "tokens"
    path.write_text("# bots\nalice=abc\n\nbob=sha256:" + "0" * 64 + "\n")
    bots = BotDirectory()
    bots.load_file(path)
    assert bots.names() == ["alice", "bob"]
    for spec in ("noequals", "a b=x", "carol=sha256:zz", "dave="):
        with pytest.raises(TokenError):
            BotDirectory().add_specs([spec])
