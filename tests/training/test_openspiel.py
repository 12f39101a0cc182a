"""The OpenSpiel games: OpenSpiel's own random-simulation checks, agreement with the arbiter's engines,
Surge's chance model against the arbiter's shuffle, and Surge's hidden information."""

from __future__ import annotations

import hashlib
import random
from collections import Counter

import arbiter_training.openspiel_games as og
import numpy as np
import pyspiel
import pytest
from arbiter_games import get_game
from arbiter_games.hexflank import FlankObservation, geometry
from arbiter_games.surge import BLUE, ORANGE, STONES, SurgeObservation, draw_order
from arbiter_training.encoding import HIDDEN, FlankCodec, SurgeCodec

FLANK = [("torrent", size) for size in (5, 6, 7, 8, 9)] + [("fravan", size) for size in (5, 7)]
CHANCE = pyspiel.PlayerId.CHANCE


def seed_bytes(k: int) -> bytes:
    return hashlib.sha256(f"openspiel test {k}".encode()).digest()


# --- OpenSpiel's own checks ------------------------------------------------------------------------


@pytest.mark.parametrize(("game", "size"), [*FLANK, ("surge", None)])
def test_openspiel_random_simulation_checks_pass(game, size):
    spiel_game = og.load_game(game, size)
    # Small boards: more games; the large ones are long (a size-9 game has up to 436 actions).
    sims = {None: 4, 5: 4, 6: 3, 7: 2}.get(size, 1)
    pyspiel.random_sim_test(spiel_game, num_sims=sims, serialize=False, verbose=False)


@pytest.mark.parametrize(("game", "size"), [("torrent", 5), ("fravan", 5), ("surge", None)])
def test_openspiel_random_simulation_checks_pass_with_serialization(game, size):
    """The same checks, also writing states out and reading them back (OpenSpiel replays the history)."""
    pyspiel.random_sim_test(og.load_game(game, size), num_sims=1, serialize=True, verbose=False)


@pytest.mark.parametrize(("game", "size"), FLANK)
def test_flank_game_types_and_bounds(game, size):
    spiel_game = og.load_game(game, size)
    kind = spiel_game.get_type()
    assert kind.short_name == f"arbiter_{game}"
    assert kind.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert kind.chance_mode == pyspiel.GameType.ChanceMode.DETERMINISTIC
    assert kind.information == pyspiel.GameType.Information.PERFECT_INFORMATION
    assert kind.utility == pyspiel.GameType.Utility.ZERO_SUM
    assert kind.reward_model == pyspiel.GameType.RewardModel.TERMINAL
    points = len(geometry(size).names)
    assert spiel_game.num_distinct_actions() == points + 2  # every point, pass, swap
    assert spiel_game.max_game_length() == 2 * points + 2
    assert spiel_game.max_chance_outcomes() == 0
    assert (spiel_game.min_utility(), spiel_game.max_utility()) == (-1.0, 1.0)
    assert spiel_game.get_parameters() == {"size": size}
    assert spiel_game.observation_tensor_size() == FlankCodec(size).obs_length


@pytest.mark.parametrize("game", ["torrent", "fravan"])
def test_the_default_size_is_the_arbiters_and_other_sizes_are_refused(game):
    default = get_game(game).normalise_options({})["size"]
    assert pyspiel.load_game(f"arbiter_{game}").get_parameters() == {"size": default}
    with pytest.raises(Exception, match="size must be one of"):
        pyspiel.load_game(f"arbiter_{game}", {"size": 4})


def test_surge_game_type_and_bounds():
    spiel_game = og.load_game("surge")
    kind = spiel_game.get_type()
    assert kind.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert kind.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert kind.utility == pyspiel.GameType.Utility.ZERO_SUM
    assert kind.reward_model == pyspiel.GameType.RewardModel.TERMINAL
    assert kind.provides_information_state_string and not kind.provides_information_state_tensor
    assert spiel_game.num_distinct_actions() == 160
    assert spiel_game.max_chance_outcomes() == 10
    assert spiel_game.max_game_length() == 40
    assert spiel_game.observation_tensor_size() == SurgeCodec().obs_length


# --- Torrent and Fravan against the engine ---------------------------------------------------------


