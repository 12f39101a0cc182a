"""Property tests for Torrent and Fravan: termination, purity of apply, replay, fast path."""

import random

import pytest
from arbiter_games.fravan import FRAVAN
from arbiter_games.hexflank import PASS, Place, state_from_observation
from arbiter_games.torrent import TORRENT
from hypothesis import given, settings
from hypothesis import strategies as st

GAMES = [(TORRENT, s) for s in (5, 6, 7, 8, 9)] + [(FRAVAN, s) for s in (5, 7)]


def random_game(rules, size, rng, pass_rate=0.05):
    state = rules.new_game({"size": size})
    actions = []
    for _ in range(10_000):
        if state.over:
            return state, actions
        legal = rules.legal_actions(state)
        if rng.random() < pass_rate and PASS in legal:
            action = PASS
        else:
            places = [a for a in legal if isinstance(a, Place)]
            action = rng.choice(places or legal)
        state = rules.apply(state, action)
        actions.append(action)
    raise AssertionError("game did not end")


@pytest.mark.parametrize("rules,size", GAMES, ids=[f"{r.name}-{s}" for r, s in GAMES])
@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**32))
def test_random_games_end(rules, size, seed):
    state, actions = random_game(rules, size, random.Random(seed))
    assert rules.outcome(state) is not None
    assert len(actions) <= 3 * rules.new_game({"size": size}).geo.count + 3


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32), fravan=st.booleans())
def test_apply_leaves_input_untouched_and_matches_in_place(seed, fravan):
    rules = FRAVAN if fravan else TORRENT
    rng = random.Random(seed)
    state = rules.new_game({"size": 5})
    fast = rules.new_game({"size": 5})
    while not state.over:
        action = rng.choice(rules.legal_actions(state))
        before = state.snapshot()
        after = rules.apply(state, action)
        assert state.snapshot() == before
        rules.apply_in_place(fast, action)
        assert fast.snapshot() == after.snapshot()
        state = after


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32), fravan=st.booleans())
def test_replay_from_actions_reaches_same_state(seed, fravan):
    rules = FRAVAN if fravan else TORRENT
    state, actions = random_game(rules, 5, random.Random(seed), pass_rate=0.1)
    replay = rules.new_game({"size": 5})
    for action in actions:
        replay = rules.apply(replay, rules.parse_action(rules.format_action(action)))
    assert replay.snapshot() == state.snapshot()
    assert rules.outcome(replay) == rules.outcome(state)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32), fravan=st.booleans())
def test_state_from_observation_plays_on_identically(seed, fravan):
    """What a bot rebuilds from its observation predicts the arbiter's next positions."""
    rules = FRAVAN if fravan else TORRENT
    rng = random.Random(seed)
    state = rules.new_game({"size": 5})
    while not state.over:
        seat = rules.to_move(state)
        assert seat is not None
        rebuilt = state_from_observation(rules, rules.observe(state, seat))
        assert rules.legal_actions(rebuilt) == rules.legal_actions(state)
        action = rng.choice(rules.legal_actions(state))
        state = rules.apply(state, action)
        rebuilt = rules.apply(rebuilt, action)
        assert rules.board_text(rebuilt) == rules.board_text(state)


def test_observation_is_public_and_seat_specific():
    state = TORRENT.apply(
        TORRENT.apply(TORRENT.new_game({"size": 5}), Place("e5")), TORRENT.parse_action("swap")
    )
    one, two = TORRENT.observe(state, 1), TORRENT.observe(state, 2)
    assert one.stones == two.stones and one.colour == "white" and two.colour == "black"
    assert one.to_move_seat == 1 and one.swapped
    with pytest.raises(ValueError):
        TORRENT.observe(state, 3)


def territory_by_definition(state):
    """Stones plus territory, point by point from the rules' wording (no cache, no line text):
    an empty point is a colour's territory when, on some axis, the first stones met at equal
    distance on both sides are of that colour, and on no axis of the other colour."""
    geo = state.geo
    board = state.board
    scores = {"black": 0, "white": 0}
    for p in range(geo.count):
        if board[p]:
            scores["black" if board[p] & 3 == 1 else "white"] += 1
            continue
        flanked_by = 0
        for axis in range(3):
            for x, y in zip(geo.rays[p][2 * axis], geo.rays[p][2 * axis + 1], strict=False):
                if board[x] or board[y]:
                    if board[x] and board[y] and board[x] & 3 == board[y] & 3:
                        flanked_by |= board[x] & 3
                    break
        if flanked_by in (1, 2):
            scores["black" if flanked_by == 1 else "white"] += 1
    return scores


@pytest.mark.parametrize("rules,size", GAMES, ids=[f"{r.name}-{s}" for r, s in GAMES])
@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32))
def test_scores_carried_from_move_to_move_match_the_definition(rules, size, seed):
    """``scores`` carries the territory from one placement to the next; asked after some
    actions and not others, after ``apply`` or ``apply_in_place``, it always agrees with a
    count from scratch, and so does a state rebuilt from an observation."""
    rng = random.Random(seed)
    state = rules.new_game({"size": size})
    while not state.over:
        legal = rules.legal_actions(state)
        places = [a for a in legal if isinstance(a, Place)]
        action = PASS if (rng.random() < 0.05 and PASS in legal) or not places else rng.choice(places)
        if rng.random() < 0.3:
            rules.apply_in_place(state, action)
        else:
            state = rules.apply(state, action)
        if rng.random() < 0.7:
            assert rules.scores(state) == territory_by_definition(state)
    assert rules.scores(state) == territory_by_definition(state)
    rebuilt = state_from_observation(rules, rules.observe(state, 1))
    assert rules.scores(rebuilt) == territory_by_definition(state)


def test_scores_read_afresh_after_the_board_is_changed_directly():
    """A board set by hand (as test helpers and search code may do) is not scored from the cache."""
    state = TORRENT.new_game({"size": 5})
    names = state.geo.names
    for p in (0, 2, 4):
        state = TORRENT.apply(state, Place(names[p]))
    assert TORRENT.scores(state) == territory_by_definition(state)
    state.board[6] = 1
    assert TORRENT.scores(state) == territory_by_definition(state)
    state.board[8] = 2
    state = TORRENT.apply(state, Place(names[10]))
    assert TORRENT.scores(state) == territory_by_definition(state)
