"""Every conformance vector in tests/vectors passes, case by case."""

import json

import pytest
from arbiter.conformance import run_case

from tests.conftest import VECTORS

CASES = [
    pytest.param(json.loads(line), id=json.loads(line)["id"])
    for path in sorted(VECTORS.glob("*.jsonl"))
    for line in path.read_text().splitlines()
    if line.strip()
]


def test_vectors_are_present():
    kinds = {case.values[0]["game"] for case in CASES}  # type: ignore[index]
    assert kinds == {"torrent", "fravan", "surge", "surge-step", "surge-shuffle"}


@pytest.mark.parametrize("case", CASES)
def test_vector(case):
    assert run_case(case) is None
