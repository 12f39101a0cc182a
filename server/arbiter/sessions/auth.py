"""Bot tokens: only their SHA-256 hashes are kept, in memory and on disk."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Iterable
from pathlib import Path

HASH_PREFIX = "sha256:"


def hash_token(token: str) -> str:
    return HASH_PREFIX + hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_token() -> str:
    """A fresh random token (32 bytes, URL-safe)."""
    return secrets.token_urlsafe(32)


class TokenError(ValueError):
    """A bot/token specification that cannot be used."""


class BotDirectory:
    """Bot names and their token hashes."""

    def __init__(self) -> None:
        self._by_name: dict[str, str] = {}

    def add(self, name: str, token_or_hash: str) -> None:
        """Register ``name`` with a plain token (hashed at once) or a ``sha256:HEX`` hash."""
        if not name or any(c.isspace() for c in name) or "=" in name:
            raise TokenError(f"bad bot name {name!r}: no spaces or '=' allowed")
        if not token_or_hash:
            raise TokenError(f"bot {name!r} has an empty token")
        if token_or_hash.startswith(HASH_PREFIX):
            digest = token_or_hash[len(HASH_PREFIX) :]
            if len(digest) != 64 or any(c not in "0123456789abcdef" for c in digest):
                raise TokenError(f"bot {name!r}: a hash is sha256: followed by 64 lowercase hex digits")
            stored = token_or_hash
        else:
            stored = hash_token(token_or_hash)
        if stored in self._by_name.values() and self._by_name.get(name) != stored:
            raise TokenError(f"bot {name!r} uses a token that another bot already has")
        self._by_name[name] = stored

    def add_specs(self, specs: Iterable[str]) -> None:
        """``NAME=TOKEN`` or ``NAME=sha256:HEX`` items."""
        for spec in specs:
            name, sep, token = spec.partition("=")
            if not sep:
                raise TokenError(f"expected NAME=TOKEN, got {spec!r}")
            self.add(name.strip(), token.strip())

    def load_file(self, path: str | Path) -> None:
        """One ``NAME=TOKEN`` or ``NAME=sha256:HEX`` per line; blank lines and ``#`` comments ignored."""
        lines = Path(path).read_text(encoding="utf-8").splitlines()
        self.add_specs(line for line in (raw.strip() for raw in lines) if line and not line.startswith("#"))

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

    def __len__(self) -> int:
        return len(self._by_name)
