"""The scripted scenarios of tests/scenarios/*.json: loading, the scripted picks, and the rules' own
account of what a deterministic scenario must end in (tests/scenarios/README.md describes the format).

The SDK runners (tests/sdk/test_scenarios.py for Python, clients/js/test/scenarios.test.ts for
TypeScript) play the scenarios against a real arbiter. ``predict`` replays a Torrent or Fravan
scenario with the pure engine (no server, no SDK) so that a test can check that the figures the
files expect are the rules' figures and not copied from a run.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arbiter_games import get_game

SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"
EVENTS = ("illegal", "malformed", "disconnect", "sleep")
TAMPERS = ("none", "seed", "seed_and_commitment")
FAILURES = ("commitment", "draws")
SERVER_DEFAULTS: dict[str, Any] = {
    "base": 60.0,
    "increment": 1.0,
    "per_decision": None,
    "on_timeout": "loss",
    "on_illegal": "forfeit",
}
#: What each game's "malformed" event sends: an action of another game, which the arbiter's
#: codec for this game cannot read (MALFORMED_ACTION).
MALFORMED = {"torrent": ("surge", "1@a1"), "fravan": ("surge", "1@a1"), "surge": ("torrent", "pass")}


@dataclass(frozen=True)
class Event:
    turn: int
    do: str
    seconds: float = 0.0


@dataclass(frozen=True)
class SeatScript:
    offset: int
    step: int
    events: Mapping[int, Event]

    def pick(self, legal: Sequence[str], n: int) -> str:
        """The scripted choice at this seat's turn ``n`` (0-based) among the legal actions as text."""
        return legal[(self.offset + self.step * n) % len(legal)]


@dataclass(frozen=True)
class SeedCheck:
    tamper: str
    fails: tuple[str, ...]


@dataclass(frozen=True)
class SeatExpect:
    rejections: tuple[str, ...] = ()
    asked_again: int = 0
    reconnected: bool = False
    seed_checks: tuple[SeedCheck, ...] = ()
    colour: str | None = None  # the seat's colour at the end (a swap changes it); None: unchecked


@dataclass(frozen=True)
class Scenario:
    name: str
    about: str
    game: str
    options: Mapping[str, Any]
    server: Mapping[str, Any]
    seats: Mapping[int, SeatScript]
    reasons: tuple[str, ...]  # the match ends for one of these
    winner: int | None  # None: a draw
    check_winner: bool
    scores: Mapping[int, int] | None
    plies: int | None
    expect_seats: Mapping[int, SeatExpect] = field(default_factory=dict)

    def serve_args(self) -> list[str]:
        """The ``arbiter serve`` options for this scenario's clocks and policies."""
        s = self.server
        args = ["--base", str(s["base"]), "--increment", str(s["increment"])]
        if s["per_decision"] is not None:
            args += ["--per-decision", str(s["per_decision"])]
        return [*args, "--on-timeout", s["on_timeout"], "--on-illegal", s["on_illegal"]]

    def server_key(self) -> str:
        return json.dumps(dict(self.server), sort_keys=True)

    def bot_names(self) -> tuple[str, str]:
        return f"{self.name}-x", f"{self.name}-y"


def _seat_key(raw: str) -> int:
    if raw not in ("1", "2"):
        raise ValueError(f"seats are named '1' and '2', not {raw!r}")
    return int(raw)


def load(path: Path) -> Scenario:
    """A scenario file, checked against the format (a ValueError names what is wrong)."""
    raw = json.loads(path.read_text())
    if raw.get("name") != path.stem:
        raise ValueError(f"{path.name}: 'name' must be the file's stem, {path.stem!r}")
    game = raw["game"]
    get_game(game)  # an unknown game raises
    server = {**SERVER_DEFAULTS, **raw.get("server", {})}
    if set(server) != set(SERVER_DEFAULTS):
        raise ValueError(f"{path.name}: unknown server settings {sorted(set(server) - set(SERVER_DEFAULTS))}")
    seats: dict[int, SeatScript] = {}
    for key, script in raw["seats"].items():
        events: dict[int, Event] = {}
        for e in script.get("events", []):
            if e["do"] not in EVENTS:
                raise ValueError(f"{path.name}: unknown event {e['do']!r}")
            events[int(e["turn"])] = Event(int(e["turn"]), e["do"], float(e.get("seconds", 0.0)))
        pick = script.get("pick", {})
        seats[_seat_key(key)] = SeatScript(int(pick.get("offset", 0)), int(pick.get("step", 0)), events)
    if set(seats) != {1, 2}:
        raise ValueError(f"{path.name}: both seats need a script")
    expect = raw["expect"]
    expect_seats: dict[int, SeatExpect] = {}
    for key, e in expect.get("seats", {}).items():
        checks = tuple(SeedCheck(c["tamper"], tuple(sorted(c["fails"]))) for c in e.get("seed_checks", []))
        for c in checks:
            if c.tamper not in TAMPERS or not set(c.fails) <= set(FAILURES):
                raise ValueError(f"{path.name}: bad seed check {c}")
        expect_seats[_seat_key(key)] = SeatExpect(
            rejections=tuple(e.get("rejections", [])),
            asked_again=int(e.get("asked_again", 0)),
            reconnected=bool(e.get("reconnected", False)),
            seed_checks=checks,
            colour=e.get("colour"),
        )
    winner = expect.get("winner", "any")
    if winner not in (1, 2, "draw", "any"):
        raise ValueError(f"{path.name}: 'winner' is 1, 2 or \"draw\" (or absent: not checked)")
    reason = expect["reason"]
    reasons = (reason,) if isinstance(reason, str) else tuple(reason)
    scores = expect.get("scores")
    return Scenario(
        name=raw["name"],
        about=raw.get("about", ""),
        game=game,
        options=dict(raw.get("options", {})),
        server=server,
        seats=seats,
        reasons=reasons,
        winner=int(winner) if winner in (1, 2) else None,
        check_winner=winner != "any",
        scores=None if scores is None else {_seat_key(k): int(v) for k, v in scores.items()},
        plies=expect.get("plies"),
        expect_seats=expect_seats,
    )


