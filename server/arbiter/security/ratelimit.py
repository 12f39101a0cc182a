"""Rate limits: token buckets per peer address and per bot, on an injectable monotonic clock.

Five limits (docs/protocol.md, "Rate limits", is their contract with bots):

- ``bad_tokens``: failed token checks per peer address (the IPv4 address, or the IPv6 /64; not
  the port). When an address has used its allowance, its next Play calls are refused before the
  token is looked at, except a token that has passed from that address before (its bots are not
  locked out by the guesses of another client behind the same NAT or proxy).
- ``bad_tokens_total``: failed token checks across all addresses (a budget that bounds the
  guesses many addresses make together); when it is used, the same refusal, with the same
  exception.
- ``lobby``: seeks, ladder joins and challenges per bot.
- ``requests``: requests per bot beyond what play needs; a move that answers the bot's pending
  turn is play and never counts, every other request does (a seek counts here and in ``lobby``).
- ``play_calls``: Play calls opened per bot (each replaces the bot's open one): a token cannot
  open calls in a loop.

A limit of N per period is a bucket of N tokens refilled at N per period: a bot may spend N at
once, then N per period. Every refusal says how long to wait for the next token.
"""

from __future__ import annotations

import hashlib
import ipaddress
import math
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field

Clock = Callable[[], float]


class TokenBucket:
    """``capacity`` tokens, refilled continuously at ``rate`` tokens per second."""

    __slots__ = ("capacity", "rate", "stamp", "tokens")

    def __init__(self, rate: float, capacity: float, now: float) -> None:
        if not rate > 0 or not capacity >= 1:
            raise ValueError("a bucket needs a positive rate and room for at least one token")
        self.rate = rate
        self.capacity = capacity
        self.tokens = capacity
        self.stamp = now

    def _refill(self, now: float) -> None:
        if now > self.stamp:
            self.tokens = min(self.capacity, self.tokens + (now - self.stamp) * self.rate)
            self.stamp = now

    def wait(self, now: float) -> float:
        """Seconds until a token is there (0: one is there now); takes nothing."""
        self._refill(now)
        return 0.0 if self.tokens >= 1 else (1 - self.tokens) / self.rate

    def take(self, now: float) -> float:
        """Take a token: 0 when taken, else the seconds until one is there (nothing taken)."""
        wait = self.wait(now)
        if wait == 0.0:
            self.tokens -= 1
        return wait

    def full(self, now: float) -> bool:
        self._refill(now)
        return self.tokens >= self.capacity


@dataclass(frozen=True)
class Limit:
    """``count`` per ``period`` seconds (a bucket of ``count`` tokens)."""

    count: int
    period: float

    def __post_init__(self) -> None:
        if self.count < 1 or not self.period > 0:
            raise ValueError("a limit needs a count of at least 1 and a positive period")

    @property
    def rate(self) -> float:
        return self.count / self.period

    def describe(self) -> str:
        unit = {1.0: "second", 60.0: "minute"}.get(self.period, f"{self.period:g} s")
        return f"{self.count} per {unit}"


#: The defaults of ``arbiter serve`` (and of every Arbiter): far above what play needs.
BAD_TOKENS_PER_MINUTE = 20
BAD_TOKENS_TOTAL_PER_MINUTE = 300
LOBBY_PER_MINUTE = 600
REQUESTS_PER_SECOND = 100
PLAY_CALLS_PER_MINUTE = 60


@dataclass(frozen=True)
class RateLimits:
    """The four limits; ``None`` turns one off."""

    bad_tokens: Limit | None = field(default_factory=lambda: Limit(BAD_TOKENS_PER_MINUTE, 60.0))
    lobby: Limit | None = field(default_factory=lambda: Limit(LOBBY_PER_MINUTE, 60.0))
    requests: Limit | None = field(default_factory=lambda: Limit(REQUESTS_PER_SECOND, 1.0))
    bad_tokens_total: Limit | None = field(default_factory=lambda: Limit(BAD_TOKENS_TOTAL_PER_MINUTE, 60.0))
    play_calls: Limit | None = field(default_factory=lambda: Limit(PLAY_CALLS_PER_MINUTE, 60.0))

    @classmethod
    def of(
        cls,
        bad_tokens: int,
        lobby: int,
        requests: int,
        bad_tokens_total: int = BAD_TOKENS_TOTAL_PER_MINUTE,
        play_calls: int = PLAY_CALLS_PER_MINUTE,
    ) -> RateLimits:
        """From the serve options' counts (0 turns a limit off)."""
        return cls(
            Limit(bad_tokens, 60.0) if bad_tokens else None,
            Limit(lobby, 60.0) if lobby else None,
            Limit(requests, 1.0) if requests else None,
            Limit(bad_tokens_total, 60.0) if bad_tokens_total else None,
            Limit(play_calls, 60.0) if play_calls else None,
        )

    @classmethod
    def off(cls) -> RateLimits:
        return cls(None, None, None, None, None)


class KeyedBuckets:
    """One bucket per key, made on first use; full buckets are forgotten when there are many."""

    def __init__(self, limit: Limit, clock: Clock, max_keys: int = 10_000) -> None:
        self.limit = limit
        self.clock = clock
        self.max_keys = max_keys
        self.buckets: dict[Hashable, TokenBucket] = {}

    def _bucket(self, key: Hashable, now: float) -> TokenBucket:
        bucket = self.buckets.get(key)
        if bucket is None:
            if len(self.buckets) >= self.max_keys:
                self._prune(now)
            bucket = self.buckets[key] = TokenBucket(self.limit.rate, self.limit.count, now)
        return bucket

    def _prune(self, now: float) -> None:
        # A full bucket is the same as no bucket: forget those; if every bucket is in use, the
        # oldest go (an attacker with many addresses then gets fresh buckets, never a crash).
        for key in [key for key, bucket in self.buckets.items() if bucket.full(now)]:
            del self.buckets[key]
        while len(self.buckets) >= self.max_keys:
            del self.buckets[next(iter(self.buckets))]

    def wait(self, key: Hashable) -> float:
        now = self.clock()
        bucket = self.buckets.get(key)
        return 0.0 if bucket is None else bucket.wait(now)

    def take(self, key: Hashable) -> float:
        now = self.clock()
        return self._bucket(key, now).take(now)


