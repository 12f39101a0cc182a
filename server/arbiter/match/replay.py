"""Replaying a match record through the engine, checking it as it goes."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arbiter_games import ActionError, GameDef, get_game


class RecordError(ValueError):
    """The record cannot be read or does not replay as it says."""


@dataclass
class ReplayReport:
    game: str
    rules: GameDef
    #: The bot names of seats 1 and 2, as the record gives them.
    seats: tuple[str, str] = ("", "")
    states: list[object] = field(default_factory=list)
    actions: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def load_record(path: str | Path) -> dict[str, Any]:
    try:
        record = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise RecordError(f"{path}: cannot read the record: {exc}") from exc
    if not isinstance(record, dict) or record.get("format") != "arbiter-match-record/1":
        raise RecordError(f"{path}: not an arbiter match record (format arbiter-match-record/1)")
    return record


def replay(record: dict[str, Any]) -> ReplayReport:
    """Apply every recorded action from the seed; list every disagreement with the record.

    Raises RecordError when the record lacks what a replay needs or holds the wrong kinds.
    """
    missing = missing_field(record)
    if missing is not None:
        raise RecordError(f"the record has no {missing!r} field")
    try:
        return _replay(record)
    except KeyError as exc:
        raise RecordError(f"the record has no {exc.args[0]!r} field where one is needed") from exc
    except (TypeError, ValueError, AttributeError, IndexError, OverflowError) as exc:
        raise RecordError(f"the record is malformed: {type(exc).__name__}: {exc}") from exc


#: What a replay reads of a record: each field by its dotted path (``actions[]``: each entry).
REQUIRED = ("game", "seed", "seats", "seats.1", "seats.2", "actions", "result", "result.reason")
REQUIRED_PER_ACTION = ("action", "seat")


def missing_field(record: dict[str, Any]) -> str | None:
    """The first field a replay needs that the record lacks, by its dotted path (None: all there).
    A part that is there but of the wrong kind is left to the replay to refuse."""
    for path in REQUIRED:
        here: Any = record
        for part in path.split("."):
            if not isinstance(here, dict):
                break
            if part not in here:
                return path
            here = here[part]
    actions = record.get("actions")
    if isinstance(actions, list):
        for number, entry in enumerate(actions):
            if isinstance(entry, dict):
                for key in REQUIRED_PER_ACTION:
                    if key not in entry:
                        return f"actions[{number}].{key}"
    return None


def _replay(record: dict[str, Any]) -> ReplayReport:  # noqa: C901 - one check after another, in record order
    game = record["game"]
    rules = get_game(game)
    seed = bytes.fromhex(record["seed"])
    seats = record["seats"]
    report = ReplayReport(game, rules, (_text(seats["1"]), _text(seats["2"])))
    commitment = record.get("seed_commitment") or ""
    if not rules.commitment_fits(seed, commitment, str(record.get("match_id") or "")):
        if rules.has_chance:
            report.problems.append("the seed does not match its commitment")
        else:
            report.problems.append(f"{game} has no chance, but the record has a seed commitment")
    state = rules.new_game(record.get("options") or {}, seed)
    report.states.append(state)
    for number, entry in enumerate(record["actions"], 1):
        text = entry["action"]
        if rules.to_move(state) != entry["seat"]:
            report.problems.append(
                f"action {number} ({text}): recorded for seat {entry['seat']}, "
                f"engine expects seat {rules.to_move(state)}"
            )
            break
        if entry.get("auto") == "skip" and rules.forced_action(state, rules.legal_actions(state)) is None:
            report.problems.append(
                f"action {number} ({text}): recorded as an automatic skip, but a placement was legal"
            )
            break
        try:
            state = rules.apply(state, rules.parse_action(text))
        except ActionError as exc:
            report.problems.append(f"action {number} ({text}): refused by the engine: {exc}")
            break
        report.states.append(state)
        report.actions.append(text)
    result = record["result"]
    _text(result["reason"])
    outcome = rules.outcome(state)
    if result["reason"] in ("timeout", "illegal_action", "malformed_action", "aborted"):
        if outcome is not None:
            report.problems.append(f"the record ends by {result['reason']} but the game was already over")
        faulty = result.get("faulty_seat")
        expected_winner = None if result["reason"] == "aborted" else (3 - faulty if faulty in (1, 2) else "?")
        if result["winner_seat"] != expected_winner:
            report.problems.append(
                f"winner: record says seat {result['winner_seat']} after {result['reason']} "
                f"by seat {faulty}, expected {expected_winner}"
            )
    elif outcome is None:
        report.problems.append(f"the record ends by {result['reason']} but the game is not over")
    else:
        if outcome.reason != result["reason"]:
            report.problems.append(f"reason: record says {result['reason']}, engine says {outcome.reason}")
        if outcome.winner_seat != result["winner_seat"]:
            report.problems.append(
                f"winner: record says seat {result['winner_seat']}, engine says seat {outcome.winner_seat}"
            )
        scores = {str(k): v for k, v in outcome.scores.items()}
        if scores != result["scores"]:
            report.problems.append(f"scores: record says {result['scores']}, engine says {scores}")
    return report


def _text(value: object) -> str:
    """``value`` if it is a string (a TypeError otherwise: a malformed record)."""
    if not isinstance(value, str):
        raise TypeError(f"expected a string, got {type(value).__name__}")
    return value
