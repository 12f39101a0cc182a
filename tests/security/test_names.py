"""One name rule for bots and ladders, wherever a name enters: the commands, the tokens file and
``--bot``, the store, and JoinLadder/LeaveLadder/Challenge over the wire; and the commands print
text from the store with its control characters made visible (item 14 of issue 18)."""

from __future__ import annotations

import asyncio
import re

import pytest
from arbiter.cli import main
from arbiter.ladder.model import LadderConfig
from arbiter.sessions.auth import BotDirectory, TokenError
from arbiter.store import SqlStore, StoreError
from arbiter_games.timecontrol import TimeControl
from arbiter_wire.reasons import reason_of
from arbiter_wire.text import BadName, check_name
from arbiter_wire.v1 import bot_service_pb2 as pb
from click.testing import CliRunner
from grpc_status import rpc_status
from sqlalchemy import create_engine, text

from tests.ladder.harness import TORRENT_5, ladder_lab

#: What a terminal must never receive raw from a name: C0/C1 controls, DEL, bidi, zero-width.
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]")

BAD_NAMES = {
    "escape_clear_screen": "bot\x1b[2J\x1bc",
    "set_title": "bot\x1b]0;pwned\x07",
    "bell": "bot\x07",
    "delete": "bot\x7f",
    "c1_csi": "bot\x9b2J",
    "nul": "nul\x00",
    "bidi_override": "evil\u202egnp.exe",
    "bidi_isolate": "a\u2066b",
    "zero_width_space": "ali\u200bce",
    "zero_width_joiner": "ali\u200dce",
    "byte_order_mark": "\ufeffalice",
    "hangul_filler": "\u3164",
    "variation_selector": "alice\ufe0f",
    "slash": "a/b",
    "dot_dot": "..",
    "dot": ".",
    "climbs_out": "../etc",
    "backslash": "a\\b",
    "percent": "a%2fb",
    "question_mark": "a?b",
    "space": "has space",
    "no_break_space": "a\u00a0b",
    "equals": "a=b",
    "hash_first": "#x",
    "dash_first": "-x",
    "dot_first": ".hidden",
    "decomposed_accent": "Zoe\u0308",
    "empty": "",
    "too_long": "x" * 65,
}
GOOD_NAMES = ["alice", "bot-2", "my_bot.v3", "Zoë", "x" * 64, "A-random_bot", "t5", "Łódź-1", "碁", "3rd"]


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


@pytest.fixture
def url(tmp_path) -> str:
    url = f"sqlite:///{tmp_path / 'arbiter.db'}"
    assert run("db", "upgrade", "--database", url)[0] == 0
    return url


@pytest.mark.parametrize("name", BAD_NAMES.values(), ids=BAD_NAMES.keys())
def test_bots_add_and_ladders_add_refuse_a_bad_name_in_one_visible_line(url, name):
    for args in (["bots", "add"], ["ladders", "add", "--game", "torrent", "--size", "5"]):
        code, output = run(*args, "--database", url, "--", name)
        assert code != 0, output
        lines = output.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: bad "), output
        assert not RAW.search(output), repr(output)
    store = SqlStore(url)
    try:
        assert store.list_bots() == [] and store.list_ladders() == []
    finally:
        store.close()


@pytest.mark.parametrize("name", GOOD_NAMES)
def test_good_names_stay_good_everywhere(url, name):
    assert check_name(name) == name
    assert run("bots", "add", name, "--database", url)[0] == 0
    assert run("ladders", "add", name, "--game", "torrent", "--size", "5", "--database", url)[0] == 0
    assert run("token", name)[0] == 0
    BotDirectory().add(name, "some-token")


