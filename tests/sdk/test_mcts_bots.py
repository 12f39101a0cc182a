"""The search bots (mcts_flank, ismcts_surge): legal answers, whole games through a real arbiter,
and a Surge sampler that agrees with the observation and reads nothing else."""

from __future__ import annotations

import asyncio
import math
import random
from pathlib import Path
from typing import Any

import pytest
from arbiter.runner.local_match import LocalRunner, RunnerConfig, _builtin_module, label
from arbiter_bot.bot import TurnContext
from arbiter_bot.examples import ismcts_surge, mcts_flank
from arbiter_bot.examples.greedy_flank import GreedyFlankBot
from arbiter_bot.examples.ismcts_surge import (
    Determinizer,
    IsmctsSurgeBot,
    column_forecast,
    determinize,
    lookahead_action,
    playout_value,
    rollout_action,
    sample_hidden,
    unseen_opponent_stones,
)
from arbiter_bot.examples.mcts_flank import MctsFlankBot, Node, margin_of, margin_value
from arbiter_bot.examples.thinking import think_seconds
from arbiter_bot.local import play_local
from arbiter_games.hexflank import SWAP, FlankState, state_from_observation
from arbiter_games.policy import MatchPolicy
from arbiter_games.surge import SURGE, SurgeState, surge_columns, surge_step
from arbiter_games.timecontrol import TimeControl
from hypothesis import given, settings
from hypothesis import strategies as st

from .helpers import decision_points, random_game
from .test_example_bots import ask


def context(seat: int, limit: float | None = None, clock: float | None = None) -> TurnContext:
    return TurnContext(
        match_id="m",
        turn_id=1,
        game="surge",
        options={},
        seat=seat,
        colour=None,
        opponent_name="x",
        clocks={1: clock, 2: clock},
        decision_limit=limit,
    )


# --- Torrent and Fravan ---------------------------------------------------------------------------


@pytest.mark.parametrize("game", ["torrent", "fravan"])
def test_mcts_flank_answers_legally(game: str) -> None:
    bot = MctsFlankBot(0, iterations=4)
    for i, (rules, state, legal) in enumerate(decision_points(game, {"size": 5}, 3)):
        if i % 3 == 0:
            assert ask(bot, game, rules, state, legal) in legal


def test_mcts_flank_keeps_its_tree_between_moves() -> None:
    bot = MctsFlankBot(1, iterations=6)
    reused = []
    choose = bot.choose

    def noting(observation: Any, legal: Any, ctx: TurnContext) -> Any:
        action = choose(observation, legal, ctx)
        reused.append(bot.last.reused)
        return action

    bot.choose = noting  # type: ignore[method-assign,assignment]
    result = play_local(bot, GreedyFlankBot(2), "torrent", {"size": 5})
    assert result.reason == "two_passes"
    assert not reused[0] and sum(reused) > len(reused) // 2


def test_mcts_flank_is_deterministic_with_a_fixed_number_of_iterations() -> None:
    games = [
        play_local(MctsFlankBot(5, iterations=5), GreedyFlankBot(6), "fravan", {"size": 5}) for _ in range(2)
    ]
    assert games[0].actions == games[1].actions


def scored_afresh(rules: Any, state: FlankState) -> dict[str, int]:
    """The state's scores with the territory cache dropped, so the engine reads every line."""
    fresh = state.copy()
    fresh.territory = None
    fresh.territory_from = None
    return dict(rules.scores(fresh))


@pytest.mark.parametrize("game", ["torrent", "fravan"])
@pytest.mark.parametrize("seed", [1, 2])
def test_mcts_flank_expansion_values_every_child_by_its_true_margin(game: str, seed: int) -> None:
    """The fast margin (incremental territory, no dict) equals the from-scratch score margin for
    every child of every position of a game, from the real state and from one rebuilt from the
    observation (whose territory the expansion must compute itself); swaps change the colour."""
    bot = MctsFlankBot(0)
    swaps = 0
    for typed, state, legal in decision_points(game, {"size": 5}, seed):
        rules = typed.flank_rules
        seat = rules.to_move(state)
        rebuilt = state_from_observation(rules, rules.observe(state, seat))
        for start in (state, rebuilt):
            node = Node(rules, start)
            assert bot._expand(rules, node)
            assert node.actions == legal
            for action, after, value in zip(node.actions, node.states, node.static, strict=True):
                assert after is not None
                if after.over:
                    assert value == margin_value(rules, after, seat)
                    continue
                scores = scored_afresh(rules, after)
                me = after.colour_of(seat)
                expected = scores[me] - sum(v for k, v in scores.items() if k != me)
                assert margin_of(after, 1 if me == "black" else 2) == expected
                assert value == pytest.approx(math.tanh(expected / mcts_flank.SCALE))
                swaps += action == SWAP
            assert node.value == max(node.static)
    assert swaps == 2  # the swap position was checked, from both starts


