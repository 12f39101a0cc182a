"""The web pages' sessions (docs/accounts.md, "Sessions"): a signed cookie, a CSRF token on
every form, and the limits on logins and sign-ups.

The cookie ``arbiter_session`` holds ``{"a": account id or null, "e": the account's session
epoch, "c": the CSRF token}``, signed with the web secret (HMAC-SHA1 by itsdangerous, with a
timestamp: it is good for ``SESSION_SECONDS``). It is HttpOnly, SameSite=Lax, Path=/, and Secure
when the page was asked for over HTTPS. A visitor without a session gets one (no account) on the
first page with a form; logging in replaces it by a new one with a new CSRF token (a session
fixed by someone else before the login is worth nothing after it); logging out or disabling the
account moves the account's epoch on, which ends every session of it.
"""

from __future__ import annotations

import hmac
import secrets
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlsplit

from fastapi import HTTPException, Request
from itsdangerous import BadSignature, URLSafeTimedSerializer

from ..security.ratelimit import KeyedBuckets, Limit, address_key

COOKIE = "arbiter_session"
#: How long a session lasts (seconds): 14 days from its login.
SESSION_SECONDS = 14 * 24 * 3600
#: The largest form body taken (bytes); a larger one is 413.
MAX_FORM = 8192
#: The most fields a form may have; more is 400.
MAX_FIELDS = 20
#: Failed logins per account name: 5 at once, then one more each minute.
LOGIN_FAILURES_PER_ACCOUNT = Limit(5, 300.0)
#: Login attempts per address (an IPv4 address or an IPv6 /64): 20 at once, then one each 15 s.
LOGINS_PER_ADDRESS = Limit(20, 300.0)
#: Sign-ups per address: 5 at once, then one each 12 minutes.
SIGNUPS_PER_ADDRESS = Limit(5, 3600.0)


@dataclass(frozen=True)
class SessionData:
    account: int | None
    epoch: int
    csrf: str


def new_session(account: int | None = None, epoch: int = 0) -> SessionData:
    return SessionData(account, epoch, secrets.token_urlsafe(24))


class SessionCodec:
    """Signs and reads session cookies with ``secret``."""

    def __init__(self, secret: bytes, max_age: int = SESSION_SECONDS) -> None:
        self._serializer = URLSafeTimedSerializer(secret, salt="arbiter.web.session")
        self.max_age = max_age

    def dump(self, data: SessionData) -> str:
        return str(self._serializer.dumps({"a": data.account, "e": data.epoch, "c": data.csrf}))

    def load(self, value: str | None) -> SessionData | None:
        """The session a cookie holds; None when there is none, or it is forged or too old."""
        if not value:
            return None
        try:
            raw: Any = self._serializer.loads(value, max_age=self.max_age)
        except BadSignature:  # SignatureExpired too
            return None
        if not isinstance(raw, dict):
            return None
        account, epoch, csrf = raw.get("a"), raw.get("e"), raw.get("c")
        if not (account is None or isinstance(account, int)) or not isinstance(epoch, int):
            return None
        if not isinstance(csrf, str) or not csrf:
            return None
        return SessionData(account, epoch, csrf)

    def set_cookie(self, request: Request, response: Any, data: SessionData) -> None:
        response.set_cookie(
            COOKIE,
            self.dump(data),
            max_age=self.max_age,
            path="/",
            httponly=True,
            samesite="lax",
            secure=request.url.scheme == "https",
        )


def client_address(request: Request) -> str:
    """The key a visitor is limited by: its IPv4 address or its IPv6 /64."""
    return address_key(request.client.host if request.client is not None else "")


def same_origin(request: Request) -> bool:
    """Whether a POST comes from this site's own pages: its ``Origin`` header (sent by browsers
    with every form they post), when there is one, names the host the request was sent to."""
    origin = request.headers.get("origin")
    if origin is None:
        return True  # not a browser's cross-site form (those carry Origin); the CSRF token decides
    return urlsplit(origin).netloc.lower() == request.headers.get("host", "").lower()


async def read_form(request: Request) -> dict[str, str]:
    """A posted ``application/x-www-form-urlencoded`` body as one value per field (the first; an
    empty body without a type is an empty form); 415 for another type, 413 past ``MAX_FORM``
    bytes."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_FORM:
            raise HTTPException(413, f"a form is at most {MAX_FORM} bytes")
    if kind != "application/x-www-form-urlencoded" and (body or kind):
        raise HTTPException(415, "a form is posted as application/x-www-form-urlencoded")
    try:
        fields = parse_qs(body.decode("utf-8"), keep_blank_values=True, max_num_fields=MAX_FIELDS)
    except (UnicodeDecodeError, ValueError):
        raise HTTPException(400, "the form cannot be read") from None
    return {name: values[0] for name, values in fields.items()}


def check_csrf(codec: SessionCodec, request: Request, form: dict[str, str]) -> SessionData:
    """The session of a posted form, if the form is this site's: same origin, and its ``csrf``
    field is the session's token; else 403."""
    if not same_origin(request):
        raise HTTPException(403, "this form was posted from another site")
    session = codec.load(request.cookies.get(COOKIE))
    given = form.get("csrf", "")
    if session is None or not given or not hmac.compare_digest(given.encode(), session.csrf.encode()):
        raise HTTPException(403, "the form's CSRF token is missing or wrong: reload the page, send it again")
    return session


class Limits:
    """The login and sign-up limits (thread-safe: the pages' routes run in a thread pool)."""

    def __init__(
        self,
        clock: Callable[[], float],
        failures: Limit = LOGIN_FAILURES_PER_ACCOUNT,
        logins: Limit = LOGINS_PER_ADDRESS,
        signups: Limit = SIGNUPS_PER_ADDRESS,
    ) -> None:
        self._lock = threading.Lock()
        self.failures = KeyedBuckets(failures, clock)
        self.logins = KeyedBuckets(logins, clock)
        self.signups = KeyedBuckets(signups, clock)

    def login(self, address: str, name: str) -> float:
        """Seconds to wait before this login may be tried (0: now; one attempt of the address
        is spent)."""
        with self._lock:
            wait = self.failures.wait(name.lower())
            if wait > 0:
                return wait
            return self.logins.take(address)

    def failed(self, name: str) -> None:
        with self._lock:
            self.failures.take(name.lower())

    def signup(self, address: str) -> float:
        with self._lock:
            return self.signups.take(address)


def too_many(wait: float, what: str) -> HTTPException:
    seconds = max(1, int(wait + 0.999))
    headers = {"Retry-After": str(seconds)}
    return HTTPException(429, f"too many {what}: try again in {seconds} s", headers=headers)


__all__ = [
    "COOKIE",
    "SESSION_SECONDS",
    "Limits",
    "SessionCodec",
    "SessionData",
    "check_csrf",
    "client_address",
    "new_session",
    "read_form",
    "same_origin",
    "too_many",
]