def all_scenarios() -> list[Path]:
    return sorted(SCENARIOS.glob("*.json"))


class Seen:
    """The actions a seat was offered at its earlier turns, in order of first offer; the
    "illegal" event answers with the first of them that is not legal now."""

    def __init__(self) -> None:
        self.order: list[str] = []
        self._known: set[str] = set()

    def illegal(self, legal: Sequence[str]) -> str | None:
        now = set(legal)
        return next((a for a in self.order if a not in now), None)

    def add(self, legal: Sequence[str]) -> None:
        for a in legal:
            if a not in self._known:
                self._known.add(a)
                self.order.append(a)


@dataclass(frozen=True)
class Prediction:
    reason: str
    winner: int | None
    scores: dict[int, int]
    plies: int


def _ended(reason: str, winner: int | None, scores: dict[int, int], plies: int) -> Prediction:
    return Prediction(reason, winner, dict(scores), plies)


def predict(scenario: Scenario) -> Prediction:
    """How a Torrent or Fravan scenario ends by the rules alone (no arbiter, no SDK): the scripted
    picks, the events under the scenario's policies, the arbiter's default action (a pass)."""
    rules = get_game(scenario.game)
    if rules.has_chance:
        raise ValueError(f"{scenario.name}: {scenario.game} has chance; its scenarios cannot be predicted")
    state = rules.new_game(rules.normalise_options(scenario.options))
    turns = {1: 0, 2: 0}
    seen = {1: Seen(), 2: Seen()}
    plies = 0
    policy = scenario.server
    while (outcome := rules.outcome(state)) is None:
        seat = rules.to_move(state)
        assert seat is not None
        legal = [rules.format_action(a) for a in rules.legal_actions(state)]
        script = scenario.seats[seat]
        n = turns[seat]
        turns[seat] += 1
        event = script.events.get(n + 1)
        scores = rules.scores_by_seat(state)
        if event is not None and event.do in ("illegal", "malformed") and policy["on_illegal"] == "forfeit":
            if event.do == "illegal" and seen[seat].illegal(legal) is None:
                raise ValueError(f"{scenario.name}: seat {seat} has no illegal action at turn {n + 1}")
            reason = "illegal_action" if event.do == "illegal" else "malformed_action"
            return _ended(reason, 3 - seat, scores, plies)
        seen[seat].add(legal)
        choice = script.pick(legal, n)
        limit = policy["per_decision"]
        if event is not None and event.do == "sleep" and limit is not None and event.seconds > limit:
            if policy["on_timeout"] == "loss":
                return _ended("timeout", 3 - seat, scores, plies)
            if "pass" not in legal:
                raise ValueError(
                    f"{scenario.name}: the default action at seat {seat}'s turn {n + 1} is random"
                )
            choice = "pass"
        state = rules.apply(state, rules.parse_action(choice))
        plies += 1
    return _ended(outcome.reason, outcome.winner_seat, dict(outcome.scores), plies)


def main() -> None:
    """Print what the rules make of every Torrent/Fravan scenario: the figures for its "expect"."""
    for path in all_scenarios():
        scenario = load(path)
        if get_game(scenario.game).has_chance:
            continue
        p = predict(scenario)
        winner: int | str = p.winner if p.winner is not None else "draw"
        scores = {str(k): v for k, v in sorted(p.scores.items())}
        figures = {"reason": p.reason, "winner": winner, "scores": scores, "plies": p.plies}
        print(f"{scenario.name}: {json.dumps(figures)}")


if __name__ == "__main__":
    main()
