"""The mailbox of a bot that was away, and a bot's pause on a ladder after failed matches."""

from __future__ import annotations

import pytest
from arbiter.store import StoreError

from .conftest import start, with_players


def test_mail_is_kept_once_per_match_and_taken_once(store):
    with_players(store)
    for match_id in ("m1", "m2"):
        store.match_started(start(match_id))
    store.add_mail("alpha", "m2", b"\x00second")
    store.add_mail("alpha", "m1", b"third")
    store.add_mail("alpha", "m2", b"again")
    store.add_mail("beta", "m1", b"for beta")
    assert store.take_mail("alpha") == [("m2", b"\x00second"), ("m1", b"third")]
    assert store.take_mail("alpha") == []
    assert store.take_mail("beta") == [("m1", b"for beta")]
    with pytest.raises(StoreError):
        store.add_mail("ghost", "m1", b"x")


def test_a_bot_is_paused_after_a_run_of_failures_and_resumed(store):
    with_players(store)
    ladder = "torrent-blitz"
    assert store.paused(ladder, "alpha") is None
    assert [store.record_outcome_for_bot(ladder, "alpha", True, threshold=3) for _ in range(2)] == [
        False,
        False,
    ]
    assert store.record_outcome_for_bot(ladder, "alpha", False, threshold=3) is False  # the run ends
    outcomes = [store.record_outcome_for_bot(ladder, "alpha", True, threshold=3) for _ in range(3)]
    assert outcomes == [False, False, True]
    assert store.paused(ladder, "alpha") == "paused after 3 failed matches in a row"
    assert store.record_outcome_for_bot(ladder, "alpha", False, threshold=3) is True  # stays paused
    assert store.paused(ladder, "beta") is None
    store.resume_bot(ladder, "alpha")
    assert store.paused(ladder, "alpha") is None
    assert store.record_outcome_for_bot(ladder, "alpha", True, threshold=3) is False
    with pytest.raises(ValueError):
        store.record_outcome_for_bot(ladder, "alpha", True, threshold=0)