@pytest.mark.parametrize("name", BAD_NAMES.values(), ids=BAD_NAMES.keys())
def test_the_same_rule_in_the_store_the_tokens_file_and_arbiter_token(tmp_path, url, name):
    with pytest.raises(BadName):
        check_name(name)
    store = SqlStore(url)
    try:
        with pytest.raises(StoreError, match="bad bot name"):
            store.add_bot(name, "")
        with pytest.raises(StoreError, match="bad ladder name"):
            store.add_ladder(LadderConfig(name, "torrent", {"size": 5}, TimeControl(base=10.0)))
    finally:
        store.close()
    with pytest.raises(TokenError, match="bad bot name"):
        BotDirectory().add(name, "some-token")
    code, output = run("token", "--", name)
    assert code == 2 and "bad bot name" in output and not RAW.search(output), repr(output)


def test_owner_text_has_no_control_characters(url):
    code, output = run("bots", "add", "alice", "--owner", "Al\x1b[2Jice", "--database", url)
    assert code != 0 and "owner" in output and not RAW.search(output), repr(output)
    assert run("bots", "add", "alice", "--owner", "Alice Liddell", "--database", url)[0] == 0


def test_the_commands_print_names_from_the_store_visibly(url):
    """Rows written before the rule (or by hand) hold any text: the listings escape it."""
    assert run("bots", "add", "plain", "--database", url)[0] == 0
    engine = create_engine(url)
    evil = "ev\x1b]0;pwned\x07il\u202e"
    with engine.begin() as connection:
        connection.execute(text("UPDATE bots SET name = :n, owner = :o"), {"n": evil, "o": "own\x1bc"})
    engine.dispose()
    code, output = run("bots", "list", "--database", url)
    assert code == 0 and not RAW.search(output), repr(output)
    assert "ev\\x1b]0;pwned\\x07il\\u202e" in output and "own\\x1bc" in output
    code, output = run("bots", "disable", evil, "--database", url)
    assert code == 0 and not RAW.search(output) and "\\x1b" in output, repr(output)


# --- over the wire -----------------------------------------------------------------------------
def _refused(message: pb.LadderRejected) -> str | None:
    return reason_of(message.status)


def test_join_leave_and_challenge_with_a_bad_name_are_bad_requests(tmp_path):
    url = f"sqlite:///{tmp_path / 'wire.db'}"

    async def scenario() -> None:
        async with ladder_lab(url, ["ann", "ben"], [TORRENT_5]) as lab:
            ann = await lab.connect("ann")
            for bad in ("t5\x1b[2J", "../t5", "t\u202e5", ""):
                await ann.join(bad)
                rejected = await ann.expect("ladder_rejected")
                assert _refused(rejected) == "BAD_REQUEST" and "bad ladder name" in rejected.status.message
                assert not RAW.search(rejected.status.message)
                await ann.leave(bad)
                assert _refused(await ann.expect("ladder_rejected")) == "BAD_REQUEST"
            await ann.join(TORRENT_5.name)
            await ann.expect("ladder_joined")
            await ann.challenge(TORRENT_5.name, "ben\x1b]0;x\x07", "c1")
            rejected = await ann.expect("ladder_rejected")
            assert _refused(rejected) == "BAD_REQUEST" and rejected.challenge_id == "c1"
            assert "bad bot name" in rejected.status.message and not RAW.search(rejected.status.message)

    asyncio.run(scenario())


def test_a_bad_bot_version_is_refused_before_the_session(tmp_path):
    """The version rule (1 to 64 printable ASCII characters, no spaces) lives beside the name rule."""
    url = f"sqlite:///{tmp_path / 'wire.db'}"

    async def scenario() -> None:
        async with ladder_lab(url, ["ann"], [TORRENT_5]) as lab:
            # gRPC sends only printable ASCII in metadata: no control character gets this far.
            for version in ("v 1", "v1/../x" * 10):
                bot = await lab.connect("ann", version, welcome=False)
                error = await bot.status_at_end()
                assert reason_of(rpc_status.from_call(error)) == "BAD_REQUEST", version

    asyncio.run(scenario())
