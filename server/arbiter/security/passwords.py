"""Account passwords: hashed with argon2id (argon2-cffi's defaults, RFC 9106's second
recommended profile), never kept, logged or shown in clear (docs/accounts.md).

``check_password`` is the rule a new password must pass; ``verify`` compares a password with a
stored hash and costs as much for an unknown account (``verify(None, ...)`` checks against a
hash made once, so that the time of an answer does not tell whether a name exists).
"""

from __future__ import annotations

import functools

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

#: The shortest and longest password an account takes (characters).
MIN_PASSWORD = 10
MAX_PASSWORD = 256

_hasher = PasswordHasher()


class BadPassword(ValueError):
    """A new password the rule refuses."""


def check_password(password: str) -> str:
    """``password`` if it can be an account's password, else BadPassword."""
    if len(password) < MIN_PASSWORD:
        raise BadPassword(f"a password has at least {MIN_PASSWORD} characters")
    if len(password) > MAX_PASSWORD:
        raise BadPassword(f"a password has at most {MAX_PASSWORD} characters")
    return password


def hash_password(password: str) -> str:
    """The argon2id hash of ``password`` in its encoded form (``$argon2id$v=19$m=...``)."""
    return _hasher.hash(password)


@functools.cache
def _decoy() -> str:
    return _hasher.hash("a password no account has")


def verify(stored: str | None, password: str) -> bool:
    """Whether ``password`` is the one ``stored`` is the hash of (``None``: no such account: the
    same work, then False). A password past ``MAX_PASSWORD`` is never hashed (False)."""
    if len(password) > MAX_PASSWORD:
        return False
    try:
        matched = _hasher.verify(stored if stored is not None else _decoy(), password)
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False
    return matched and stored is not None


__all__ = ["MAX_PASSWORD", "MIN_PASSWORD", "BadPassword", "check_password", "hash_password", "verify"]
