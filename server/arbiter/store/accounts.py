"""The store's accounts (migration 0010, docs/accounts.md): bot owners' accounts, invite codes,
the bots of each account, and the key that signs the web pages' session cookies.

``AccountStore`` is mixed into ``SqlStore`` (each method one transaction). Passwords reach the
store only hashed (``security.passwords``), invite codes only as their SHA-256 hashes.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from arbiter_wire.text import BadName, check_name
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from arbiter.sessions.auth import hash_token, new_token

from . import convert
from .rows import BotRow, StoreError
from .schema import Account, Bot, Invite, WebSecret

#: Bots one account may own (created on the web or attached by the host: the host's ``bots
#: attach`` is not held to it).
MAX_BOTS_PER_ACCOUNT = 20


@dataclass(frozen=True)
class AccountRow:
    """An account (its password hash stays in the store; ``password_hash_of`` reads it)."""

    id: int
    name: str
    created_at: float
    disabled: bool
    admin: bool
    session_epoch: int
    bots: int = 0


class AccountStore:
    """SqlStore's account methods."""

    _clock: Callable[[], float]

    if TYPE_CHECKING:

        def _read(self) -> AbstractContextManager[Session]: ...

        def _write(self) -> AbstractContextManager[Session]: ...

    # --- accounts -----------------------------------------------------------------------------
    def add_account(self, name: str, password_hash: str, invite: str | None = None) -> AccountRow:
        """A new account. ``invite``: a code it uses up (one of its uses), refused when unknown,
        used up or expired; None: no code needed (sign-up is open, or the host adds it)."""
        try:
            check_name(name, "account")
        except BadName as exc:
            raise StoreError(str(exc)) from None
        now = self._clock()
        with self._write() as session:
            if session.scalar(select(Account.id).where(Account.name_key == name.lower())) is not None:
                raise StoreError(f"an account named {name!r} exists already")
            if invite is not None:
                _use_invite(session, invite, now)
            account = Account(
                name=name,
                name_key=name.lower(),
                password_hash=password_hash,
                created_at=now,
                disabled=False,
                admin=False,
                session_epoch=0,
            )
            session.add(account)
            session.flush()
            return _row(account)

    def password_hash_of(self, name: str) -> tuple[AccountRow, str] | None:
        """The account ``name`` (any letter case) and its password hash, for a login; or None."""
        with self._read() as session:
            account = session.scalars(select(Account).where(Account.name_key == name.lower())).first()
            return None if account is None else (_row(account), account.password_hash)

    def account(self, account_id: int) -> AccountRow | None:
        with self._read() as session:
            account = session.get(Account, account_id)
            return None if account is None else _row(account)

    def list_accounts(self) -> list[AccountRow]:
        """Every account by name, with its number of bots."""
        counts = select(Bot.account_id, func.count().label("bots")).group_by(Bot.account_id).subquery()
        query = (
            select(Account, func.coalesce(counts.c.bots, 0))
            .outerjoin(counts, counts.c.account_id == Account.id)
            .order_by(Account.name_key)
        )
        with self._read() as session:
            return [_row(account, int(bots)) for account, bots in session.execute(query)]

    def set_account_disabled(self, name: str, disabled: bool) -> None:
        """Disable an account (it cannot log in, its sessions end, its bots are refused as a
        disabled bot is) or enable it again."""
        with self._write() as session:
            account = _account(session, name)
            account.disabled = disabled
            account.session_epoch += 1

    def set_account_admin(self, name: str, admin: bool = True) -> None:
        with self._write() as session:
            _account(session, name).admin = admin

    def end_sessions(self, account_id: int) -> None:
        """Every session of the account ends (logging out)."""
        with self._write() as session:
            account = session.get(Account, account_id)
            if account is not None:
                account.session_epoch += 1

    # --- invites ------------------------------------------------------------------------------
    def add_invite(self, uses: int = 1, expires_at: float | None = None) -> str:
        """A new invite code good for ``uses`` sign-ups until ``expires_at`` (None: no expiry);
        the store keeps only its hash."""
        if uses < 1:
            raise StoreError(f"an invite is good for at least 1 use, not {uses}")
        now = self._clock()
        if expires_at is not None and expires_at <= now:
            raise StoreError("the invite would have expired already")
        code = secrets.token_urlsafe(18)
        with self._write() as session:
            invite = Invite(code_hash=hash_token(code), uses_left=uses, expires_at=expires_at, created_at=now)
            session.add(invite)
        return code

    # --- an account's bots --------------------------------------------------------------------
    def add_account_bot(self, account_id: int, name: str) -> str:
        """Register bot ``name`` owned by the account (its owner text: the account's name);
        returns its token (the store keeps only its hash)."""
        try:
            check_name(name, "bot")
        except BadName as exc:
            raise StoreError(str(exc)) from None
        token = new_token()
        with self._write() as session:
            account = session.get(Account, account_id)
            if account is None or account.disabled:
                raise StoreError("this account cannot add bots")
            owned = session.scalar(select(func.count()).select_from(Bot).where(Bot.account_id == account_id))
            if (owned or 0) >= MAX_BOTS_PER_ACCOUNT:
                raise StoreError(f"an account owns at most {MAX_BOTS_PER_ACCOUNT} bots")
            if session.get(Bot, name) is not None:
                raise StoreError(f"a bot named {name!r} exists already")
            session.add(
                Bot(
                    name=name,
                    owner=account.name,
                    token_hash=hash_token(token),
                    enabled=True,
                    created_at=self._clock(),
                    account_id=account_id,
                )
            )
        return token

    def account_bots(self, account_id: int) -> list[BotRow]:
        query = select(Bot).where(Bot.account_id == account_id).order_by(Bot.name)
        with self._read() as session:
            return [convert.bot_row(bot) for bot in session.scalars(query)]

    def account_bot(self, account_id: int, name: str) -> BotRow | None:
        """Bot ``name`` if the account owns it, else None (unknown and another's alike)."""
        with self._read() as session:
            bot = session.get(Bot, name)
            return None if bot is None or bot.account_id != account_id else convert.bot_row(bot)

    def attach_bot(self, bot: str, account: str) -> None:
        """The host gives bot ``bot`` to ``account`` (its owner text stays)."""
        with self._write() as session:
            found = session.get(Bot, bot)
            if found is None:
                raise StoreError(f"no bot named {bot!r}")
            found.account_id = _account(session, account).id

    # --- the session cookies' key -------------------------------------------------------------
    def web_secret(self) -> bytes:
        """The key that signs session cookies: made (32 random bytes) by the first caller (two
        web servers starting at once: the one that writes second reads the first's)."""
        try:
            return self._web_secret()
        except StoreError as exc:
            if exc.transient:
                raise
            return self._web_secret()

    def _web_secret(self) -> bytes:
        with self._write() as session:
            row = session.get(WebSecret, 1)
            if row is None:
                row = WebSecret(id=1, secret=secrets.token_hex(32))
                session.add(row)
            return bytes.fromhex(row.secret)


def _row(account: Account, bots: int = 0) -> AccountRow:
    return AccountRow(
        id=account.id,
        name=account.name,
        created_at=account.created_at,
        disabled=account.disabled,
        admin=account.admin,
        session_epoch=account.session_epoch,
        bots=bots,
    )


def _account(session: Session, name: str) -> Account:
    account = session.scalars(select(Account).where(Account.name_key == name.lower())).first()
    if account is None:
        raise StoreError(f"no account named {name!r}")
    return account


def _use_invite(session: Session, code: str, now: float) -> None:
    """Use one of the invite's uses; the same refusal for an unknown, used up or expired code."""
    invite = session.get(Invite, hash_token(code), with_for_update=True) if code else None
    if invite is None or invite.uses_left < 1 or (invite.expires_at is not None and invite.expires_at <= now):
        raise StoreError("this invite code is unknown, used up or expired")
    invite.uses_left -= 1


__all__ = ["MAX_BOTS_PER_ACCOUNT", "AccountRow", "AccountStore"]
