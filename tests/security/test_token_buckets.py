"""The token buckets behind the rate limits, driven by a fake monotonic clock (no sleeps)."""

import pytest
from arbiter.security.ratelimit import (
    KeyedBuckets,
    Limit,
    RateLimiter,
    RateLimits,
    TokenBucket,
    address_key,
    peer_address,
    retry_after_ms,
)
from arbiter_wire.reasons import RETRY_AFTER_MS, error_info, reason_of, retry_delay
from arbiter_wire.status import rate_limited
from google.rpc import code_pb2, error_details_pb2


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_bucket_spends_its_capacity_then_refills_at_its_rate():
    bucket = TokenBucket(rate=2.0, capacity=3, now=0.0)
    assert [bucket.take(0.0) for _ in range(3)] == [0.0, 0.0, 0.0]
    assert bucket.take(0.0) == pytest.approx(0.5)  # one token every half second
    assert bucket.take(0.25) == pytest.approx(0.25)  # a refusal takes nothing
    assert bucket.take(0.5) == 0.0
    assert bucket.take(0.5) == pytest.approx(0.5)
    assert bucket.full(100.0) and bucket.tokens == 3  # never more than the capacity


def test_a_bucket_never_runs_backwards_with_the_clock():
    bucket = TokenBucket(rate=1.0, capacity=1, now=10.0)
    assert bucket.take(10.0) == 0.0
    assert bucket.take(5.0) == pytest.approx(1.0)  # an earlier reading refills nothing


@pytest.mark.parametrize("rate,capacity", [(0.0, 1), (1.0, 0.5), (-1.0, 2)])
def test_bad_buckets_are_refused(rate, capacity):
    with pytest.raises(ValueError):
        TokenBucket(rate, capacity, 0.0)


def test_limits_describe_themselves_and_refuse_nonsense():
    assert Limit(600, 60.0).describe() == "600 per minute"
    assert Limit(100, 1.0).describe() == "100 per second"
    with pytest.raises(ValueError):
        Limit(0, 60.0)


def test_keys_have_separate_buckets_and_full_ones_are_forgotten_when_many():
    clock = Clock()
    buckets = KeyedBuckets(Limit(2, 60.0), clock, max_keys=3)
    assert buckets.take("a") == buckets.take("a") == 0.0
    assert buckets.take("a") == pytest.approx(30.0)
    assert buckets.take("b") == 0.0  # b is not a
    buckets.take("c")
    clock.now += 60.0  # every bucket full again
    buckets.take("d")  # the fourth key: the full buckets are dropped first
    assert set(buckets.buckets) == {"d"}
    assert buckets.wait("a") == 0.0  # a forgotten key starts full


def test_when_every_bucket_is_in_use_the_oldest_go():
    buckets = KeyedBuckets(Limit(1, 60.0), Clock(), max_keys=2)
    for key in ("a", "b", "c"):
        buckets.take(key)
    assert list(buckets.buckets) == ["b", "c"]


def test_the_limiter_checks_each_limit_and_counts_refusals():
    clock = Clock()
    limiter = RateLimiter(RateLimits.of(bad_tokens=2, lobby=1, requests=3), clock)
    assert limiter.token_check_allowed("10.0.0.1") == 0.0
    limiter.token_check_failed("10.0.0.1")
    limiter.token_check_failed("10.0.0.1")
    assert limiter.token_check_allowed("10.0.0.1") == pytest.approx(30.0)
    assert limiter.token_check_allowed("10.0.0.2") == 0.0  # another address
    assert limiter.lobby("alice") == 0.0
    assert limiter.lobby("alice") == pytest.approx(60.0)
    assert limiter.lobby("bob") == 0.0
    assert [limiter.request("alice") for _ in range(4)][-1] == pytest.approx(1 / 3)
    assert limiter.refusals == {"bad_tokens": 1, "lobby": 1, "requests": 1}
    clock.now += 30.0
    assert limiter.token_check_allowed("10.0.0.1") == 0.0


def test_limits_turned_off_never_refuse():
    limiter = RateLimiter(RateLimits.off(), Clock())
    for _ in range(1000):
        limiter.token_check_failed("x")
        assert limiter.token_check_allowed("x") == limiter.lobby("a") == limiter.request("a") == 0.0
        assert limiter.play_call("a") == 0.0
    assert RateLimits.of(0, 0, 0, 0, 0) == RateLimits.off()


def test_the_defaults_are_the_documented_ones():
    limits = RateLimits()
    assert (limits.bad_tokens, limits.lobby, limits.requests, limits.bad_tokens_total) == (
        Limit(20, 60.0),
        Limit(600, 60.0),
        Limit(100, 1.0),
        Limit(300, 60.0),
    )


