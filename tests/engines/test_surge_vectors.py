"""The Surge Stones conformance vectors (tests/vectors), run straight against the engine module (the
conformance CLI runs them too, through its own runner)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from arbiter_games.surge import (
    SURGE,
    board_text,
    colour_scores,
    commitment,
    completed_rounds,
    draw_order,
    format_board,
    parse_board,
    surge_step,
)

from tests.engines.test_surge_helpers import reference_surge

VECTORS = Path(__file__).resolve().parent.parent / "vectors"


def _cases(name: str) -> list[Any]:
    path = VECTORS / name
    lines = [line for line in path.read_text().splitlines() if line.strip()]
    return [pytest.param(case, id=case["id"]) for case in map(json.loads, lines)]


GAMES = _cases("surge.jsonl")
STEPS = _cases("surge-step.jsonl")
SHUFFLES = _cases("surge-shuffle.jsonl")


def test_vector_files_are_present():
    assert len(GAMES) >= 20 and len(STEPS) >= 100 and len(SHUFFLES) >= 5


@pytest.mark.parametrize("case", SHUFFLES)
def test_shuffle_vector(case):
    seed = bytes.fromhex(case["seed"])
    expect = case["expect"]
    assert commitment(seed) == expect["commitment"]
    assert draw_order(seed, "blue") == expect["blue"]
    assert draw_order(seed, "orange") == expect["orange"]


@pytest.mark.parametrize("case", STEPS)
def test_step_vector(case):
    after, scored = surge_step(parse_board(case["board"]))
    assert format_board(after) == case["expect"]["board"]
    assert scored == case["expect"]["scored"]


@pytest.mark.parametrize("case", STEPS)
def test_step_vector_by_reference_reading(case):
    """The independent reference surge in the helpers agrees with the vectors too."""
    assert reference_surge(parse_board(case["board"])) == (case["expect"]["board"], case["expect"]["scored"])


@pytest.mark.parametrize("in_place", [True, False], ids=["apply_in_place", "apply"])
@pytest.mark.parametrize("case", GAMES)
def test_game_vector(case, in_place):
    state = SURGE.new_game_from_orders(case["draw_order"]["blue"], case["draw_order"]["orange"])
    trace = case["trace"]
    for i, text in enumerate(case["actions"]):
        assert SURGE.outcome(state) is None, f"over before action {i + 1}"
        action = SURGE.parse_action(text)
        assert action in SURGE.legal_actions(state), f"action {i + 1} {text} not in legal actions"
        if in_place:
            SURGE.apply_in_place(state, action)
        else:
            state = SURGE.apply(state, action)
        if i % 2 == 1:
            want = trace[i // 2]
            got = {
                "round": completed_rounds(state),
                "board": board_text(state),
                "scores": colour_scores(state),
            }
            assert got == want, f"round {i // 2 + 1}"
        else:
            assert completed_rounds(state) == i // 2
    assert len(case["actions"]) == 2 * len(trace)
    expect = case["expect"]
    outcome = SURGE.outcome(state)
    assert (outcome is not None) == expect["over"]
    assert completed_rounds(state) == expect["rounds"]
    assert board_text(state) == expect["board"]
    assert colour_scores(state) == expect["scores"]
    if outcome is not None:
        assert (outcome.winner_colour or "draw") == expect["winner"]