def legal_texts(spiel_state) -> set[str]:
    player = spiel_state.current_player()
    return {spiel_state.action_to_string(player, a) for a in spiel_state.legal_actions()}


@pytest.mark.parametrize(("game", "size"), [("torrent", 5), ("torrent", 7), ("fravan", 5), ("fravan", 7)])
def test_flank_legal_actions_and_outcome_agree_with_the_engine(game, size):
    rules = get_game(game)
    spiel_game = og.load_game(game, size)
    for k in range(4 if size == 5 else 2):
        rng = random.Random(k)
        engine = rules.new_game({"size": size})
        state = spiel_game.new_initial_state()
        while rules.outcome(engine) is None:
            seat = rules.to_move(engine)
            assert seat is not None and state.current_player() == seat - 1
            legal = rules.legal_actions(engine)
            assert legal_texts(state) == {rules.format_action(a) for a in legal}
            observation = rules.observe(engine, seat)
            assert isinstance(observation, FlankObservation)
            assert state.observation_string(seat - 1) == og.flank_observation_text(observation)
            expected = FlankCodec(size).encode(observation)
            assert np.array_equal(np.asarray(state.observation_tensor(seat - 1)), expected)
            # Swap whenever it is legal in half of the games: the pie rule is an action like any other.
            choice = next((a for a in legal if rules.format_action(a) == "swap"), None) if k % 2 else None
            choice = choice or rng.choice(legal)
            text = rules.format_action(choice)
            (action,) = [a for a in state.legal_actions() if state.action_to_string(seat - 1, a) == text]
            state.apply_action(action)
            rules.apply_in_place(engine, choice)
        outcome = rules.outcome(engine)
        assert state.is_terminal()
        assert outcome.winner_seat is not None  # no draws in these games
        assert state.returns() == og.returns_of(outcome.winner_seat)
        assert sum(state.returns()) == 0.0


@pytest.mark.parametrize("game", ["torrent", "fravan"])
def test_the_longest_flank_game_is_exactly_max_game_length(game):
    """Place, swap, then pass after every placement until the board is full: 2 * points + 2 actions."""
    spiel_game = og.load_game(game, 5)
    state = spiel_game.new_initial_state()
    while not state.is_terminal():
        player = state.current_player()
        by_text = {state.action_to_string(player, a): a for a in state.legal_actions()}
        last = state.history()[-1] if state.history() else None
        last_text = None if last is None else state.action_to_string(1 - player, last)
        if "swap" in by_text:
            state.apply_action(by_text["swap"])
        elif "pass" in by_text and (last_text != "pass" or len(by_text) == 1):
            state.apply_action(by_text["pass"])
        else:
            state.apply_action(min(a for text, a in by_text.items() if text not in ("pass", "swap")))
    assert len(state.history()) == spiel_game.max_game_length()


def test_a_state_from_a_bots_observation_plays_on_like_the_engine():
    rules = get_game("torrent")
    spiel_game = og.load_game("torrent", 5)
    rng = random.Random(3)
    engine = rules.new_game({"size": 5})
    for _ in range(12):
        rules.apply_in_place(engine, rng.choice(rules.legal_actions(engine)))
    seat = rules.to_move(engine)
    assert seat is not None
    observation = rules.observe(engine, seat)
    assert isinstance(observation, FlankObservation)
    state = spiel_game.state_from_observation(observation)
    while not state.is_terminal():
        legal = rules.legal_actions(engine)
        assert legal_texts(state) == {rules.format_action(a) for a in legal}
        action = rng.choice(state.legal_actions())
        rules.apply_in_place(engine, spiel_game.engine_action(action))
        state.apply_action(action)
    assert state.returns() == og.returns_of(rules.outcome(engine).winner_seat)


# --- Surge against the engine ----------------------------------------------------------------------


