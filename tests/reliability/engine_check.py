"""What the engines say a finished match should have been: a replay of its actions from its seed.

Shared by the fault harnesses (tests/reliability and bench/faults.py, bench/fuzz.py): a result the
arbiter sent is right when a replay of the ``MatchEnded.actions`` it sent beside it, through the
pure engine of arbiter_games, ends the game with the same winner, scores and reason.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from arbiter_games import get_game
from arbiter_wire import convert
from arbiter_wire.common import END_REASON_FROM_PB
from arbiter_wire.v1 import bot_service_pb2 as pb


@dataclass
class Replay:
    """The engine's walk through one match: the state at each decision the arbiter asked for."""

    game: str
    decisions: list[object] = field(default_factory=list)
    #: The action taken at each decision (the forced ones left out), as text.
    decided: list[str] = field(default_factory=list)
    final: object | None = None
    problems: list[str] = field(default_factory=list)


def replay_actions(
    game: str, options: Mapping[str, int], seed: bytes | None, actions: Sequence[str]
) -> Replay:
    """Apply ``actions`` (as text) from the start; the states at each decision (Surge's automatic
    skips are no decision and use no turn id, so ``decisions[turn_id - 1]`` is that turn's state in
    a match that was never restored)."""
    rules = get_game(game)
    state = rules.new_game(options, seed)
    out = Replay(game)
    for index, text in enumerate(actions):
        legal = rules.legal_actions(state)
        forced = rules.forced_action(state, legal)
        if forced is None:
            out.decisions.append(state)
            out.decided.append(text)
        try:
            state = rules.apply(state, rules.parse_action(text))
        except Exception as exc:  # noqa: BLE001 - any refusal of the engine is a finding
            out.problems.append(f"action {index} {text!r} does not replay: {type(exc).__name__}: {exc}")
            return out
    out.final = state
    return out


def check_result(
    game: str, options: Mapping[str, int], ended: pb.MatchEnded, seed: bytes | None = None
) -> tuple[Replay, list[str]]:
    """Replay ``ended.actions`` (from ``ended.seed`` for Surge, or ``seed``) and compare the engine's
    outcome with ``ended.result``. Only results the game itself decides are checked this way (a
    timeout, forfeit or abort is the match's decision, not the engine's): those are reported."""
    if seed is None and ended.seed:
        seed = bytes.fromhex(ended.seed)
    walk = replay_actions(game, options, seed, list(ended.actions))
    problems = list(walk.problems)
    if problems:
        return walk, problems
    rules = get_game(game)
    outcome = rules.outcome(walk.final)
    reason = END_REASON_FROM_PB.get(ended.result.reason, str(ended.result.reason))
    if outcome is None:
        return walk, [f"the engine says the game is not over, the arbiter ended it with {reason}"]
    winner = convert.SEAT_FROM_PB.get(ended.result.winner_seat)
    if outcome.reason != reason:
        problems.append(f"reason: engine {outcome.reason}, arbiter {reason}")
    if outcome.winner_seat != winner:
        problems.append(f"winner: engine {outcome.winner_seat}, arbiter {winner}")
    scores = {1: ended.result.seat_1_score, 2: ended.result.seat_2_score}
    if dict(outcome.scores) != scores:
        problems.append(f"scores: engine {dict(outcome.scores)}, arbiter {scores}")
    final_seat = convert.SEAT_FROM_PB[ended.seat]
    if convert.observation_from_pb(game, ended.final_observation) != rules.observe(walk.final, final_seat):
        problems.append("the final observation is not the engine's")
    return walk, problems


def check_turns(walk: Replay, turns: Sequence[pb.Turn]) -> list[str]:
    """Every Turn a seat received shows the engine's observation and legal actions at that decision."""
    rules = get_game(walk.game)
    problems = []
    for turn in turns:
        index = turn.turn_id - 1
        if not 0 <= index < len(walk.decisions):
            problems.append(f"turn {turn.turn_id} is beyond the {len(walk.decisions)} decisions of the match")
            continue
        state = walk.decisions[index]
        seat = convert.SEAT_FROM_PB[turn.seat]
        if rules.to_move(state) != seat:
            problems.append(
                f"turn {turn.turn_id} went to seat {seat}, the engine has seat {rules.to_move(state)}"
            )
        if convert.observation_from_pb(walk.game, turn.observation) != rules.observe(state, seat):
            problems.append(f"turn {turn.turn_id}: the observation is not the engine's")
        if convert.legal_from_pb(turn.legal) != list(rules.legal_actions(state)):
            problems.append(f"turn {turn.turn_id}: the legal actions are not the engine's")
    return problems
