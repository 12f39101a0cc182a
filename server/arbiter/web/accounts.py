"""Bot owners on the web pages (docs/accounts.md): sign up, log in and out, the account page with
the owner's bots, and each bot's page for its owner (its token made once, rotated; disable,
enable; its connection, ladders, failures, pauses with a button to resume, latest matches).

Every route that names a bot reads it through ``store.account_bot(account, name)``: a bot of
another account is the same 404 as a bot that does not exist. Every POST is a form of these
pages: its ``Origin`` (when sent) is this host and its ``csrf`` field is the session's token
(``sessions.check_csrf``), else 403. Pages for an account say ``Cache-Control: no-store``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Annotated, Any, TypeVar
from urllib.parse import quote

from fastapi import Depends, FastAPI, HTTPException, Request
from fastapi.responses import RedirectResponse, Response
from fastapi.templating import Jinja2Templates

from ..security.passwords import BadPassword, check_password, hash_password, verify
from ..security.ratelimit import Limit
from ..store import SqlStore, StoreError
from ..store.accounts import AccountRow
from . import pages
from .sessions import (
    COOKIE,
    LOGIN_FAILURES_PER_ACCOUNT,
    LOGINS_PER_ADDRESS,
    SIGNUPS_PER_ADDRESS,
    Limits,
    SessionCodec,
    SessionData,
    check_csrf,
    client_address,
    new_session,
    read_form,
    too_many,
)

SIGNUP_POLICIES = ("open", "invite", "closed")
#: A route's function.
Route = TypeVar("Route", bound=Callable[..., Any])
#: A posted form's fields (``sessions.read_form``).
Posted = Annotated[dict[str, str], Depends(read_form)]
#: The latest matches an owner's bot page lists.
LATEST = 10


@dataclass(frozen=True)
class AccountSettings:
    """What the host sets: the sign-up policy, the cookies' key (None: the store's), the limits,
    and, inside the arbiter's process, the ladders a bot has joined now."""

    signup: str = "invite"
    secret: bytes | None = None
    joined: Callable[[str], list[str]] | None = None
    login_failures: Limit = LOGIN_FAILURES_PER_ACCOUNT
    logins: Limit = LOGINS_PER_ADDRESS
    signups: Limit = SIGNUPS_PER_ADDRESS
    clock: Callable[[], float] = field(default=time.monotonic)

    def __post_init__(self) -> None:
        if self.signup not in SIGNUP_POLICIES:
            choices = ", ".join(SIGNUP_POLICIES)
            raise ValueError(f"the sign-up policy is one of {choices}, not {self.signup!r}")