def play_seeded_surge(seed: bytes, rng: random.Random):
    """One Surge game in OpenSpiel with the draws of ``seed``, in step with the arbiter's engine.

    Checks every decision; returns the OpenSpiel state and the engine's state at the end.
    """
    rules = get_game("surge")
    orders = {0: draw_order(seed, BLUE), 1: draw_order(seed, ORANGE)}
    taken = {0: 0, 1: 0}
    spiel_game = og.load_game("surge")
    codec = SurgeCodec()
    engine = rules.new_game({}, seed)
    state = spiel_game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = dict(state.chance_outcomes())
            # Whose draw it is: the player whose next stone of the order this must be.
            p = 0 if taken[0] < 3 else 1 if taken[1] < 3 else state.drawing_player()
            value = orders[p][taken[p]]
            assert value - 1 in outcomes
            state.apply_action(value - 1)
            taken[p] += 1
            continue
        # The arbiter plays forced skips itself, as OpenSpiel's state does.
        legal = rules.legal_actions(engine)
        forced = rules.forced_action(engine, legal)
        if forced is not None:
            rules.apply_in_place(engine, forced)
            continue
        seat = rules.to_move(engine)
        assert seat is not None and state.current_player() == seat - 1
        assert legal_texts(state) == {rules.format_action(a) for a in legal}
        for s in (1, 2):
            observation = rules.observe(engine, s)
            assert isinstance(observation, SurgeObservation)
            assert state.observation_string(s - 1) == og.surge_observation_text(observation)
            assert np.array_equal(np.asarray(state.observation_tensor(s - 1)), codec.encode(observation))
        choice = rng.choice(legal)
        text = rules.format_action(choice)
        (action,) = [a for a in state.legal_actions() if state.action_to_string(seat - 1, a) == text]
        state.apply_action(action)
        rules.apply_in_place(engine, choice)
    return state, engine


def test_surge_with_the_seeds_draws_plays_exactly_the_arbiters_game():
    rules = get_game("surge")
    for k in range(4):
        state, engine = play_seeded_surge(seed_bytes(k), random.Random(k))
        # The engine may still owe forced skips at the very end (none change the outcome).
        while rules.outcome(engine) is None:
            legal = rules.legal_actions(engine)
            forced = rules.forced_action(engine, legal)
            assert forced is not None
            rules.apply_in_place(engine, forced)
        outcome = rules.outcome(engine)
        assert state.returns() == og.returns_of(outcome.winner_seat)
        final = rules.observe(engine, 1)
        assert isinstance(final, SurgeObservation)
        assert state.observation_string(0) == og.surge_observation_text(final)


# --- Surge's chance ---------------------------------------------------------------------------------


def random_surge_states(games: int, seed: int):
    """Every state of ``games`` random Surge games (chance sampled by its own probabilities)."""
    rng = random.Random(seed)
    spiel_game = og.load_game("surge")
    for _ in range(games):
        state = spiel_game.new_initial_state()
        while not state.is_terminal():
            state.information_state_string(0)  # the record starts here, and children carry it on
            yield state
            if state.is_chance_node():
                actions, probs = zip(*state.chance_outcomes(), strict=True)
                state = state.child(rng.choices(actions, probs)[0])
            else:
                state = state.child(rng.choice(state.legal_actions()))
        yield state


def test_surge_chance_outcomes_sum_to_one_and_follow_the_stones_left():
    chance_nodes = 0
    for state in random_surge_states(games=3, seed=11):
        if not state.is_chance_node():
            continue
        chance_nodes += 1
        outcomes = state.chance_outcomes()
        assert sum(p for _, p in outcomes) == pytest.approx(1.0, abs=1e-12)
        assert [a for a, _ in outcomes] == sorted(a for a, _ in outcomes)
        assert all(0 <= a < 10 and p > 0 for a, p in outcomes)
        assert state.legal_actions() == [a for a, _ in outcomes]
        # Each value's probability is (its stones not drawn yet) / (stones not drawn yet).
        left = Counter(STONES) - Counter(state.drawn(state.drawing_player()))
        total = sum(left.values())
        assert outcomes == [(v - 1, left[v] / total) for v in sorted(left)]
    # 6 opening draws and then one before each refilling placement: 40 draws in a whole game.
    assert chance_nodes == 3 * 40


def test_draw_probabilities_are_the_remaining_stones():
    assert og.draw_probabilities([]) == [(v - 1, 0.1) for v in range(1, 11)]
    drawn = [3, 3, 7]
    outcomes = dict(og.draw_probabilities(drawn))
    assert 2 not in outcomes  # both 3s are gone
    assert outcomes[6] == pytest.approx(1 / 17)
    assert outcomes[0] == pytest.approx(2 / 17)
    assert og.draw_probabilities(list(STONES)[:-1]) == [(9, 1.0)]


