"""Join tokens: what a redirect hands a bot so that it may open its session on another node.

A join token names one bot and one node registration (its epoch) and expires after a few
seconds. It is ``jt1.<epoch>.<expires>.<bot, base64url>.<HMAC-SHA256, hex>``, signed with the
cluster's key (the ``cluster_secret`` row every node reads at start). Only the node of that epoch
accepts it, and only before it expires.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac

PREFIX = "jt1"


def _signature(secret: bytes, body: str) -> str:
    return hmac.new(secret, body.encode(), hashlib.sha256).hexdigest()


def make_join_token(secret: bytes, bot: str, epoch: int, expires: float) -> str:
    """A token for ``bot`` on the node of ``epoch``, good until ``expires`` (epoch seconds)."""
    name = base64.urlsafe_b64encode(bot.encode()).decode().rstrip("=")
    body = f"{PREFIX}.{epoch}.{int(expires)}.{name}"
    return f"{body}.{_signature(secret, body)}"


def read_join_token(secret: bytes, token: str, epoch: int, now: float) -> str | None:
    """The bot a valid token names, or None (another node's, expired, forged or not a token)."""
    parts = token.split(".")
    if len(parts) != 5 or parts[0] != PREFIX:
        return None
    body, signature = ".".join(parts[:4]), parts[4]
    if not hmac.compare_digest(_signature(secret, body), signature):
        return None
    try:
        token_epoch, expires = int(parts[1]), int(parts[2])
        padded = parts[3] + "=" * (-len(parts[3]) % 4)
        bot = base64.urlsafe_b64decode(padded.encode()).decode()
    except (ValueError, binascii.Error, UnicodeDecodeError):
        return None
    if token_epoch != epoch or now > expires:
        return None
    return bot