@pytest.mark.parametrize(
    "peer,address",
    [
        ("ipv4:127.0.0.1:50123", "127.0.0.1"),
        ("ipv6:[::1]:50123", "::1"),
        ("ipv6:[2001:db8::7]:443", "2001:db8::7"),
        ("unix:/tmp/sock", "unix:/tmp/sock"),
    ],
)
def test_a_peer_is_its_address_without_the_port(peer, address):
    assert peer_address(peer) == address


def test_the_rate_limited_status_carries_the_wait_twice():
    status = rate_limited("slow down", 1.2341)
    assert status.code == code_pb2.RESOURCE_EXHAUSTED
    assert reason_of(status) == "RATE_LIMITED"
    info = error_info(status)
    assert info is not None and info.domain == "arbiter.v1"
    assert dict(info.metadata) == {RETRY_AFTER_MS: "1235"}  # rounded up to whole milliseconds
    retry = [d for d in status.details if d.Is(error_details_pb2.RetryInfo.DESCRIPTOR)]
    assert len(retry) == 1
    assert retry_delay(status) == pytest.approx(1.235)
    del status.details[1]  # without RetryInfo the metadata still says it
    assert retry_delay(status) == pytest.approx(1.235)
    assert retry_after_ms(0.0) == 1 and retry_after_ms(0.0101) == 11


def test_ipv6_peers_share_the_failed_token_checks_of_their_64():
    limiter = RateLimiter(RateLimits.of(bad_tokens=2, lobby=0, requests=0), Clock())
    limiter.token_check_failed("ipv6:[2001:db8:1:2::1]:4000")
    limiter.token_check_failed("ipv6:[2001:db8:1:2:ffff::9]:4001")  # the same /64
    assert limiter.token_check_allowed("ipv6:[2001:db8:1:2::77]:4002") == pytest.approx(30.0)
    assert limiter.token_check_allowed("ipv6:[2001:db8:1:3::1]:4003") == 0.0  # the next /64
    limiter.token_check_failed("ipv6:[::ffff:10.0.0.1]:5")  # IPv4 seen through IPv6 is IPv4
    limiter.token_check_failed("ipv4:10.0.0.1:6")
    assert limiter.token_check_allowed("ipv4:10.0.0.1:7") == pytest.approx(30.0)
    assert limiter.token_check_allowed("ipv4:10.0.0.2:7") == 0.0


@pytest.mark.parametrize(
    "peer,key",
    [
        ("ipv4:127.0.0.1:50123", "127.0.0.1"),
        ("ipv6:[::1]:50123", "::/64"),
        ("ipv6:[2001:db8::7]:443", "2001:db8::/64"),
        ("ipv6:[::ffff:192.0.2.1]:443", "192.0.2.1"),
        ("unix:/tmp/sock", "unix:/tmp/sock"),
        ("2001:db8::/64", "2001:db8::/64"),
    ],
)
def test_a_peer_is_limited_by_its_address_or_its_ipv6_64(peer, key):
    assert address_key(peer) == key


def test_a_budget_across_addresses_bounds_the_checked_guesses():
    clock = Clock()
    limits = RateLimits.of(bad_tokens=20, lobby=0, requests=0, bad_tokens_total=30)
    limiter = RateLimiter(limits, clock)
    checked = 0
    for n in range(50):  # 50 addresses, each well within its own allowance
        address = f"ipv4:10.1.{n}.1:9"
        while limiter.token_check_allowed(address, "guess") == 0.0 and checked < 1000:
            limiter.token_check_failed(address)
            checked += 1
    assert checked == 30  # the budget across them all
    assert limiter.token_check_allowed("ipv4:10.9.9.9:1", "guess") == pytest.approx(2.0)  # 30 a minute
    assert limiter.refusals["bad_tokens_total"] >= 1
    clock.now += 2.0
    assert limiter.token_check_allowed("ipv4:10.9.9.9:1", "guess") == 0.0


def test_a_token_that_passed_from_an_address_is_checked_whatever_failed_there():
    clock = Clock()
    limiter = RateLimiter(RateLimits.of(bad_tokens=2, lobby=0, requests=0, bad_tokens_total=3), clock)
    limiter.token_check_passed("ipv4:10.0.0.1:1", "good")
    limiter.token_check_passed("ipv6:[2001:db8::1]:1", "good6")
    for _ in range(3):
        limiter.token_check_failed("ipv4:10.0.0.1:2")
    assert limiter.token_check_allowed("ipv4:10.0.0.1:3", "guess") > 0  # the address's allowance is used
    assert limiter.token_check_allowed("ipv4:10.0.0.1:3", "good") == 0.0  # but not for its bots
    assert limiter.token_check_allowed("ipv4:10.0.0.2:3", "good") > 0  # from elsewhere: the budget is out
    assert limiter.token_check_allowed("ipv6:[2001:db8::5]:1", "good6") == 0.0  # the same /64
