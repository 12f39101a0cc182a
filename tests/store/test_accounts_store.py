"""The store's accounts (migration 0010) on SQLite and PostgreSQL: names unique whatever their
case, invites used up once per use and not after they expire, only hashes kept, a disabled
account's bots refused, the sessions' epoch, each account's own bots, the cookies' key."""

from __future__ import annotations

import pytest
from arbiter.sessions.auth import hash_token
from arbiter.store import StoreError
from sqlalchemy import text

HASH = "$argon2id$v=19$m=65536,t=3,p=4$c29tZXNhbHQ$aGFzaA"


def test_names_follow_the_rule_and_are_unique_whatever_their_case(store):
    alice = store.add_account("Alice", HASH)
    assert (alice.name, alice.disabled, alice.admin, alice.session_epoch) == ("Alice", False, False, 0)
    with pytest.raises(StoreError, match="exists already"):
        store.add_account("alice", HASH)
    with pytest.raises(StoreError, match="bad account name"):
        store.add_account("al ice", HASH)
    found = store.password_hash_of("ALICE")
    assert found is not None and found[0].id == alice.id and found[1] == HASH
    assert store.password_hash_of("bob") is None


def test_an_invite_serves_its_uses_until_it_expires(store, clock):
    code = store.add_invite(uses=2, expires_at=clock.now + 100)
    with store.transaction() as session:
        stored = session.execute(text("SELECT code_hash, uses_left FROM invites")).one()
    assert tuple(stored) == (hash_token(code), 2)  # only its hash
    store.add_account("a1", HASH, code)
    clock.now += 50
    store.add_account("a2", HASH, code)
    with pytest.raises(StoreError, match="unknown, used up or expired"):
        store.add_account("a3", HASH, code)
    late = store.add_invite(uses=5, expires_at=clock.now + 10)
    clock.now += 20
    for bad in (late, "", "nonsense"):
        with pytest.raises(StoreError, match="unknown, used up or expired"):
            store.add_account("a4", HASH, bad)
    assert [row.name for row in store.list_accounts()] == ["a1", "a2"]
    with pytest.raises(StoreError):
        store.add_invite(uses=0)


def test_a_disabled_accounts_bots_are_refused_and_its_sessions_end(store):
    alice = store.add_account("alice", HASH)
    token = store.add_account_bot(alice.id, "ann")
    other = store.add_bot("hosts", "the host")
    assert store.credentials(["ann", "hosts"])["ann"].enabled
    store.set_account_disabled("alice", True)
    assert store.account(alice.id).session_epoch == 1 and store.account(alice.id).disabled
    assert not store.credentials(["ann"])["ann"].enabled and store.credentials(["hosts"])["hosts"].enabled
    assert not store.authenticate(token).enabled and store.authenticate(other).enabled
    with pytest.raises(StoreError, match="cannot add bots"):
        store.add_account_bot(alice.id, "more")
    store.set_account_disabled("alice", False)
    assert store.credentials(["ann"])["ann"].enabled and store.authenticate(token).enabled
    store.end_sessions(alice.id)
    assert store.account(alice.id).session_epoch == 3


def test_an_account_reaches_its_own_bots_only(store):
    alice, bob = store.add_account("alice", HASH), store.add_account("bob", HASH)
    store.add_account_bot(alice.id, "ann")
    store.add_account_bot(bob.id, "ben")
    store.add_bot("old", "Old Owner")
    assert [bot.name for bot in store.account_bots(alice.id)] == ["ann"]
    assert store.account_bot(alice.id, "ann").owner == "alice"
    assert store.account_bot(alice.id, "ben") is None and store.account_bot(alice.id, "old") is None
    store.attach_bot("old", "ALICE")
    assert [bot.name for bot in store.account_bots(alice.id)] == ["ann", "old"]
    assert [(row.name, row.bots) for row in store.list_accounts()] == [("alice", 2), ("bob", 1)]
    store.set_account_admin("bob")
    assert [row.admin for row in store.list_accounts()] == [False, True]
    store.remove_bot("ann")  # a bot of an account that never played goes as any other
    assert [bot.name for bot in store.account_bots(alice.id)] == ["old"]


def test_the_cookies_key_is_made_once(store):
    key = store.web_secret()
    assert len(key) == 32 and store.web_secret() == key