class PassedTokens:
    """Which tokens have passed a check from which address: a keyed hash of each (never the token),
    the ``max_entries`` most recently seen."""

    def __init__(self, max_entries: int = 100_000) -> None:
        self.max_entries = max_entries
        self._key = secrets.token_bytes(32)
        self._seen: OrderedDict[tuple[str, bytes], None] = OrderedDict()

    def _digest(self, token: str) -> bytes:
        return hashlib.blake2b(token.encode("utf-8"), key=self._key, digest_size=16).digest()

    def add(self, address: str, token: str) -> None:
        entry = (address, self._digest(token))
        self._seen[entry] = None
        self._seen.move_to_end(entry)
        while len(self._seen) > self.max_entries:
            self._seen.popitem(last=False)

    def __contains__(self, pair: tuple[str, str]) -> bool:
        address, token = pair
        return (address, self._digest(token)) in self._seen


class RateLimiter:
    """The limits of one arbiter. Each method answers 0 (go on) or the seconds to wait."""

    def __init__(self, limits: RateLimits | None = None, clock: Clock = time.monotonic) -> None:
        self.limits = limits or RateLimits()

        def buckets(limit: Limit | None) -> KeyedBuckets | None:
            return None if limit is None else KeyedBuckets(limit, clock)

        self.clock = clock
        self.bad_tokens = buckets(self.limits.bad_tokens)
        total = self.limits.bad_tokens_total
        self.bad_tokens_total = None if total is None else TokenBucket(total.rate, total.count, clock())
        self.passed = PassedTokens()
        self.lobby_requests = buckets(self.limits.lobby)
        self.other_requests = buckets(self.limits.requests)
        self.play_call_buckets = buckets(self.limits.play_calls)
        #: Refusals so far, per limit (``bad_tokens``, ``bad_tokens_total``, ``lobby``,
        #: ``requests``): the metrics read it.
        self.refusals: dict[str, int] = {}

    def _refused(self, limit: str, wait: float) -> float:
        if wait:
            self.refusals[limit] = self.refusals.get(limit, 0) + 1
        return wait

    def token_check_allowed(self, peer: str, token: str | None = None) -> float:
        """Before a check of ``token`` from ``peer``: 0, or the wait (the failed checks of its
        address, or of all addresses, are used up). A token that passed from that address before
        is always checked."""
        address = address_key(peer)
        if token and (address, token) in self.passed:
            return 0.0
        if self.bad_tokens is not None:
            wait = self._refused("bad_tokens", self.bad_tokens.wait(address))
            if wait:
                return wait
        if self.bad_tokens_total is not None:
            return self._refused("bad_tokens_total", self.bad_tokens_total.wait(self.clock()))
        return 0.0

    def token_check_failed(self, peer: str) -> None:
        if self.bad_tokens is not None:
            self.bad_tokens.take(address_key(peer))
        if self.bad_tokens_total is not None:
            self.bad_tokens_total.take(self.clock())

    def token_check_passed(self, peer: str, token: str) -> None:
        """``token`` was right: from now on it is checked from that address whatever fails there."""
        self.passed.add(address_key(peer), token)

    def lobby(self, bot: str) -> float:
        """A seek, join or challenge of ``bot``."""
        return 0.0 if self.lobby_requests is None else self._refused("lobby", self.lobby_requests.take(bot))

    def play_call(self, bot: str) -> float:
        """A Play call of ``bot`` whose token passed (before it replaces the bot's open call)."""
        buckets = self.play_call_buckets
        return 0.0 if buckets is None else self._refused("play_calls", buckets.take(bot))

    def request(self, bot: str) -> float:
        """A request of ``bot`` that play does not need."""
        return (
            0.0 if self.other_requests is None else self._refused("requests", self.other_requests.take(bot))
        )


def retry_after_ms(seconds: float) -> int:
    """A wait in whole milliseconds, rounded up (never 0 for a refusal)."""
    return max(1, math.ceil(seconds * 1000))


#: IPv6 addresses are limited per network of this prefix length: one host (a home, a server, a
#: cloud instance) is given a whole /64 and can take any address in it.
IPV6_PREFIX = 64


def address_key(peer: str) -> str:
    """The key a peer is limited by: its IPv4 address, or its IPv6 /64 (``2001:db8::/64``).

    An IPv4 address seen through IPv6 (``::ffff:1.2.3.4``) is that IPv4 address."""
    host = peer_address(peer)
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host  # unix:..., or whatever else gRPC says
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, IPV6_PREFIX), strict=False))
    return host


def peer_address(peer: str) -> str:
    """The address of a gRPC peer string without its port: ``ipv4:1.2.3.4:5`` -> ``1.2.3.4``."""
    kind, _, rest = peer.partition(":")
    if kind == "ipv4":
        return rest.rpartition(":")[0] or rest
    if kind == "ipv6":
        host = rest.rpartition(":")[0] or rest
        return host.strip("[]")
    return peer  # unix:..., or whatever else gRPC says: the whole string is the key