@pytest.mark.parametrize("position", [0, 9, 18])
def test_the_chance_model_matches_the_arbiters_shuffle(position):
    """Pairs of consecutive stones of ``draw_order`` over many seeds against the model's probabilities.

    The model says: P(first = a) = 2/20 and P(second = b | first = a) = (2 - [a = b]) / 19 for the
    first pair, and the same for any pair of positions (a uniform shuffle is exchangeable). A model
    drawing each remaining *value* with equal chance would give 1/10 for a = b, nearly twice as
    much, and fail this chi-square check by far.
    """
    n = 20_000
    counts = Counter(tuple(draw_order(seed_bytes(k), BLUE)[position : position + 2]) for k in range(n))
    first = dict(og.draw_probabilities([]))
    chi2 = 0.0
    for a in range(1, 11):
        second = dict(og.draw_probabilities([a]))
        for b in range(1, 11):
            expected = n * first[a - 1] * second[b - 1]
            chi2 += (counts.get((a, b), 0) - expected) ** 2 / expected
    # 99 degrees of freedom: the 99.99th percentile is about 150.
    assert chi2 < 150, chi2


# --- Surge's hidden information ---------------------------------------------------------------------


def views(state, player: int) -> tuple[str, tuple[float, ...], str]:
    return (
        state.observation_string(player),
        tuple(state.observation_tensor(player)),
        state.information_state_string(player),
    )


def test_a_seats_view_never_changes_with_the_opponents_hidden_stones():
    """Branch random games where only one player's hidden stones differ: the other's view is the same.

    Two kinds of branches: a chance node drawing a different stone for one player (into a hand the
    other never sees), and a first placement of a different value on the same square (face down).
    The player whose stones differ does see the difference, which shows the branches are real.
    """
    branches = {"draw": 0, "face_down": 0}
    for state in random_surge_states(games=4, seed=5):
        if state.is_terminal():
            continue
        if state.is_chance_node():
            outcomes = [a for a, _ in state.chance_outcomes()]
            if len(outcomes) < 2:
                continue
            drawer = state.drawing_player()
            a, b = state.child(outcomes[0]), state.child(outcomes[-1])
            branches["draw"] += 1
            assert views(a, 1 - drawer) == views(b, 1 - drawer)
            continue
        player = state.current_player()
        observation = state.observation(player + 1)
        assert isinstance(observation, SurgeObservation)
        if observation.face_down:  # the second placer: its stone is revealed at once
            continue
        by_square: dict[str, list[int]] = {}
        for action in state.legal_actions():
            _value, square = state.action_to_string(player, action).split("@")
            by_square.setdefault(square, []).append(action)
        square, actions = next(iter(by_square.items()))
        if len(actions) < 2:
            continue
        a, b = state.child(actions[0]), state.child(actions[-1])
        branches["face_down"] += 1
        assert views(a, 1 - player) == views(b, 1 - player)
        assert views(a, player) != views(b, player)
        hidden = a.observation(2 - player).face_down
        assert [(s, owner) for s, owner, value in hidden] == [(square, (BLUE, ORANGE)[player])]
        assert hidden[0][2] is None
        tensor = np.asarray(a.observation_tensor(1 - player))
        assert HIDDEN in tensor
    assert branches["draw"] > 50 and branches["face_down"] > 20, branches


def test_a_refill_stays_hidden_from_the_opponent_after_the_placement():
    """A refill drawn differently, then the same placement: the opponent's view is still the same."""
    checked = 0
    for state in random_surge_states(games=3, seed=8):
        if not state.is_chance_node() or len(state.drawn(1)) < 3:
            continue
        drawer = state.drawing_player()
        outcomes = [a for a, _ in state.chance_outcomes()]
        if len(outcomes) < 2:
            continue
        a, b = state.child(outcomes[0]), state.child(outcomes[-1])
        assert a.current_player() == drawer
        action = a.legal_actions()[0]
        a, b = a.child(action), b.child(action)
        checked += 1
        assert views(a, 1 - drawer) == views(b, 1 - drawer)
        assert views(a, drawer) != views(b, drawer)  # the placer now holds the new stone
    assert checked > 20


