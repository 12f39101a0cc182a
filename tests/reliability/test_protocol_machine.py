"""Stateful fuzzing of the protocol (tests/reliability/protocol_machine.py), bounded and
derandomized so that the suite runs the same examples every time; ``bench/fuzz.py --stateful N``
runs more, with fresh randomness."""

from hypothesis import HealthCheck, settings
from hypothesis.stateful import run_state_machine_as_test

from .protocol_machine import ProtocolMachine, shared, stop_shared

KINDS = (
    "matches", "ended", "accepted", "stale", "not_your_turn", "acknowledged", "illegal", "malformed",
    "unknown_match", "seek_refused", "ladder_refused", "reconnects", "replaced",
)  # fmt: skip


def test_random_requests_of_two_clients_are_answered_as_the_protocol_says():
    try:
        run_state_machine_as_test(
            ProtocolMachine,
            settings=settings(
                max_examples=30,
                stateful_step_count=30,
                derandomize=True,
                deadline=None,
                suppress_health_check=[HealthCheck.too_slow],
            ),
        )
        stats = shared().stats
    finally:
        stop_shared()
    # The run did send every kind of request (and played matches to their end).
    for kind in KINDS:
        assert stats.get(kind, 0) > 0, (kind, sorted(stats.items()))
