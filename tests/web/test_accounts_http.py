"""Accounts over HTTP (docs/accounts.md): the sign-up policies, log in and out, the session
cookie's flags, a new session at login, CSRF tokens, the login and sign-up limits, and passwords
kept only as argon2id hashes."""

from __future__ import annotations

import logging
import re
from pathlib import Path

import pytest
from arbiter.security.passwords import verify
from arbiter.security.ratelimit import Limit
from arbiter.web.sessions import COOKIE, LOGIN_FAILURES_PER_ACCOUNT, SESSION_SECONDS
from sqlalchemy import text

from tests.web.owners import PASSWORD, Owner, new_store, owners_app


@pytest.fixture
def store(tmp_path):
    opened = new_store(tmp_path)
    yield opened
    opened.close()


def test_open_sign_up_logs_the_new_owner_in(store):
    owner = Owner(owners_app(store, signup="open"))
    answer = owner.signup("alice")
    assert answer.status_code == 303 and answer.headers["location"] == "/account"
    page = owner.client.get("/account")
    assert page.status_code == 200 and 'class="account-name">alice<' in page.text
    assert page.headers["cache-control"] == "no-store"


def test_invite_sign_up_takes_a_good_code_once_per_use(store):
    app = owners_app(store, signup="invite")
    code = store.add_invite(uses=1)
    assert 'name="invite"' in Owner(app).client.get("/signup").text
    assert Owner(app).signup("nocode").status_code == 400
    assert Owner(app).signup("wrong", invite="not-a-code").status_code == 400
    assert Owner(app).signup("alice", invite=code).status_code == 303
    used = Owner(app).signup("bob", invite=code)
    assert used.status_code == 400 and "unknown, used up or expired" in used.text
    assert [row.name for row in store.list_accounts()] == ["alice"]


def test_an_expired_invite_is_refused(tmp_path):
    now = [1_800_000_000.0]
    from arbiter.store import SqlStore

    store = SqlStore(f"sqlite:///{tmp_path / 'clocked.db'}", clock=lambda: now[0])
    store.upgrade()
    code = store.add_invite(uses=5, expires_at=now[0] + 60)
    app = owners_app(store, signup="invite")
    assert Owner(app).signup("early", invite=code).status_code == 303
    now[0] += 61
    assert Owner(app).signup("late", invite=code).status_code == 400
    assert [row.name for row in store.list_accounts()] == ["early"]
    store.close()


def test_closed_sign_up_refuses_every_account(store):
    app = owners_app(store, signup="closed")
    owner = Owner(app)
    page = owner.client.get("/signup")
    assert page.status_code == 403 and "Sign-up is closed" in page.text
    token = owner.csrf("/login")
    answer = owner.post("/signup", token, name="alice", password=PASSWORD, password2=PASSWORD)
    assert answer.status_code == 403
    assert store.list_accounts() == []


def test_bad_names_and_passwords_are_refused(store):
    app = owners_app(store)
    assert Owner(app).signup("al/ice").status_code == 400
    assert Owner(app).signup("alice", password="short").status_code == 400
    owner = Owner(app)
    token = owner.csrf("/signup")
    differ = owner.post("/signup", token, name="alice", password=PASSWORD, password2=PASSWORD + "x")
    assert differ.status_code == 400 and "differ" in differ.text
    assert Owner(app).signup("alice").status_code == 303
    again = Owner(app).signup("ALICE")  # one account per name, whatever the letters' case
    assert again.status_code == 400 and "exists already" in again.text


def test_login_logout_and_a_new_session_at_login(store):
    app = owners_app(store)
    Owner(app).signup("alice")
    owner = Owner(app)
    before_token = owner.csrf("/login")
    before = owner.client.cookies[COOKIE]
    assert owner.client.get("/account").status_code == 303  # not logged in: to /login
    wrong = owner.login("alice", "not the password")
    assert wrong.status_code == 401 and "wrong account name or password" in wrong.text
    assert owner.login("alice").status_code == 303
    after = owner.client.cookies[COOKIE]
    assert after != before
    # The session from before the login (a fixed one) is not logged in, and its token is gone.
    fixed = Owner(app)
    fixed.client.cookies.set(COOKIE, before)
    assert fixed.client.get("/account").status_code == 303
    assert owner.csrf("/account") != before_token
    copied = Owner(app)
    copied.client.cookies.set(COOKIE, after)
    assert copied.client.get("/account").status_code == 200
    assert owner.post("/logout").status_code == 303
    assert owner.client.get("/account").status_code == 303
    # Logging out ends every session of the account: a copy of the cookie is worth nothing.
    assert copied.client.get("/account").status_code == 303


def test_a_forged_or_foreign_cookie_is_no_session(store):
    app = owners_app(store)
    owner = Owner(app)
    owner.signup("alice")
    cookie = owner.client.cookies[COOKIE]
    payload, stamp, signature = cookie.split(".")
    forged = Owner(app)
    forged.client.cookies.set(COOKIE, f"{payload}.{stamp}.{'A' * len(signature)}")
    assert forged.client.get("/account").status_code == 303
    other_key = Owner(owners_app(store, secret=b"k" * 32))
    other_key.client.cookies.set(COOKIE, cookie)
    assert other_key.client.get("/account").status_code == 303