def test_the_information_state_recalls_the_seats_own_actions_and_observations():
    spiel_game = og.load_game("surge")
    state = spiel_game.new_initial_state()
    for value in (10, 1, 2, 5, 5, 6, 3):  # blue 10 1 2, orange 5 5 6, blue's first refill 3
        state.apply_action(value - 1)
    blue, orange = state.information_state_string(0), state.information_state_string(1)
    assert "hand [1, 2, 10] " in blue and "opponent hand 3 supply 17" in blue
    assert "hand [5, 5, 6] " in orange and "hand [5, 5, 6] " not in blue
    assert "hand [1, 2, 3, 10]" not in blue and "3," not in blue.split("supply")[0]  # the refill: unseen
    state.apply_action(state.legal_actions()[0])  # Blue places its 1 on a1, face down
    record = state.information_state_string(0)
    assert record.startswith(blue)  # perfect recall: what it knew stays in its record
    assert "you played 1@a1" in record
    assert "hand [2, 3, 10] " in record  # the refill, seen once placed
    assert "you played" not in state.information_state_string(1)
    assert "b?" in state.observation_string(1) and "b1" in state.observation_string(0)


def test_the_order_of_an_opening_hand_is_not_shown():
    """The arbiter shows an opening hand sorted: the order its stones were dealt in stays unknown."""
    spiel_game = og.load_game("surge")
    first, second = spiel_game.new_initial_state(), spiel_game.new_initial_state()
    for state, blue in ((first, (1, 4, 9)), (second, (9, 1, 4))):
        for value in (*blue, 5, 5, 6, 2):  # Blue's opening hand, Orange's, Blue's first refill
            state.apply_action(value - 1)
    assert first.current_player() == second.current_player() == 0
    assert views(first, 0) == views(second, 0)
    assert views(first, 1) == views(second, 1)
    assert "hand [1, 4, 9] " in first.information_state_string(0)
    assert "hand [1] " not in first.information_state_string(0)
    assert "hand [1, 4] " not in first.information_state_string(0)


def test_the_record_kept_along_the_way_equals_a_replay_of_the_history():
    spiel_game = og.load_game("surge")
    states = list(random_surge_states(games=1, seed=2))
    for state in states[::15]:
        fresh = spiel_game.new_initial_state()
        for action in state.history():
            fresh.apply_action(action)
        for player in (0, 1):
            assert state.information_state_string(player) == fresh.information_state_string(player)


def test_openspiels_rl_environment_and_outcome_sampling_cfr_run_on_surge():
    """What docs/training.md says works on Surge: RL episodes on the observation tensor, MCCFR."""
    from open_spiel.python import rl_environment
    from open_spiel.python.algorithms import outcome_sampling_mccfr

    spiel_game = og.load_game("surge")
    env = rl_environment.Environment(spiel_game, seed=4)
    rng = np.random.RandomState(4)
    step = env.reset()
    assert env.observation_spec()["info_state"] == (SurgeCodec().obs_length,)
    decisions = 0
    while not step.last():
        player = step.observations["current_player"]
        step = env.step([rng.choice(step.observations["legal_actions"][player])])
        decisions += 1
    assert 0 < decisions <= spiel_game.max_game_length()
    assert sum(step.rewards) == 0.0 and set(step.rewards) <= {-1.0, 0.0, 1.0}
    solver = outcome_sampling_mccfr.OutcomeSamplingSolver(spiel_game)
    for _ in range(3):
        solver.iteration()
    first_decision = next(s for s in random_surge_states(games=1, seed=0) if s.is_player_node())
    probabilities = solver.average_policy().action_probabilities(first_decision)
    assert set(probabilities) == set(first_decision.legal_actions())
    assert sum(probabilities.values()) == pytest.approx(1.0)


