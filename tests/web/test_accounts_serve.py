"""The owners' pages as the commands serve them (docs/accounts.md, "What the host controls"):
``arbiter serve --web`` (the pages in their own process, and ``--web-in-process``) and ``arbiter
web`` take ``--signup`` and ``--web-secret-file``; over real HTTP, an account made on the pages
and its bot are in the store, and the session cookie is signed with the file's key."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest
from arbiter.store import SqlStore
from arbiter.web.sessions import COOKIE, SessionCodec

from tests.web.owners import CSRF, PASSWORD, TOKEN

from .test_processes import start, stop

KEY = b"a key of the host's, long enough for the rule"


def serving(command: str, store: SqlStore, *options: str) -> list[str]:
    if command == "serve":
        return ["serve", "--database", store.url, "--port", "0", "--web", "127.0.0.1:0", *options]
    return ["web", "--database", store.url, "--port", "0", *options]


@pytest.fixture
def store(tmp_path: Path):
    opened = SqlStore(f"sqlite:///{tmp_path / 'arbiter.db'}")
    opened.upgrade()
    opened.add_bot("house", "the host")  # serve needs a bot
    yield opened
    opened.close()


def sign_up(client: httpx.Client, name: str, invite: str | None = None) -> httpx.Response:
    found = CSRF.search(client.get("/signup").text)
    assert found is not None
    form = {"csrf": found.group(1), "name": name, "password": PASSWORD, "password2": PASSWORD}
    if invite is not None:
        form["invite"] = invite
    return client.post("/signup", data=form)


@pytest.mark.parametrize(
    "command", [["serve"], ["serve", "--web-in-process"], ["web"]], ids=["serve", "in-process", "web"]
)
def test_open_sign_up_with_the_hosts_key_makes_the_account_and_its_bot(store, tmp_path, command):
    secret = tmp_path / "web.key"
    secret.write_bytes(KEY + b"\n")
    process, lines = start(
        serving(command[0], store, *command[1:], "--signup", "open", "--web-secret-file", str(secret))
    )
    try:
        with httpx.Client(base_url=lines[-1].removeprefix("web pages on "), timeout=20) as client:
            assert sign_up(client, "alice").status_code == 303
            session = SessionCodec(KEY).load(client.cookies[COOKIE])
            assert session is not None and session.account == store.list_accounts()[0].id
            page = client.get("/account").text
            made = client.post("/account/bots", data={"csrf": CSRF.search(page).group(1), "name": "ann"})
            token = TOKEN.search(made.text)
            assert made.status_code == 200 and token is not None
            assert store.authenticate(token.group(1)).name == "ann"
    finally:
        stop(process)


@pytest.mark.parametrize("command", ["serve", "web"])
def test_the_default_policy_takes_an_invite_and_closed_takes_none(store, command):
    invite = store.add_invite()
    process, lines = start(serving(command, store))
    try:
        with httpx.Client(base_url=lines[-1].removeprefix("web pages on "), timeout=20) as client:
            assert sign_up(client, "nocode").status_code == 400
            assert sign_up(client, "alice", invite).status_code == 303
    finally:
        stop(process)
    process, lines = start(serving(command, store, "--signup", "closed"))
    try:
        with httpx.Client(base_url=lines[-1].removeprefix("web pages on "), timeout=20) as client:
            assert client.get("/signup").status_code == 403
            assert re.search("Sign-up is closed", client.get("/signup").text)
    finally:
        stop(process)
    assert [row.name for row in store.list_accounts()] == ["alice"]
