"""Bot tokens: only their SHA-256 hashes are kept, in memory and on disk."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Iterable
from pathlib import Path

from arbiter_wire.text import BadName, check_name

HASH_PREFIX = "sha256:"


def hash_token(token: str) -> str:
    return HASH_PREFIX + hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_token() -> str:
    """A fresh random token (32 bytes, URL-safe)."""
    return secrets.token_urlsafe(32)


class TokenError(ValueError):
    """A bot/token specification that cannot be used."""


def check_bot_name(name: str) -> str:
    """``name`` if it can name a bot, else TokenError: the name rule (``arbiter_wire.text``) that
    ``token``, ``serve``'s ``--bot`` and tokens file, the store and the protocol share.

    (A name never holds ``=`` nor starts with ``#``, so its ``NAME=...`` line in a tokens file
    reads back as that very name.)
    """
    try:
        return check_name(name, "bot")
    except BadName as exc:
        raise TokenError(str(exc)) from None


class BotDirectory:
    """Bot names and their token hashes."""

    def __init__(self) -> None:
        self._by_name: dict[str, str] = {}
        self._given_at: dict[str, str] = {}

    def add(self, name: str, token_or_hash: str, where: str = "") -> None:
        """Register ``name`` with a plain token (hashed at once) or a ``sha256:HEX`` hash.

        ``where`` (``bots.txt line 3``) starts every error message. A name is given once only.
        """
        prefix = f"{where}: " if where else ""
        try:
            check_bot_name(name)
        except TokenError as exc:
            raise TokenError(f"{prefix}{exc}") from None
        if name in self._by_name:
            first = self._given_at.get(name)
            at = f" (first at {first})" if first else ""
            raise TokenError(f"{prefix}bot {name!r} is given twice{at}")
        if not token_or_hash:
            raise TokenError(f"{prefix}bot {name!r} has an empty token")
        if token_or_hash.startswith(HASH_PREFIX):
            digest = token_or_hash[len(HASH_PREFIX) :]
            if len(digest) != 64 or any(c not in "0123456789abcdef" for c in digest):
                raise TokenError(
                    f"{prefix}bot {name!r}: a hash is sha256: followed by 64 lowercase hex digits"
                )
            stored = token_or_hash
        else:
            stored = hash_token(token_or_hash)
        if stored in self._by_name.values():
            raise TokenError(f"{prefix}bot {name!r} uses a token that another bot already has")
        self._by_name[name] = stored
        if where:
            self._given_at[name] = where

    def _add_spec(self, spec: str, where: str) -> None:
        name, sep, token = spec.partition("=")
        if not sep:
            # The text itself is not shown: it may be a token pasted without its name.
            raise TokenError(f"{where}: expected NAME=TOKEN or NAME=sha256:HEX")
        self.add(name.strip(), token.strip(), where)

    def add_specs(self, specs: Iterable[str], source: str = "--bot") -> None:
        """``NAME=TOKEN`` or ``NAME=sha256:HEX`` items (errors name them ``--bot #2``)."""
        for number, spec in enumerate(specs, 1):
            self._add_spec(spec, f"{source} #{number}")

    def load_file(self, path: str | Path) -> None:
        """One ``NAME=TOKEN`` or ``NAME=sha256:HEX`` per line; blank lines and ``#`` comments ignored.

        Errors name the line: ``bots.txt line 4: bot 'alice' is given twice (first at bots.txt line 2)``.
        """
        lines = Path(path).read_text(encoding="utf-8").splitlines()
        for number, raw in enumerate(lines, 1):
            line = raw.strip()
            if line and not line.startswith("#"):
                self._add_spec(line, f"{path} line {number}")

    def authenticate(self, token: str | None) -> str | None:
        """The bot name for ``token``, or None."""
        if not token:
            return None
        candidate = hash_token(token)
        found = None
        for name, stored in self._by_name.items():
            if hmac.compare_digest(stored, candidate):
                found = name
        return found

    def names(self) -> list[str]:
        return sorted(self._by_name)

    def hashes(self) -> dict[str, str]:
        """Each bot's token hash, by name."""
        return dict(self._by_name)

    def __len__(self) -> int:
        return len(self._by_name)