# --- replaying the arbiter's matches -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("game", "options"), [("torrent", {"size": 5}), ("fravan", {"size": 7}), ("surge", {})]
)
def test_a_local_match_replays_in_openspiel_to_the_same_end(game, options):
    from arbiter_bot.examples.random_bot import RandomBot
    from arbiter_bot.local import play_local

    rules = get_game(game)
    spiel_game = og.load_game(game, options.get("size"))
    for k in range(2):
        seed = seed_bytes(100 + k) if rules.has_chance else None
        result = play_local(RandomBot(k), RandomBot(k + 7), game, options, seed=seed, wire=False)
        if seed is None:
            state = spiel_game.replay(result.actions)
        else:
            state = spiel_game.replay(seed, result.actions)
            # Another seed deals other stones: the match's placements do not fit them.
            with pytest.raises(Exception, match=r"is not legal|ended with actions left"):
                spiel_game.replay(seed_bytes(999), result.actions)
        assert state.is_terminal()
        assert state.returns() == og.returns_of(result.winner_seat)
        # The same actions as the match, once OpenSpiel's integers are turned back into text.
        played = [
            state.action_to_string(player, action)
            for player, action in zip([h.player for h in state.full_history()], state.history(), strict=True)
            if player != CHANCE
        ]
        assert played == [text for text in result.actions if text != "skip"]


# --- Surge: resampling what a player cannot see ------------------------------------------------------


def test_a_resampled_state_is_one_the_player_cannot_tell_apart():
    rng = random.Random(6)
    checked = differs = 0
    for state in random_surge_states(games=1, seed=6):
        if not state.is_player_node():
            continue
        player = state.current_player()
        sampled = state.resample(player, rng)
        checked += 1
        assert views(sampled, player) == views(state, player)
        assert sampled.legal_actions() == state.legal_actions()
        differs += views(sampled, 1 - player) != views(state, 1 - player)
    assert checked > 20 and differs > checked // 2, (checked, differs)


def test_the_hidden_stones_are_sampled_with_their_true_chance():
    """Against brute force: Orange placed a 10 (seen), was refilled, placed a stone face down, was
    refilled. Every value sequence of its first five draws is weighed by its chance, kept if the 10
    was in the opening hand, and split over the stone placed face down (any of the hand's three)."""
    from itertools import product

    steps = [("place", 10), ("draw", None), ("place", None), ("draw", None)]
    exact_down = dict.fromkeys(range(1, 11), 0.0)
    exact_ten_in_hand = total = 0.0
    for seq in product(range(1, 11), repeat=5):
        left = Counter(STONES)
        chance = 1.0
        for k, value in enumerate(seq):
            chance *= left[value] / (20 - k)
            left[value] -= 1
            if chance == 0.0:
                break
        if chance == 0.0 or 10 not in seq[:3]:
            continue
        hand = list(seq[:3])
        hand.remove(10)
        hand.append(seq[3])
        for down in set(hand):
            weight = chance * hand.count(down) / 3
            final = list(hand)
            final.remove(down)
            final.append(seq[4])
            exact_down[down] += weight
            exact_ten_in_hand += weight * (10 in final)
            total += weight
    rng = random.Random(9)
    n = 4000
    sampled_down: Counter[int] = Counter()
    ten_in_hand = 0
    for _ in range(n):
        opening, (ten, refill, down, refill2) = og.sample_hidden_stones(steps, rng)
        assert ten == 10 and 10 in opening
        final = [*opening, refill]
        final.remove(10)
        final.remove(down)
        final.append(refill2)
        sampled_down[down] += 1
        ten_in_hand += 10 in final
    for value in range(1, 11):
        assert abs(sampled_down[value] / n - exact_down[value] / total) < 0.025, value
    assert abs(ten_in_hand / n - exact_ten_in_hand / total) < 0.025


def test_openspiels_ismcts_plays_surge_with_the_resampler():
    from open_spiel.python.algorithms import ismcts, mcts

    spiel_game = og.load_game("surge")
    rng = random.Random(1)
    numbers = np.random.RandomState(1)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=numbers)
    bot = ismcts.ISMCTSBot(spiel_game, evaluator, uct_c=2.0, max_simulations=8, random_state=numbers)
    bot.set_resampler(lambda state, player: state.resample(player, rng))
    state = spiel_game.new_initial_state()
    decisions = 0
    while not state.is_terminal() and decisions < 4:
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(actions, probs)[0])
            continue
        action = bot.step(state)
        assert action in state.legal_actions()
        state.apply_action(action)
        decisions += 1
    assert decisions == 4