def test_the_session_cookie_is_httponly_samesite_lax_and_secure_over_https(store):
    app = owners_app(store)
    plain = Owner(app).client.get("/login").headers["set-cookie"]
    assert plain.startswith(f"{COOKIE}=")
    flags = [part.strip().lower() for part in plain.split(";")[1:]]
    assert "httponly" in flags and "samesite=lax" in flags and "path=/" in flags
    assert f"max-age={SESSION_SECONDS}" in flags and "secure" not in flags
    secure = Owner(app, base_url="https://testserver")
    answer = secure.signup("alice")
    flags = [part.strip().lower() for part in answer.headers["set-cookie"].split(";")[1:]]
    assert "secure" in flags and "httponly" in flags and "samesite=lax" in flags


def test_every_form_post_without_the_sessions_csrf_token_is_refused(store):
    app = owners_app(store)
    owner = Owner(app)
    owner.signup("alice")
    owner.create_bot("ann")
    token = owner.csrf("/account")
    other = Owner(app).csrf("/login")  # a good token of another session
    posts = {
        "/signup": {"name": "bob", "password": PASSWORD, "password2": PASSWORD},
        "/login": {"name": "alice", "password": PASSWORD},
        "/account/bots": {"name": "ben"},
        "/account/bots/ann/rotate": {},
        "/account/bots/ann/disable": {},
        "/account/bots/ann/enable": {},
        "/account/bots/ann/resume": {"ladder": "t5"},
        "/logout": {},
    }
    for path, fields in posts.items():
        for bad in ({}, {"csrf": ""}, {"csrf": other}, {"csrf": token + "x"}):
            answer = owner.client.post(path, data={**fields, **bad})
            assert answer.status_code == 403, (path, bad)
        # The right token, from another site's page (a browser says so in Origin): refused too.
        answer = owner.client.post(
            path, data={**fields, "csrf": token}, headers={"Origin": "https://evil.example"}
        )
        assert answer.status_code == 403, path
    assert [row.name for row in store.list_accounts()] == ["alice"]
    assert [bot.name for bot in store.list_bots()] == ["ann"] and store.get_bot("ann").enabled
    assert owner.client.get("/account").status_code == 200  # still logged in
    same_site = owner.client.post(
        "/account/bots", data={"name": "ben", "csrf": token}, headers={"Origin": "http://testserver"}
    )
    assert same_site.status_code == 200


def test_wrong_passwords_are_limited_per_account(store):
    clock = [0.0]
    app = owners_app(store, login_failures=LOGIN_FAILURES_PER_ACCOUNT, clock=lambda: clock[0])
    Owner(app).signup("alice")
    guesser = Owner(app)
    for _ in range(LOGIN_FAILURES_PER_ACCOUNT.count):
        assert guesser.login("alice", "wrong password").status_code == 401
    refused = guesser.login("alice")  # even the right password, from anywhere, until it refills
    assert refused.status_code == 429 and int(refused.headers["retry-after"]) > 0
    assert Owner(app).login("ALICE").status_code == 429
    assert Owner(app).signup("bob").status_code == 303 and Owner(app).login("bob").status_code == 303
    clock[0] += LOGIN_FAILURES_PER_ACCOUNT.period / LOGIN_FAILURES_PER_ACCOUNT.count + 1
    assert Owner(app).login("alice").status_code == 303


def test_login_attempts_and_sign_ups_are_limited_per_address(store):
    clock = [0.0]
    app = owners_app(store, logins=Limit(3, 60.0), signups=Limit(2, 60.0), clock=lambda: clock[0])
    assert Owner(app).signup("alice").status_code == 303
    assert Owner(app).signup("bob").status_code == 303
    assert Owner(app).signup("carol").status_code == 429
    for name in ("x1", "x2", "alice"):
        assert Owner(app).login(name).status_code in (303, 401)
    assert Owner(app).login("bob").status_code == 429
    clock[0] += 61
    assert Owner(app).login("bob").status_code == 303


def test_passwords_are_kept_only_as_argon2id_hashes_and_never_logged(store, caplog):
    caplog.set_level(logging.DEBUG)
    app = owners_app(store)
    Owner(app).signup("alice")
    Owner(app).login("alice")
    Owner(app).login("alice", "a wrong password here")
    with store.transaction() as session:
        (stored,) = session.execute(text("SELECT password_hash FROM accounts")).one()
    assert stored.startswith("$argon2id$") and PASSWORD not in stored
    assert verify(stored, PASSWORD) and not verify(stored, PASSWORD + "!")
    raw = Path(re.sub(r"^sqlite:///", "", store.url)).read_bytes()
    assert PASSWORD.encode() not in raw and b"a wrong password here" not in raw
    assert PASSWORD not in caplog.text and "a wrong password here" not in caplog.text


def test_a_disabled_account_cannot_log_in_and_its_sessions_end(store):
    app = owners_app(store)
    owner = Owner(app)
    owner.signup("alice")
    owner.create_bot("ann")
    store.set_account_disabled("alice", True)  # `arbiter accounts disable alice`
    assert owner.client.get("/account").status_code == 303
    refused = Owner(app).login("alice")
    assert refused.status_code == 403 and "disabled" in refused.text
    assert not store.credentials(["ann"])["ann"].enabled  # its bots are refused as disabled bots
    store.set_account_disabled("alice", False)
    assert Owner(app).login("alice").status_code == 303
    assert store.credentials(["ann"])["ann"].enabled


def test_a_form_that_is_not_a_form_is_refused(store):
    owner = Owner(owners_app(store))
    token = owner.csrf("/login")
    assert owner.client.post("/login", json={"csrf": token}).status_code == 415
    big = owner.client.post("/login", data={"csrf": token, "name": "x" * 10_000})
    assert big.status_code == 413
