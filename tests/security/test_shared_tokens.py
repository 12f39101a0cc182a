"""Two bots never share one token (issue 20, item 16): adding a bot, or rotating one's token, to
a token another bot has fails and changes nothing; the token goes on naming its first bot.

Tokens are random (``new_token``), so the tests make one repeat by replacing the generator."""

from __future__ import annotations

import pytest
from arbiter.sessions.auth import BotDirectory, TokenError, hash_token
from arbiter.store import SqlStore, StoreError

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