# --- Surge: the sampler ---------------------------------------------------------------------------


def turn_states(seed: int) -> list[tuple[SurgeState, int]]:
    """(state, seat to move) at every decision of one random Surge game."""
    out = []
    for _, state in random_game("surge", {}, seed):
        seat = SURGE.to_move(state)
        if seat is not None and SURGE.can_place(state):
            out.append((state, seat))
    return out


@settings(max_examples=60, deadline=None)
@given(game_seed=st.integers(0, 10_000), pick=st.integers(0, 1_000), sample_seed=st.integers(0, 2**32))
def test_every_determinization_agrees_with_the_observation(
    game_seed: int, pick: int, sample_seed: int
) -> None:
    states = turn_states(game_seed)
    state, seat = states[pick % len(states)]
    obs = SURGE.observe(state, seat)
    rng = random.Random(sample_seed)
    sampler = Determinizer(obs)
    for _ in range(5):
        hidden = sample_hidden(obs, rng)
        guess = determinize(obs, hidden)
        # What the bot would see in the guessed game is exactly what it sees in the real one ...
        assert SURGE.observe(guess, seat) == obs
        assert SURGE.legal_actions(guess) == SURGE.legal_actions(state)
        # ... the guess uses the opponent's unseen stones, each once ...
        down = [] if hidden.face_down is None else [hidden.face_down]
        dealt = sorted([*hidden.opponent_hand, *hidden.opponent_supply, *down])
        assert dealt == unseen_opponent_stones(obs)
        assert sorted(hidden.own_supply) == list(obs.supply)
        # ... and the search's fast copy builds the same state.
        assert sampler.state(hidden).snapshot() == guess.snapshot()


@pytest.mark.parametrize("seat", [1, 2])
def test_determinizations_match_the_real_engine_state_for_either_seat(seat: int) -> None:
    """Beyond the observation: for the seat as first and as second placer, every field of the
    engine state that is not hidden (whose turn, who placed first, the face-down square, whether
    anybody placed, rounds done, scores, the empty squares, every face-up cell, the own hand, the
    sizes of hands and supplies) is the real game's, so the search plays the real position."""
    placings = set()
    for game_seed in range(6):
        for state, mover in turn_states(game_seed):
            if mover != seat:
                continue
            obs = SURGE.observe(state, seat)
            guess = Determinizer(obs).sample(random.Random(game_seed))
            me, them = seat - 1, 2 - seat
            for name in ("mover", "first", "down", "placed", "done", "score", "empty"):
                assert getattr(guess, name) == getattr(state, name), name
            hidden = {state.down} if state.down >= 0 and state.first == them else set()
            cells = [(c, r) for c in range(8) for r in range(8) if c * 8 + r not in hidden]
            assert [guess.cols[c][r] for c, r in cells] == [state.cols[c][r] for c, r in cells]
            assert guess.hands[me] == state.hands[me]
            assert len(guess.hands[them]) == len(state.hands[them])
            for p in (0, 1):
                assert len(guess.orders[p]) - guess.pos[p] == len(state.orders[p]) - state.pos[p]
            assert sorted(guess.orders[me][guess.pos[me] :]) == sorted(state.orders[me][state.pos[me] :])
            placings.add(state.first == me)
    assert placings == {True, False}  # the seat was checked placing first and placing second


def test_the_big_face_down_model_deals_the_same_stones() -> None:
    """``big_down``: the opponent's face-down stone is the biggest of it and the hand left."""
    checked = 0
    for game_seed in range(4):
        for state, seat in turn_states(game_seed):
            obs = SURGE.observe(state, seat)
            if state.down < 0 or state.first == seat - 1:
                continue
            rng = random.Random(game_seed)
            for _ in range(5):
                hidden = sample_hidden(obs, rng, big_down=True)
                assert hidden.face_down is not None
                assert all(v <= hidden.face_down for v in hidden.opponent_hand)
                dealt = sorted([*hidden.opponent_hand, *hidden.opponent_supply, hidden.face_down])
                assert dealt == unseen_opponent_stones(obs)
                assert len(hidden.opponent_hand) == obs.opponent_hand_size
                assert SURGE.observe(determinize(obs, hidden), seat) == obs
            checked += 1
    assert checked >= 10


