"""Runs conformance cases (``tests/vectors/README.md`` format) on the project's engines.

Each case yields ``None`` when it passes or a one-line description of its first
difference. Exceptions raised by an engine fail the case with their message.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arbiter_games.fravan import FRAVAN
from arbiter_games.hexflank import FlankRules
from arbiter_games.torrent import TORRENT

FLANK_ENGINES: dict[str, FlankRules] = {"torrent": TORRENT, "fravan": FRAVAN}

CaseRunner = Callable[[dict[str, Any]], "str | None"]


class VectorFileError(Exception):
    """A vector file cannot be read or holds a line that is not a JSON object."""


@dataclass
class CaseResult:
    case_id: str
    failure: str | None


def _differ(what: str, expected: Any, actual: Any) -> str:
    return f"{what}: expected {json.dumps(expected)} got {json.dumps(actual)}"


def _check_expect(expect: dict[str, Any], actual: dict[str, Any]) -> str | None:
    """The first ``expect`` field that differs from ``actual``, described; None if all agree."""
    for key, want in expect.items():
        if key not in actual:
            return f"expect.{key}: unknown field"
        if actual[key] != want:
            return _differ(f"expect.{key}", want, actual[key])
    return None


def run_flank_case(case: dict[str, Any]) -> str | None:
    rules: FlankRules = FLANK_ENGINES[case["game"]]
    state = rules.new_game(case.get("options") or {})
    trace = case.get("trace")
    for i, text in enumerate(case["actions"]):
        rules.apply_in_place(state, rules.parse_action(text))
        if trace is not None:
            if i >= len(trace):
                return f"action {i + 1} ({text}): trace has only {len(trace)} entries"
            board = rules.board_text(state)
            if board != trace[i]:
                return f"action {i + 1} ({text}): " + _differ("board", trace[i], board)
    if trace is not None and len(trace) != len(case["actions"]):
        return _differ("trace length", len(case["actions"]), len(trace))
    expect = case.get("expect", {})
    outcome = rules.outcome(state)
    actual: dict[str, Any] = {
        "board": rules.board_text(state),
        "to_move": state.colour_to_move,
        "over": state.over,
        "scores": rules.scores(state),
        "swapped": state.swapped,
        "winner": outcome.winner_colour if outcome else None,
    }
    failure = _check_expect(expect, actual)
    if failure is not None:
        return failure
    if "winner" not in expect and outcome is not None and "over" in expect:
        return _differ("expect.winner", None, actual["winner"])
    return None


def run_surge_case(case: dict[str, Any]) -> str | None:
    from arbiter_games import surge

    rules = surge.SURGE
    orders = case["draw_order"]
    state = rules.new_game_from_orders(orders["blue"], orders["orange"])
    trace = case.get("trace") or []
    checked_round = 0
    for i, text in enumerate(case["actions"]):
        if rules.outcome(state) is not None:
            return (
                f"action {i + 1} ({text}): the game is already over after round {surge.round_of(state) - 1}"
            )
        rules.apply_in_place(state, rules.parse_action(text))
        finished = surge.completed_rounds(state)
        while checked_round < finished:
            checked_round += 1
            if checked_round > len(trace):
                break
            want = trace[checked_round - 1]
            got = {
                "round": checked_round,
                "board": surge.board_text(state),
                "scores": surge.colour_scores(state),
            }
            if finished != checked_round:
                return f"round {checked_round}: engine ran several rounds at once"
            for key in ("round", "board", "scores"):
                if key in want and want[key] != got[key]:
                    return f"round {checked_round} (after action {i + 1}): " + _differ(
                        key, want[key], got[key]
                    )
    if checked_round < len(trace):
        return _differ("rounds played", len(trace), checked_round)
    expect = case.get("expect", {})
    outcome = rules.outcome(state)
    actual: dict[str, Any] = {
        "over": outcome is not None,
        "rounds": surge.completed_rounds(state),
        "board": surge.board_text(state),
        "scores": surge.colour_scores(state),
        "winner": (outcome.winner_colour or "draw") if outcome else None,
    }
    return _check_expect(expect, actual)


def run_surge_step_case(case: dict[str, Any]) -> str | None:
    from arbiter_games import surge

    board, scored = surge.surge_step(surge.parse_board(case["board"]))
    expect = case["expect"]
    actual = {"board": surge.format_board(board), "scored": dict(scored)}
    return _check_expect(expect, actual)


def run_surge_shuffle_case(case: dict[str, Any]) -> str | None:
    from arbiter_games import surge

    seed_hex = case["seed"]
    seed = bytes.fromhex(seed_hex)
    if len(seed) != 32:
        return f"seed: expected 32 bytes, got {len(seed)}"
    actual = {
        "commitment": surge.commitment(seed),
        "blue": surge.draw_order(seed, "blue"),
        "orange": surge.draw_order(seed, "orange"),
    }
    return _check_expect(case["expect"], actual)


RUNNERS: dict[str, CaseRunner] = {
    "torrent": run_flank_case,
    "fravan": run_flank_case,
    "surge": run_surge_case,
    "surge-step": run_surge_step_case,
    "surge-shuffle": run_surge_shuffle_case,
}


def run_case(case: dict[str, Any]) -> str | None:
    """``None`` when the case passes, else its first difference."""
    kind = case.get("game")
    runner = RUNNERS.get(kind) if isinstance(kind, str) else None
    if runner is None:
        return f"unknown case kind {kind!r}"
    try:
        return runner(case)
    except Exception as exc:  # noqa: BLE001 - an engine error fails the case, it does not stop the run
        return f"{type(exc).__name__}: {exc}"


def read_cases(paths: Iterable[str | Path]) -> Iterator[tuple[str, dict[str, Any]]]:
    """``(label, case)`` for every non-blank line of every file; raises VectorFileError."""
    for path in paths:
        try:
            lines = Path(path).read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            raise VectorFileError(f"{path}: cannot read: {exc}") from exc
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                case = json.loads(line)
            except json.JSONDecodeError as exc:
                raise VectorFileError(f"{path}:{number}: not JSON: {exc}") from exc
            if not isinstance(case, dict):
                raise VectorFileError(f"{path}:{number}: a case must be a JSON object")
            if case.get("format") == "arbiter-match-record/1":
                raise VectorFileError(
                    f"{path}:{number}: a match record, not a conformance case (check it with arbiter replay)"
                )
            if "game" not in case or not ("id" in case or "expect" in case):
                raise VectorFileError(
                    f"{path}:{number}: not a conformance case (a case has a 'game', and an 'id' or "
                    "an 'expect')"
                )
            yield f"{path}:{number}", case


def run_files(paths: Iterable[str | Path]) -> list[CaseResult]:
    results = []
    for label, case in read_cases(paths):
        results.append(CaseResult(str(case.get("id", label)), run_case(case)))
    return results
