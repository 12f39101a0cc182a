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


def test_a_name_given_twice_in_a_tokens_file_names_both_lines(tmp_path):
    path = tmp_path / "bots.txt"
    path.write_text("# bots\nalice=one\nbob=two\n\nalice=three\n")
    with pytest.raises(TokenError) as info:
        BotDirectory().load_file(path)
    message = str(info.value)
    assert "bots.txt line 5" in message and "'alice'" in message and "line 2" in message
    assert "three" not in message and "\n" not in message  # no token shown; one line


def test_a_name_given_twice_in_specs_is_refused():
    with pytest.raises(TokenError, match="'alice'"):
        BotDirectory().add_specs(["alice=one", "alice=two"])
    with pytest.raises(TokenError, match="'alice'"):
        BotDirectory().add_specs(["alice=one", "alice=one"])  # even with the same token


def test_a_name_in_both_the_flags_and_the_file_is_refused(tmp_path):
    path = tmp_path / "bots.txt"
    path.write_text("alice=two\n")
    bots = BotDirectory()
    bots.add_specs(["alice=one"])
    with pytest.raises(TokenError, match=r"bots\.txt line 1.*'alice'.*--bot"):
        bots.load_file(path)


@pytest.mark.parametrize("name", ["", "bad name", "a=b", "tab\tname", "#hash", "nul\x00", "x" * 65])
def test_bad_names_are_refused_everywhere(name):
    from arbiter.sessions.auth import check_bot_name

    with pytest.raises(TokenError):
        check_bot_name(name)
    with pytest.raises(TokenError):
        BotDirectory().add(name, "some-token")


@pytest.mark.parametrize("name", ["alice", "bot-2", "my_bot.v3", "Zoë", "x" * 64])
def test_good_names_are_kept(name):
    from arbiter.sessions.auth import check_bot_name

    assert check_bot_name(name) == name
    bots = BotDirectory()
    bots.add(name, "some-token")
    assert bots.authenticate("some-token") == name
