"""Surge Stones property tests: games end, stones are conserved, apply is pure, replays are
exact, the fast paths agree with slow readings of the rules, observations hide what they must."""

from __future__ import annotations

import copy
import random
from collections import Counter

import arbiter_games.surge as surge_module
import pytest
from arbiter_games.surge import (
    SKIP,
    SQUARES,
    STONES,
    SURGE,
    PlaceStone,
    SurgeState,
    format_board,
    surge_step,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.engines.test_surge_helpers import reference_surge

R = SURGE
REASONS = {"board_empty", "no_change_no_stones", "no_change_nobody_placed", "round_limit"}
seeds = st.binary(min_size=32, max_size=32)
rng_seeds = st.integers(0, 2**32)


def random_game(seed: bytes, rng: random.Random) -> tuple[SurgeState, list[str]]:
    state = R.new_game(None, seed)
    actions = []
    while R.outcome(state) is None:
        action = rng.choice(R.legal_actions(state))
        actions.append(R.format_action(action))
        state = R.apply(state, action)
        assert len(actions) <= 200
    return state, actions


def in_play(state: SurgeState, p: int) -> Counter[int]:
    """Player p's stones on the board, in hand and in supply."""
    sign = 1 if p == 0 else -1
    stones = Counter(sign * v for col in state.cols for v in col if v * sign > 0)
    stones.update(state.hands[p])
    stones.update(state.orders[p][state.pos[p] :])
    return stones


def slow_legal(state: SurgeState) -> list[object]:
    """The legal actions read straight off the board and hand."""
    p = state.mover
    if p < 0:
        return []
    rows = (0, 1) if p == 0 else (6, 7)
    empty = [SQUARES[c * 8 + r] for c in range(8) for r in rows if state.cols[c][r] == 0]
    hand = sorted(set(state.hands[p]))
    if not hand or not empty:
        return [SKIP]
    return [PlaceStone(v, sq) for v in hand for sq in empty]


@settings(max_examples=40, deadline=None)
@given(seed=seeds, rng_seed=rng_seeds)
def test_random_games_end_within_100_rounds(seed, rng_seed):
    state, actions = random_game(seed, random.Random(rng_seed))
    outcome = R.outcome(state)
    assert outcome is not None and outcome.reason in REASONS
    assert state.rounds_played <= 100
    assert len(actions) == 2 * state.rounds_played
    assert outcome.details["rounds"] == state.rounds_played
    b, o = state.score
    assert outcome.winner_seat == (1 if b > o else 2 if o > b else None)


@settings(max_examples=25, deadline=None)
@given(seed=seeds, rng_seed=rng_seeds)
def test_invariants_after_every_action(seed, rng_seed):
    """Stones conserved (board + hand + supply + removed = 20 each, never more than two of a
    value), removed only grows, scores only come from removed enemy stones, the hand is full while
    the supply lasts, legal actions match a slow reading, the empty-home mask matches the board."""
    rng = random.Random(rng_seed)
    state = R.new_game(None, seed)
    while R.outcome(state) is None:
        before = [in_play(state, 0), in_play(state, 1)]
        removed_before = R.removed(state)
        legal = R.legal_actions(state)
        assert legal == slow_legal(state)
        assert R.observe(state, state.mover + 1).legal_actions() == legal
        action = rng.choice(legal)
        round_ends = state.mover != state.first
        old_score = list(state.score)
        state = R.apply(state, action)
        after = [in_play(state, 0), in_play(state, 1)]
        removed = R.removed(state)
        for p, colour in enumerate(("blue", "orange")):
            assert all(1 <= v <= 10 and 0 < n <= 2 for v, n in after[p].items())
            assert sum(after[p].values()) + len(removed[colour]) == 20
            assert Counter(removed[colour]) + after[p] == Counter(STONES)
            assert not Counter(removed_before[colour]) - Counter(removed[colour])  # only grows
            if not round_ends:
                assert after[p] == before[p]
            else:
                assert not after[p] - before[p]
            hand, left = len(state.hands[p]), len(state.orders[p]) - state.pos[p]
            assert hand == 3 or left == 0
        for p, enemy in ((0, "orange"), (1, "blue")):
            gained = state.score[p] - old_score[p]
            new_enemy_removed = Counter(removed[enemy]) - Counter(removed_before[enemy])
            assert 0 <= gained <= sum(new_enemy_removed.elements())
        assert state.empty == surge_module._home_mask(state.cols)


@settings(max_examples=25, deadline=None)
@given(seed=seeds, rng_seed=rng_seeds)
def test_apply_leaves_its_input_untouched_and_matches_apply_in_place(seed, rng_seed):
    rng = random.Random(rng_seed)
    state = R.new_game(None, seed)
    twin = state.copy()
    while R.outcome(state) is None:
        deep = copy.deepcopy(state.snapshot())
        action = rng.choice(R.legal_actions(state))
        new = R.apply(state, action)
        assert state.snapshot() == deep
        assert new is not state and new.cols is not state.cols and new.hands[0] is not state.hands[0]
        R.apply_in_place(twin, action)
        assert twin == new
        state = new


@settings(max_examples=20, deadline=None)
@given(seed=seeds, rng_seed=rng_seeds)
def test_replay_from_seed_and_actions_gives_the_same_game(seed, rng_seed):
    state, actions = random_game(seed, random.Random(rng_seed))
    replay = R.new_game({}, seed)
    for text in actions:
        R.apply_in_place(replay, R.parse_action(text))
    assert replay == state
    assert R.outcome(replay) == R.outcome(state)
    assert format_board(replay.cols) == format_board(state.cols)


@settings(max_examples=20, deadline=None)
@given(seed=seeds, rng_seed=rng_seeds)
def test_each_round_is_one_surge_of_the_revealed_board(seed, rng_seed):
    rng = random.Random(rng_seed)
    state = R.new_game(None, seed)
    while R.outcome(state) is None:
        action = rng.choice(R.legal_actions(state))
        if state.mover == state.first:
            R.apply_in_place(state, action)
            continue
        revealed = list(state.cols)
        if isinstance(action, PlaceStone):
            i = SQUARES.index(action.square)
            c, r = divmod(i, 8)
            cells = list(revealed[c])
            cells[r] = action.value if state.mover == 0 else -action.value
            revealed[c] = tuple(cells)
        expected, scored = surge_step(revealed)
        old = list(state.score)
        R.apply_in_place(state, action)
        assert state.cols == expected
        assert state.score == [old[0] + scored["blue"], old[1] + scored["orange"]]


column_cells = st.one_of(st.just(0), st.just(0), st.integers(1, 10), st.integers(-10, -1))
boards = st.lists(st.lists(column_cells, min_size=8, max_size=8), min_size=8, max_size=8)


@settings(max_examples=300, deadline=None)
@given(board=boards)
def test_surge_step_agrees_with_the_reference_reading(board):
    after, scored = surge_step(board)
    assert (format_board(after), scored) == reference_surge(board)


def test_surge_step_agrees_with_the_reference_on_many_columns():
    rng = random.Random(20240601)
    for _ in range(3000):
        density = rng.random()
        board = [
            [0 if rng.random() > density else rng.choice((1, -1)) * rng.randint(1, 10) for _ in range(8)]
            for _ in range(8)
        ]
        after, scored = surge_step(board)
        assert (format_board(after), scored) == reference_surge(board), board


def test_the_column_cache_does_not_change_results(monkeypatch):
    """Games with the column cache emptied all the time equal games with it."""
    rng = random.Random(7)
    games = []
    for _ in range(30):
        seed = rng.randbytes(32)
        state, actions = random_game(seed, random.Random(seed))
        games.append((seed, actions, state))
    monkeypatch.setattr(surge_module, "_RESULTS_LIMIT", 1)
    surge_module._results.clear()
    for seed, actions, final in games:
        state = R.new_game(None, seed)
        for text in actions:
            R.apply_in_place(state, R.parse_action(text))
        assert state == final


# ---- hidden information --------------------------------------------------------------------------


def _other_order(rng: random.Random) -> list[int]:
    order = list(STONES)
    rng.shuffle(order)
    return order


@pytest.mark.parametrize("watcher", [1, 2])
@settings(max_examples=30, deadline=None)
@given(rng_seed=rng_seeds)
def test_observation_ignores_opponent_hand_and_undrawn_order(watcher, rng_seed):
    """Same orders for the watcher, different ones for the opponent, same actions: the watcher's
    observation is the same as long as the opponent's actions could be the same."""
    rng = random.Random(rng_seed)
    mine = _other_order(rng)
    theirs_1 = _other_order(rng)
    shared = rng.randrange(0, 21)  # the opponent's orders agree on a prefix, then differ
    rest = theirs_1[shared:]
    rng.shuffle(rest)
    theirs_2 = theirs_1[:shared] + rest
    orders = [(mine, theirs_1), (mine, theirs_2)] if watcher == 1 else [(theirs_1, mine), (theirs_2, mine)]
    g1 = R.new_game_from_orders(*orders[0])
    g2 = R.new_game_from_orders(*orders[1])
    while R.outcome(g1) is None:
        assert R.outcome(g2) is None
        assert R.observe(g1, watcher) == R.observe(g2, watcher)
        assert hash(R.observe(g1, watcher)) == hash(R.observe(g2, watcher))
        legal_2 = R.legal_actions(g2)
        both = [a for a in R.legal_actions(g1) if a in legal_2]
        if R.to_move(g1) == watcher:
            assert both == legal_2  # the watcher's choices depend on nothing hidden
        if not both:
            break
        action = rng.choice(both)
        R.apply_in_place(g1, action)
        R.apply_in_place(g2, action)


@pytest.mark.parametrize("watcher", [1, 2])
@settings(max_examples=30, deadline=None)
@given(rng_seed=rng_seeds)
def test_observation_ignores_opponent_face_down_value(watcher, rng_seed):
    """The opponent places first on the same square with (maybe) different values: until the
    reveal the watcher sees the same thing."""
    rng = random.Random(rng_seed)
    blue, orange = _other_order(rng), _other_order(rng)
    g1 = R.new_game_from_orders(blue, orange)
    # Play a few identical rounds, then stop where the opponent places first.
    for _ in range(rng.randrange(0, 8)):
        for _ in range(2):
            R.apply_in_place(g1, rng.choice(R.legal_actions(g1)))
        if R.outcome(g1) is not None:
            return
    if R.to_move(g1) == watcher:
        R.apply_in_place(g1, rng.choice(R.legal_actions(g1)))
        R.apply_in_place(g1, rng.choice(R.legal_actions(g1)))
        if R.outcome(g1) is not None:
            return
    g2 = g1.copy()
    opponent = g1.mover
    # Give g2's opponent a different hand and undrawn order, same stones in total.
    pool = g2.hands[opponent] + list(g2.orders[opponent][g2.pos[opponent] :])
    rng.shuffle(pool)
    g2.hands[opponent] = sorted(pool[: len(g2.hands[opponent])])
    orders = list(g2.orders)
    orders[opponent] = tuple(orders[opponent][: g2.pos[opponent]]) + tuple(pool[len(g2.hands[opponent]) :])
    g2.orders = (orders[0], orders[1])
    assert R.observe(g1, watcher) == R.observe(g2, watcher)
    a1 = rng.choice(R.legal_actions(g1))
    if not isinstance(a1, PlaceStone):
        return
    a2 = PlaceStone(rng.choice(g2.hands[opponent]), a1.square)  # same square, any value
    R.apply_in_place(g1, a1)
    R.apply_in_place(g2, a2)
    o1, o2 = R.observe(g1, watcher), R.observe(g2, watcher)
    assert o1 == o2
    assert o1.face_down == ((a1.square, ("blue", "orange")[opponent], None),)
    # The placer itself sees its own face-down value.
    assert R.observe(g1, opponent + 1).face_down == ((a1.square, ("blue", "orange")[opponent], a1.value),)


def test_observation_contents():
    state = R.new_game(None, bytes(range(32)))
    state = R.apply(state, PlaceStone(10, "d2"))
    obs = R.observe(state, 1)
    assert obs.seat == 1 and obs.colour == "blue" and obs.round == 1 and not obs.over
    assert not obs.your_turn and obs.to_move == "orange" and obs.first_placer == "blue"
    assert obs.hand == (2, 5, 7)  # 10, 7, 2 dealt; 10 placed; 5 drawn
    assert Counter(obs.hand) + Counter(obs.supply) + Counter([10]) == Counter(STONES)
    assert list(obs.supply) == sorted(obs.supply)
    assert obs.opponent_hand_size == 3 and obs.opponent_supply_size == 17
    assert (obs.blue_score, obs.orange_score) == (0, 0)
    assert obs.removed_blue == () and obs.removed_orange == ()
    assert obs.face_up == () and obs.face_down == (("d2", "blue", 10),)
    assert obs.legal_actions() == []
    theirs = R.observe(state, 2)
    assert theirs.your_turn and theirs.legal_actions() == R.legal_actions(state)
    assert theirs.home_squares[:3] == ("a7", "a8", "b7")
    assert "d2" in theirs.occupied
    with pytest.raises(ValueError):
        R.observe(state, 3)


def test_observation_never_holds_undrawn_order_or_seed():
    state = R.new_game(None, bytes(range(32)))
    obs = R.observe(state, 1)
    text = repr(obs)
    assert "seed" not in text and str(list(state.orders[1])) not in text
    # Every field is either public or the watcher's own.
    assert set(obs.__dataclass_fields__) == {
        "seat",
        "colour",
        "round",
        "rounds_played",
        "over",
        "your_turn",
        "to_move",
        "first_placer",
        "face_up",
        "face_down",
        "hand",
        "supply",
        "opponent_hand_size",
        "opponent_supply_size",
        "blue_score",
        "orange_score",
        "removed_blue",
        "removed_orange",
    }
