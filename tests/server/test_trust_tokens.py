"""Real tokens, as ``arbiter token NAME`` makes them (43 characters): the whole token counts.

The other tests' tokens are all short, so a directory or a servicer that looked at only part of a
token (its first 32 characters, say) would pass them; these would not.
"""

import asyncio
import hashlib
import re

import grpc
import pytest
from arbiter.cli import main
from arbiter.node import ArbiterConfig
from arbiter.sessions.auth import BotDirectory, hash_token, new_token
from arbiter.transport.server import create_server
from arbiter_wire.reasons import reason_of
from click.testing import CliRunner
from grpc_status import rpc_status

from .raw_client import RawBot


def made_by_the_cli(name):
    """The token and the --tokens-file line that ``arbiter token NAME`` prints."""
    result = CliRunner().invoke(main, ["token", name])
    assert result.exit_code == 0, result.output
    first, second = result.output.splitlines()[:2]
    return first.split()[-1], second.split()[-1]


def near_misses(token):
    """Strings that share most of the token, none of which may authenticate."""
    return {
        "prefix32": token[:32],
        "less_last_character": token[:-1],
        "plus_more_text": token + "x",
        "plus_a_copy": token + token,
        "last_character_changed": token[:-1] + ("A" if token[-1] != "A" else "B"),
        "first_character_changed": ("A" if token[0] != "A" else "B") + token[1:],
    }


def test_new_tokens_are_long_enough_to_matter():
    tokens = {new_token() for _ in range(20)}
    assert len(tokens) == 20
    assert all(len(token) >= 43 for token in tokens)  # 32 random bytes, URL-safe base64
    assert all(re.fullmatch(r"[A-Za-z0-9_-]+", token) for token in tokens)


def test_the_hash_format_is_sha256_of_the_utf8_token():
    for token in (new_token(), "jeton-é-" + new_token(), "x"):
        expected = "sha256:" + hashlib.sha256(token.encode("utf-8")).hexdigest()
        assert hash_token(token) == expected
        assert re.fullmatch(r"sha256:[0-9a-f]{64}", hash_token(token))


@pytest.mark.parametrize("form", ["plain", "hash"])
def test_a_real_token_authenticates_as_given_and_no_near_miss_does(form):
    token = new_token()
    assert len(token) > 32
    bots = BotDirectory()
    bots.add("dora", token if form == "plain" else hash_token(token))
    assert bots.authenticate(token) == "dora"
    for what, miss in near_misses(token).items():
        assert bots.authenticate(miss) is None, what


def test_the_token_and_line_printed_by_arbiter_token_work_together():
    token, line = made_by_the_cli("dora")
    assert len(token) > 32
    assert line == f"dora={hash_token(token)}" and token not in line
    bots = BotDirectory()
    bots.add_specs([line])
    assert bots.authenticate(token) == "dora"
    for what, miss in near_misses(token).items():
        assert bots.authenticate(miss) is None, what


def test_two_real_tokens_sharing_their_first_32_characters_are_two_bots():
    token = new_token()
    other = token[:32] + new_token()[:11]
    assert other != token
    bots = BotDirectory()
    bots.add("dora", token)
    bots.add("eve", other)  # must not be refused as "a token that another bot already has"
    assert bots.authenticate(token) == "dora"
    assert bots.authenticate(other) == "eve"


async def _try(address, token):
    """Open a Play stream with ``token``: the Welcome's bot name, or the status code and reason."""
    bot = RawBot(address, token)
    try:
        welcome = await bot.expect("welcome")
        return ("welcome", welcome.bot_name)
    except grpc.aio.AioRpcError as exc:
        return (exc.code(), reason_of(rpc_status.from_call(exc)))
    finally:
        await bot.close()


def test_a_real_token_over_a_real_server():
    token, line = made_by_the_cli("dora")
    plain = new_token()

    async def scenario():
        bots = BotDirectory()
        bots.add_specs([line])  # the hash line, as `arbiter serve --tokens-file` takes it
        bots.add("eve", plain)
        server = await create_server(ArbiterConfig(bots=bots))
        try:
            results = {"dora": await _try(server.address, token), "eve": await _try(server.address, plain)}
            for what, miss in {**near_misses(token), "eve_prefix32": plain[:32]}.items():
                results[what] = await _try(server.address, miss)
        finally:
            await server.stop(grace=0.5)
        return results

    results = asyncio.run(scenario())
    assert results.pop("dora") == ("welcome", "dora")
    assert results.pop("eve") == ("welcome", "eve")
    for what, result in results.items():
        assert result == (grpc.StatusCode.UNAUTHENTICATED, "BAD_TOKEN"), what