def add_account_routes(  # noqa: C901 - the routes are small closures over the store, one after another
    app: FastAPI,
    store: SqlStore,
    templates: Jinja2Templates,
    settings: AccountSettings,
    connected: Callable[[str], bool] | None,
) -> None:
    """Add the owners' pages to ``app`` (none of them in the OpenAPI description)."""

    def get(path: str) -> Callable[[Route], Route]:
        return app.get(path, include_in_schema=False)

    def post(path: str) -> Callable[[Route], Route]:
        return app.post(path, include_in_schema=False)

    codec = SessionCodec(settings.secret if settings.secret is not None else store.web_secret())
    limits = Limits(settings.clock, settings.login_failures, settings.logins, settings.signups)

    def signed_in(session: SessionData | None) -> AccountRow | None:
        """The session's account if the session still stands (not logged out, not disabled)."""
        if session is None or session.account is None:
            return None
        account = store.account(session.account)
        if account is None or account.disabled or account.session_epoch != session.epoch:
            return None
        return account

    def visitor(request: Request) -> tuple[SessionData, AccountRow | None, bool]:
        """The visitor's session (a new one without an account if it has none that stands), its
        account, and whether the session is new (its cookie is set with the answer)."""
        session = codec.load(request.cookies.get(COOKIE))
        account = signed_in(session)
        if session is None or (session.account is not None and account is None):
            return new_session(), None, True
        return session, account, False

    def render(
        request: Request,
        template: str,
        session: SessionData,
        account: AccountRow | None,
        fresh: bool = False,
        status: int = 200,
        **context: Any,
    ) -> Response:
        context.update(csrf=session.csrf, account=account, signup=settings.signup)
        response = templates.TemplateResponse(request, template, context, status_code=status)
        response.headers["Cache-Control"] = "no-store"
        if fresh:
            codec.set_cookie(request, response, session)
        return response

    def redirect(to: str) -> RedirectResponse:
        return RedirectResponse(to, status_code=303, headers={"Cache-Control": "no-store"})

    def owner(request: Request, form: dict[str, str]) -> tuple[SessionData, AccountRow]:
        """A posted form's session and account: 403 without the CSRF token, 401 logged out."""
        session = check_csrf(codec, request, form)
        account = signed_in(session)
        if account is None:
            raise HTTPException(401, "log in first")
        return session, account

    def owned(account: AccountRow, name: str) -> None:
        if store.account_bot(account.id, name) is None:
            raise HTTPException(404, f"no bot {name!r} among your bots")

    # --- sign up, log in, log out -------------------------------------------------------------
    @get("/signup")
    def signup_page(request: Request) -> Response:
        session, account, fresh = visitor(request)
        status = 403 if settings.signup == "closed" else 200
        return render(request, "signup.html", session, account, fresh, status, error=None, name="")

    @post("/signup")
    def signup(request: Request, form: Posted) -> Response:
        session = check_csrf(codec, request, form)
        if settings.signup == "closed":
            raise HTTPException(403, "sign-up is closed on this site: ask its host for an account")
        wait = limits.signup(client_address(request))
        if wait > 0:
            raise too_many(wait, "sign-ups from your address")
        name, password = form.get("name", "").strip(), form.get("password", "")
        try:
            if password != form.get("password2", ""):
                raise BadPassword("the two passwords differ")
            check_password(password)
            invite = form.get("invite", "").strip() if settings.signup == "invite" else None
            made = store.add_account(name, hash_password(password), invite)
        except (BadPassword, StoreError) as exc:
            return render(request, "signup.html", session, None, False, 400, error=str(exc), name=name)
        response = redirect("/account")
        codec.set_cookie(request, response, new_session(made.id, made.session_epoch))
        return response

    @get("/login")
    def login_page(request: Request) -> Response:
        session, account, fresh = visitor(request)
        return render(request, "login.html", session, account, fresh, error=None, name="")

    @post("/login")
    def login(request: Request, form: Posted) -> Response:
        session = check_csrf(codec, request, form)
        name, password = form.get("name", "").strip(), form.get("password", "")
        wait = limits.login(client_address(request), name)
        if wait > 0:
            raise too_many(wait, "login attempts")
        found = store.password_hash_of(name)
        if not verify(found[1] if found is not None else None, password) or found is None:
            limits.failed(name)
            error = "wrong account name or password"
            return render(request, "login.html", session, None, False, 401, error=error, name=name)
        account = found[0]
        if account.disabled:
            error = "this account is disabled by the site's host"
            return render(request, "login.html", session, None, False, 403, error=error, name=name)
        response = redirect("/account")
        # A new session (a new CSRF token): whatever session the browser had before is not this one.
        codec.set_cookie(request, response, new_session(account.id, account.session_epoch))
        return response

    @post("/logout")
    def logout(request: Request, form: Posted) -> Response:
        session = check_csrf(codec, request, form)
        account = signed_in(session)
        if account is not None:
            store.end_sessions(account.id)
        response = redirect("/login")
        codec.set_cookie(request, response, new_session())
        return response

    # --- the account page and its bots --------------------------------------------------------
    @get("/account")
    def account_page(request: Request) -> Response:
        session, account, _fresh = visitor(request)
        if account is None:
            return redirect("/login")
        return render_account(request, session, account)

    def render_account(
        request: Request,
        session: SessionData,
        account: AccountRow,
        status: int = 200,
        error: str | None = None,
    ) -> Response:
        bots = store.account_bots(account.id)
        online = {bot.name: connected(bot.name) for bot in bots} if connected is not None else None
        context = {"bots": bots, "online": online, "error": error}
        return render(request, "account.html", session, account, False, status, **context)

    @post("/account/bots")
    def create_bot(request: Request, form: Posted) -> Response:
        session, account = owner(request, form)
        name = form.get("name", "").strip()
        try:
            token = store.add_account_bot(account.id, name)
        except StoreError as exc:
            return render_account(request, session, account, 400, str(exc))
        return render_bot(request, session, account, name, token)

    def render_bot(
        request: Request, session: SessionData, account: AccountRow, name: str, token: str | None = None
    ) -> Response:
        row = store.account_bot(account.id, name)
        page = pages.bot_page(store, name, connected, None, LATEST)
        if row is None or page is None:
            raise HTTPException(404, f"no bot {name!r} among your bots")
        joined = settings.joined(name) if settings.joined is not None else None
        seen = last_seen(page, name)
        context = {"bot": row, "page": page, "token": token, "joined": joined, "last_seen": seen}
        return render(request, "account_bot.html", session, account, False, 200, **context)

    def last_seen(page: Any, name: str) -> float | None:
        """The latest time the store knows the bot was there: its latest match's start or end,
        or its latest first join with a new version."""
        times = [t for m in page.matches for t in (m.started_at, m.ended_at) if t is not None]
        times += [first for _version, first in store.versions_of(name)]
        return max(times) if times else None

    @get("/account/bots/{name}")
    def bot_page(request: Request, name: str) -> Response:
        session, account, _fresh = visitor(request)
        if account is None:
            return redirect("/login")
        return render_bot(request, session, account, name)

    @post("/account/bots/{name}/rotate")
    def rotate(request: Request, name: str, form: Posted) -> Response:
        session, account = owner(request, form)
        owned(account, name)
        return render_bot(request, session, account, name, store.rotate_token(name))

    @post("/account/bots/{name}/disable")
    def disable(request: Request, name: str, form: Posted) -> Response:
        _session, account = owner(request, form)
        owned(account, name)
        store.set_bot_enabled(name, False)
        return redirect(f"/account/bots/{_quoted(name)}")

    @post("/account/bots/{name}/enable")
    def enable(request: Request, name: str, form: Posted) -> Response:
        _session, account = owner(request, form)
        owned(account, name)
        store.set_bot_enabled(name, True)
        return redirect(f"/account/bots/{_quoted(name)}")

    @post("/account/bots/{name}/resume")
    def resume(request: Request, name: str, form: Posted) -> Response:
        _session, account = owner(request, form)
        owned(account, name)
        ladder = form.get("ladder", "")
        if ladder not in store.pauses_of(name):
            raise HTTPException(404, f"bot {name!r} is not paused on ladder {ladder!r}")
        store.resume_bot(ladder, name)
        return redirect(f"/account/bots/{_quoted(name)}")


def _quoted(name: str) -> str:
    return quote(name, safe="")


__all__ = ["SIGNUP_POLICIES", "AccountSettings", "add_account_routes"]
