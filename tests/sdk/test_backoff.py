"""The reconnect schedule: exponential, capped, with bounded jitter."""

from __future__ import annotations

import random

import pytest
from arbiter_bot.client import Backoff


def test_schedule_without_jitter() -> None:
    backoff = Backoff(initial=0.5, factor=2.0, maximum=30.0, jitter=0.0)
    assert [backoff.delay(n) for n in range(9)] == [0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 30.0, 30.0, 30.0]
    assert backoff.delay(10_000) == 30.0  # no overflow far out


def test_default_schedule_stays_within_its_jitter_and_cap() -> None:
    backoff = Backoff()
    rng = random.Random(1)
    for attempt in range(20):
        base = backoff.base_delay(attempt)
        for _ in range(50):
            delay = backoff.delay(attempt, rng)
            assert (
                base * (1 - backoff.jitter) - 1e-9
                <= delay
                <= min(backoff.maximum, base * (1 + backoff.jitter))
            )
    assert backoff.base_delay(0) == 0.5 and backoff.base_delay(100) == backoff.maximum


def test_jitter_spreads_and_is_reproducible_with_a_seed() -> None:
    backoff = Backoff(jitter=0.25)
    first = [backoff.delay(3, random.Random(7)) for _ in range(3)]
    assert len(set(first)) == 1  # same seed, same delay
    spread = {backoff.delay(3, random.Random(seed)) for seed in range(20)}
    assert len(spread) > 10


@pytest.mark.parametrize(
    "kwargs",
    [{"initial": 0}, {"factor": 0.5}, {"maximum": 0.1}, {"jitter": 1.0}, {"jitter": -0.1}],
)
def test_bad_backoffs_are_refused(kwargs: dict[str, float]) -> None:
    with pytest.raises(ValueError):
        Backoff(**kwargs)
