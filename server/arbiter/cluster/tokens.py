"""Join tokens: what a redirect hands a bot so that it may open its session on another node.

A join token names one bot and one node registration (its epoch) and expires after a few
seconds. It is ``jt1.<epoch>.<expires>.<bot, base64url>.<nonce>.<HMAC-SHA256, hex>``, signed
with the cluster's key (the ``cluster_secret`` row every node reads at start). Only the node of that epoch
accepts it, and only before it expires. The signature also covers the hash of the bot's own
token at the moment the join token is made (not written in the token): once the bot's token is
rotated, its join tokens no longer verify. The node that accepts one remembers it until it
expires, so that it is used once (``UsedTokens``); the random nonce keeps two tokens made for
one bot within the same second apart (the second would otherwise count as used).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import secrets
from collections.abc import Callable

PREFIX = "jt1"


def _signature(secret: bytes, body: str, credential: str) -> str:
    return hmac.new(secret, f"{body}|{credential}".encode(), hashlib.sha256).hexdigest()


def make_join_token(secret: bytes, bot: str, epoch: int, expires: float, credential: str = "") -> str:
    """A token for ``bot`` on the node of ``epoch``, good until ``expires`` (epoch seconds) and
    while the bot's own token hash is ``credential``."""
    name = base64.urlsafe_b64encode(bot.encode()).decode().rstrip("=")
    body = f"{PREFIX}.{epoch}.{int(expires)}.{name}.{secrets.token_hex(8)}"
    return f"{body}.{_signature(secret, body, credential)}"


def read_join_token(
    secret: bytes,
    token: str,
    epoch: int,
    now: float,
    credential_of: Callable[[str], str | None] = lambda bot: "",
) -> str | None:
    """The bot a valid token names, or None (another node's, expired, forged, made before the
    bot's token was rotated, or not a token). ``credential_of``: the bot's token hash now."""
    parts = token.split(".")
    if len(parts) != 6 or parts[0] != PREFIX:
        return None
    body, signature = ".".join(parts[:5]), parts[5]
    try:
        token_epoch, expires = int(parts[1]), int(parts[2])
        padded = parts[3] + "=" * (-len(parts[3]) % 4)
        bot = base64.urlsafe_b64decode(padded.encode()).decode()
    except (ValueError, binascii.Error, UnicodeDecodeError):
        return None
    if token_epoch != epoch or now > expires:
        return None
    credential = credential_of(bot)
    if credential is None or not hmac.compare_digest(_signature(secret, body, credential), signature):
        return None
    return bot


class UsedTokens:
    """The join tokens a node has accepted, each kept until it expires: a token is used once."""

    def __init__(self) -> None:
        self._expires: dict[str, float] = {}

    def use(self, token: str, now: float) -> bool:
        """Whether ``token`` (a valid one) is used for the first time; it counts as used from now."""
        for seen in [t for t, expires in self._expires.items() if expires < now]:
            del self._expires[seen]
        if token in self._expires:
            return False
        self._expires[token] = float(token.split(".")[2])
        return True
