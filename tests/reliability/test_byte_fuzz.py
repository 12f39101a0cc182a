"""The short form of bench/fuzz.py: 3,000 byte-level cases against a real call, derandomized."""

from hypothesis import HealthCheck, given, settings

from .byte_fuzz import FuzzTarget, request_bytes


def test_request_bytes_never_crash_and_every_refusal_is_documented():
    target = FuzzTarget()
    try:

        @settings(
            max_examples=3000,
            derandomize=True,
            deadline=None,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
        @given(data=request_bytes(target))
        def case(data: bytes) -> None:
            target.send(data)
            assert not target.figures.problems, target.figures.problems

        case()
        figures = target.figures
        assert target.alive()
    finally:
        target.stop()
    assert figures.cases >= 3000
    # Not vacuous: undecodable bytes ended calls (BAD_REQUEST), decodable ones were answered with
    # refusals, and valid moves among the mutations played on (matches ended and new ones began).
    assert figures.call_ends["BAD_REQUEST"] > 100
    assert figures.answered["move_rejected"] > 100
    assert figures.answered["seek_rejected"] + figures.answered["ladder_rejected"] > 50