def test_the_sampler_reads_the_observation_only() -> None:
    """Two real games that differ only in hidden stones look the same to the bot, so its
    determinizations (and its move) are the same; they still vary from sample to sample."""
    checked = 0
    for state, seat in turn_states(11)[4:40:5]:
        obs = SURGE.observe(state, seat)
        if obs.opponent_supply_size < 4:
            continue
        # Another real game with the same observation and different hidden stones.
        other = determinize(obs, sample_hidden(obs, random.Random(99)))
        assert SURGE.observe(other, seat) == obs
        them = 2 - seat
        assert (other.hands[them], other.orders[them][other.pos[them] :]) != (
            state.hands[them],
            state.orders[them][state.pos[them] :],
        )
        runs = []
        for real in (state, other):
            bot = IsmctsSurgeBot(7, iterations=25)
            bot.record = []
            seen = SURGE.observe(real, seat)
            action = bot.choose(seen, SURGE.legal_actions(real), context(seat))
            runs.append((action, [s.snapshot() for s in bot.record]))
        assert runs[0] == runs[1]
        hands = {tuple(s.hands[them]) for s in bot.record}
        assert len(hands) > 1  # the guesses differ from one another
        checked += 1
    assert checked >= 3


@pytest.mark.parametrize(
    ("halving", "paired", "lookahead"),
    [(True, False, 0), (False, False, 0), (False, True, 0), (True, False, 4)],
)
def test_ismcts_answers_legally(halving: bool, paired: bool, lookahead: int) -> None:
    bot = IsmctsSurgeBot(3, iterations=8, halving=halving, paired=paired, lookahead=lookahead)
    for seed in range(3):
        for rules, state, legal in decision_points("surge", {}, seed):
            assert ask(bot, "surge", rules, state, legal) in legal


def test_surge_columns_is_the_engines_surge() -> None:
    for seed in range(5):
        for _, state in random_game("surge", {}, seed):
            cols, blue, orange = surge_columns(state.cols)
            board, scored = surge_step(state.cols)
            assert cols == board and (blue, orange) == (scored["blue"], scored["orange"])


class NeverRandom(random.Random):
    """An rng whose ``random()`` never falls under the playout policies' ``EPSILON``."""

    def random(self) -> float:
        return 0.99


def board_forecast(cols: Any, horizon: int = ismcts_surge.FORECAST) -> tuple[int, int]:
    """The whole board surged ``horizon`` times: (Blue's points less Orange's, stones left)."""
    margin = 0
    for _ in range(horizon):
        cols, blue, orange = surge_columns(cols)
        margin += blue - orange
    return margin, sum(map(sum, cols))


def test_column_forecasts_add_up_to_the_boards() -> None:
    """The look-ahead policy surges one column at a time: the columns' figures sum to the board's."""
    checked = 0
    for seed in range(4):
        for state, _ in turn_states(seed):
            parts = [column_forecast(col) for col in state.cols]
            assert (sum(m for m, _ in parts), sum(v for _, v in parts)) == board_forecast(state.cols)
            checked += 1
    assert checked > 50


def test_lookahead_action_plays_the_best_placement_by_tips_and_forecast() -> None:
    """Against a reference that scores every biggest-stone placement on the whole board, with the
    same tips, the policy's choice is one of the best; it differs from the cheap policy somewhere."""
    differs = 0
    for seed in range(3):
        for state, _ in turn_states(seed):
            legal = SURGE.legal_actions(state)
            if len(legal) < 2:
                continue
            p = state.mover
            sign = 1 if p == 0 else -1
            first = p == state.first
            top = max(a.value for a in legal)
            base = board_forecast(state.cols)
            scores = {}
            for a in legal:
                if a.value != top:
                    continue
                c, r = "abcdefgh".index(a.square[0]), int(a.square[1:]) - 1
                col = state.cols[c]
                mine = sum(1 for x in col if x * sign > 0)
                score = 2.0 * mine if mine else -3.0
                score += 4.0 if r == (1 if p == 0 else 6) else 0.0
                if first and 0 <= r + sign < 8 and col[r + sign] * sign > 0:
                    score += 6.0
                if not first and state.down >= 0 and state.down >> 3 == c:
                    score += 6.0 + 0.6 * top
                cols = [list(x) for x in state.cols]
                cols[c][r] = sign * top
                margin, material = board_forecast([tuple(x) for x in cols])
                score += ismcts_surge.LOOKAHEAD_WEIGHT * sign * (margin - base[0])
                score += ismcts_surge.MATERIAL * (sign * (material - base[1]) - top)
                scores[a] = score
            chosen = lookahead_action(state, legal, NeverRandom(seed))
            assert chosen in scores and scores[chosen] == pytest.approx(max(scores.values()))
            differs += chosen != rollout_action(state, legal, NeverRandom(seed))
    assert differs > 0


