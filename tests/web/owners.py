"""Bot owners on the web pages, driven over HTTP (FastAPI's TestClient): a store, the app over it
with the account settings a test gives, and an ``Owner`` per browser (its own cookies)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from arbiter.security.ratelimit import Limit
from arbiter.store import SqlStore
from arbiter.web.accounts import AccountSettings
from arbiter.web.app import create_app
from fastapi import FastAPI
from fastapi.testclient import TestClient

PASSWORD = "correct horse battery"
#: Limits no test of the pages reaches (the limits' own tests use the real ones).
UNLIMITED = {
    "login_failures": Limit(10_000, 1.0),
    "logins": Limit(10_000, 1.0),
    "signups": Limit(10_000, 1.0),
}
CSRF = re.compile(r'name="csrf" value="([^"]+)"')
TOKEN = re.compile(r'class="token-value" readonly value="([^"]+)"')


def new_store(folder: Path) -> SqlStore:
    store = SqlStore(f"sqlite:///{folder / 'arbiter.db'}")
    store.upgrade()
    return store


def owners_app(store: SqlStore, connected: Callable[[str], bool] | None = None, **settings: Any) -> FastAPI:
    """The web app over ``store``; ``settings`` go to AccountSettings (sign-up open, no limits
    unless given)."""
    given: dict[str, Any] = {"signup": "open", **UNLIMITED, **settings}
    return create_app(store, connected=connected, accounts=AccountSettings(**given))


class Owner:
    """One browser: its own cookies, on ``app``."""

    def __init__(self, app: FastAPI, base_url: str = "http://testserver") -> None:
        self.client = TestClient(app, base_url=base_url, follow_redirects=False)

    def csrf(self, path: str = "/login") -> str:
        found = CSRF.search(self.client.get(path).text)
        assert found is not None, f"no form on {path}"
        return found.group(1)

    def post(self, path: str, token: str | None = None, **fields: str) -> Any:
        """A form of the pages, with the session's CSRF token (from ``path`` if not given)."""
        form = {"csrf": token if token is not None else self.csrf("/account"), **fields}
        return self.client.post(path, data=form)

    def signup(self, name: str, password: str = PASSWORD, invite: str | None = None) -> Any:
        fields = {"name": name, "password": password, "password2": password}
        if invite is not None:
            fields["invite"] = invite
        return self.post("/signup", self.csrf("/signup"), **fields)

    def login(self, name: str, password: str = PASSWORD) -> Any:
        return self.post("/login", self.csrf("/login"), name=name, password=password)

    def create_bot(self, name: str) -> str:
        """Create bot ``name``; the token its page shows once."""
        answer = self.post("/account/bots", name=name)
        assert answer.status_code == 200, answer.text
        found = TOKEN.search(answer.text)
        assert found is not None
        return found.group(1)
