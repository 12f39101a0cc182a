"""Two bots never share one token (issue 20, item 16): adding a bot, or rotating one's token, to
a token another bot has fails and changes nothing; the token goes on naming its first bot; and
``serve`` refuses a --bot flag or tokens-file line with the token of another bot of the store.

Tokens are random (``new_token``), so the tests make one repeat by replacing the generator."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from arbiter.ladder.adapters import token_shared_with_store
from arbiter.sessions.auth import BotDirectory, TokenError, hash_token
from arbiter.store import SqlStore, StoreError

from tests.conftest import ROOT

TOKEN = "one-token-for-two-bots"


def test_a_directory_refuses_a_second_bot_with_a_token_in_use_in_either_form():
    for first, second in ((TOKEN, TOKEN), (TOKEN, hash_token(TOKEN)), (hash_token(TOKEN), TOKEN)):
        bots = BotDirectory()
        bots.add("alice", first)
        with pytest.raises(TokenError, match="'bob' uses a token that another bot already has"):
            bots.add("bob", second)
        assert bots.names() == ["alice"]
        assert bots.authenticate(TOKEN) == "alice"
    bots = BotDirectory()
    with pytest.raises(TokenError, match="'bob'"):
        bots.add_specs([f"alice={TOKEN}", f"bob={TOKEN}"])


@pytest.fixture
def store(store_url: str, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr("arbiter.store.sql.new_token", lambda: TOKEN)
    opened = SqlStore(store_url)
    opened.upgrade()
    yield opened
    opened.close()


def test_the_store_refuses_a_second_bot_with_a_token_in_use(store):
    assert store.add_bot("alice", "ann") == TOKEN
    with pytest.raises(StoreError):
        store.add_bot("bob", "bob")
    assert [bot.name for bot in store.list_bots()] == ["alice"]
    found = store.authenticate(TOKEN)
    assert found is not None and found.name == "alice"


def test_the_store_refuses_to_rotate_a_token_to_one_in_use(store, monkeypatch):
    assert store.add_bot("alice", "ann") == TOKEN
    monkeypatch.setattr("arbiter.store.sql.new_token", lambda: "bobs-own-token")
    bob = store.add_bot("bob", "bob")
    monkeypatch.setattr("arbiter.store.sql.new_token", lambda: TOKEN)
    with pytest.raises(StoreError):
        store.rotate_token("bob")
    names = {token: getattr(store.authenticate(token), "name", None) for token in (TOKEN, bob)}
    assert names == {TOKEN: "alice", bob: "bob"}


def test_serve_refuses_a_flag_bot_with_the_token_of_another_bot_of_the_store(tmp_path):
    url = f"sqlite:///{tmp_path / 'arbiter.db'}"
    store = SqlStore(url)
    store.upgrade()
    bobs = store.add_bot("bob", "bob")
    alices = store.add_bot("alice", "ann")
    store.close()
    common = ["--database", url, "--port", "0", "--records", str(tmp_path / "records")]
    line = refused([f"--bot=alice={alices}", f"--bot=eve={bobs}", *common], tmp_path)
    assert line == "error: bot 'eve' (--bot or --tokens-file) uses the token of the store's bot 'bob': " + (
        "a token names one bot"
    )
    # A tokens file's hash of a store bot's token is that token too (checked without a process).
    (tmp_path / "bots.txt").write_text(f"alice={alices}\nmallory={hash_token(alices)}\n")
    bots = BotDirectory()
    with pytest.raises(TokenError, match="'mallory' uses a token that another bot already has"):
        bots.load_file(tmp_path / "bots.txt")
    bots = BotDirectory()
    bots.add("mallory", hash_token(alices))
    bots.add("bob", bobs)  # bob's own token: no clash
    store = SqlStore(url)
    try:
        found = token_shared_with_store(bots, store)
    finally:
        store.close()
    assert found == "bot 'mallory' (--bot or --tokens-file) uses the token of the store's bot 'alice'"


def refused(arguments: list[str], where: Path) -> str:
    """The one line of an ``arbiter serve`` that must refuse to start (killed if it serves)."""
    command = [sys.executable, "-m", "arbiter.cli", "serve", *arguments]
    env = dict(os.environ, PYTHONPATH=f"{ROOT / 'server'}:{ROOT / 'clients' / 'python'}")
    process = subprocess.Popen(
        command, cwd=where, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        _, stderr = process.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        pytest.fail("arbiter serve started with a token that names two bots")
    assert process.returncode == 2, stderr
    [line] = stderr.strip().splitlines()
    return line