def test_playouts_with_lookahead_reach_the_end_of_the_game() -> None:
    for state, _ in turn_states(5)[::6]:
        copy = state.copy()
        value = playout_value(copy, random.Random(1), rounds=100, lookahead=100)
        assert copy.mover < 0 and -1.0 <= value <= 1.0


# --- Thinking time -------------------------------------------------------------------------------


def test_thinking_time_keeps_within_budget_clock_and_limit() -> None:
    assert think_seconds(context(1), 0.3, 10) == 0.3  # untimed: the budget
    assert think_seconds(context(1, limit=0.1), 1.0, 10) == pytest.approx(0.04)  # 0.1 s less 60 ms
    assert think_seconds(context(1, limit=2.0), 1.0, 10) == 1.0
    assert think_seconds(context(1, limit=2.0), 5.0, 10) == pytest.approx(2.0 - 0.25)
    assert think_seconds(context(1, clock=10.0), 5.0, 20) == pytest.approx(0.5)  # a share of the clock
    assert think_seconds(context(1, limit=0.001), 1.0, 10) == 0.001  # never nothing


@pytest.mark.parametrize("module", [mcts_flank, ismcts_surge])
def test_the_command_line_offers_think(module: Any, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        module.main(["--help"])
    assert stop.value.code == 0
    assert "--think SECONDS" in capsys.readouterr().out


# --- Whole games through a real arbiter -----------------------------------------------------------


def run_match(tmp_path: Path, bot_a: str, game: str, options: dict[str, Any], games: int) -> Any:
    """BOT_A against the greedy bot through ``arbiter match``'s runner, 0.3 s per decision.

    A late answer gets the arbiter's default action (the test checks completion and legality,
    not the machine's speed)."""
    config = RunnerConfig(
        bot_a=bot_a,
        bot_b="greedy",
        game=game,
        options=options,
        games=games,
        control=TimeControl(per_decision=0.3),
        policy=MatchPolicy(on_timeout="default_action", on_illegal="forfeit"),
        records_dir=tmp_path,
        seed=4,
        connect_timeout=60.0,
    )
    return asyncio.run(LocalRunner(config).run())


@pytest.mark.parametrize(
    ("bot", "game", "options", "endings"),
    [
        ("mcts", "torrent", {"size": 5}, {"two_passes"}),
        ("mcts", "fravan", {"size": 5}, {"two_passes"}),
        (
            "ismcts",
            "surge",
            {},
            {"board_empty", "no_change_no_stones", "no_change_nobody_placed", "round_limit"},
        ),
    ],
)
def test_search_bots_play_whole_games_against_greedy(
    tmp_path: Path, bot: str, game: str, options: dict[str, Any], endings: set[str]
) -> None:
    result = run_match(tmp_path, bot, game, options, 2)
    assert result.errors == []
    assert len(result.games) == 2
    assert {g.seat_of_a for g in result.games} == {1, 2}
    for played in result.games:
        assert played.reason in endings, played
        assert played.faulty is None
    assert len(list(tmp_path.glob(f"{game}-*.json"))) == 2
    assert (tmp_path / "bot-A.log").exists()  # the search bot ran in a process of its own


def test_arbiter_match_names_the_search_bots_by_game(tmp_path: Path) -> None:
    assert _builtin_module("mcts", "torrent") == _builtin_module("mcts_flank", "fravan") == "mcts_flank"
    assert _builtin_module("mcts", "surge") == _builtin_module("ismcts", "surge") == "ismcts_surge"
    assert _builtin_module("greedy", "surge") == "surge_tips"
    config = RunnerConfig(
        bot_a="mcts",
        bot_b="greedy",
        game="torrent",
        options={},
        games=1,
        control=TimeControl(),
        policy=MatchPolicy(),
        records_dir=tmp_path,
        concurrency=2,
        seed=3,
    )
    runner = LocalRunner(config)
    command = runner._builtin_command("A", "mcts")
    assert command is not None
    assert "-m arbiter_bot.examples.mcts_flank" in command
    assert "--max-concurrent 2" in command and "--seed 6" in command
    assert runner._builtin_command("B", "greedy") is None  # played inside the runner's process
    assert label("mcts") == "mcts"
