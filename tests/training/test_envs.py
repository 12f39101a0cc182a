"""The training environments: PettingZoo's own API test, rollouts to the end, seeds and hidden information."""

from __future__ import annotations

import arbiter_training
import numpy as np
import pytest
from arbiter_games import get_game
from arbiter_games.hexflank import PASS, SWAP, FlankObservation, Place
from arbiter_games.surge import SKIP, SURGE, PlaceStone, SurgeObservation, SurgeState
from arbiter_games.surge_game import SURGE_GAME
from arbiter_training import ArbiterEnv, FlankCodec, SurgeCodec, raw_env, surge_seed
from arbiter_training.encoding import HIDDEN
from pettingzoo.test import api_test

GAMES = [("torrent", 5), ("torrent", 7), ("fravan", 5), ("surge", 7)]


@pytest.mark.filterwarnings("ignore:Observation")
@pytest.mark.parametrize(("game", "size"), GAMES)
def test_pettingzoo_api_test_passes(game, size):
    api_test(arbiter_training.env(game=game, size=size), num_cycles=300, verbose_progress=False)


def rollout(env: ArbiterEnv, seed: int) -> dict[str, float]:
    """A random game with the masks, checking each mask against the rules; the rewards at the end."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    totals = {agent: 0.0 for agent in env.possible_agents}
    for agent in env.agent_iter(max_iter=10_000):
        observation, reward, termination, truncation, _ = env.last()
        totals[agent] += reward
        assert env.observation_space(agent).contains(observation)
        if termination or truncation:
            env.step(None)
            continue
        seat = arbiter_training.seat_of(agent)
        assert env.game.to_move(env.state) == seat
        legal = env.game.legal_actions(env.state)
        mask = observation["action_mask"]
        assert env.game.forced_action(env.state, legal) is None
        assert int(mask.sum()) == len(legal)
        assert {env.codec.actions(seat)[int(i)] for i in np.flatnonzero(mask)} == set(legal)
        env.step(int(rng.choice(np.flatnonzero(mask))))
    assert env.agents == []
    return totals


@pytest.mark.parametrize(
    ("game", "size"), [("torrent", s) for s in (5, 6, 7, 8, 9)] + [("fravan", 5), ("fravan", 7), ("surge", 7)]
)
def test_random_rollouts_reach_the_end_and_the_rewards_match_the_outcome(game, size):
    env = raw_env(game=game, size=size)
    for seed in range(2):
        totals = rollout(env, seed)
        outcome = env.game.outcome(env.state)
        assert outcome is not None
        if outcome.winner_seat is None:
            assert totals == {"player_1": 0.0, "player_2": 0.0}
        else:
            winner = arbiter_training.agent_of(outcome.winner_seat)
            loser = arbiter_training.agent_of(3 - outcome.winner_seat)
            assert totals == {winner: 1.0, loser: -1.0}


def test_the_action_enumerations():
    torrent = FlankCodec(7)
    seen = get_game("torrent").observe(get_game("torrent").new_game({"size": 7}), 1)
    assert isinstance(seen, FlankObservation)
    board = seen.board
    assert torrent.n_actions == len(board.replace("/", "")) + 2 == 127 + 2
    assert torrent.actions(1)[-2:] == (PASS, SWAP)
    surge = SurgeCodec()
    assert surge.n_actions == 160
    assert surge.actions(1)[0] == PlaceStone(1, "a1") and surge.actions(1)[159] == PlaceStone(10, "h2")
    assert surge.actions(2)[0] == PlaceStone(1, "a7") and surge.actions(2)[17] == PlaceStone(2, "a8")


def orders(state: object) -> tuple[tuple[int, ...], ...]:
    """Both draw orders of a Surge state (the hidden part of the game)."""
    assert isinstance(state, SurgeState)
    return state.orders


def test_the_same_seed_gives_the_same_surge_game():
    env = raw_env(game="surge")
    env.reset(seed=42)
    first = orders(env.state), env.observe("player_1")["observation"]
    env.reset(seed=42)
    assert orders(env.state) == first[0]
    assert np.array_equal(env.observe("player_1")["observation"], first[1])
    assert orders(env.state) == orders(SURGE_GAME.new_game(None, surge_seed(42)))
    env.reset(seed=43)
    assert orders(env.state) != first[0]


def test_a_seed_given_to_env_seeds_the_first_reset():
    a, b = raw_env(game="surge", seed=7), raw_env(game="surge")
    a.reset()
    b.reset(seed=7)
    assert orders(a.state) == orders(b.state)
    a.reset()
    b.reset()  # unseeded resets after a seeded one follow the seeded generator
    assert orders(a.state) == orders(b.state)


def test_the_torrent_observation_is_the_encoding_of_what_the_seat_observes():
    env = raw_env(game="torrent", size=5)
    env.reset()
    for point in ("c3", "e5"):
        env.step(env.codec.actions(1).index(Place(point)))
    seen = env.game.observe(env.state, 2)
    assert isinstance(seen, FlankObservation) and isinstance(env.codec, FlankCodec)
    array = env.observe("player_2")["observation"]
    cells = seen.board.replace("/", "")
    grid = array[: 5 * len(cells)].reshape(len(cells), 5)
    assert "".join("." if r[0] else ("B" if r[1] else "W") for r in grid) == cells
    assert list(grid[:, 4]) == list(seen.events)
    assert cells.count(".") == len(cells) - 2
    assert array[-6] == seen.action_count == 2  # action_count, then last_action ... over
    assert array[-5] == env.codec.names.index("e5")


def surge_orders():
    full = [v for v in range(1, 11) for _ in range(2)]
    rest = list(full)
    for v in (4, 5, 6, 1, 2):
        rest.remove(v)
    return full, [4, 5, 6, 1, 2, *rest], [4, 5, 6, 2, 1, *rest]


def test_seat_1_sees_nothing_of_seat_2s_hidden_stones():
    """Two Surge games that differ only in Orange's draw order, so in Orange's hand and in the value
    of the stone Orange places face-down first in round 2: Blue's observation is the same array."""
    blue, orange_a, orange_b = surge_orders()
    views = []
    for orange, hidden_value in ((orange_a, 1), (orange_b, 2)):
        env = raw_env(game="surge")
        env.reset()
        env.state = SURGE.new_game_from_orders(blue, orange)
        env.step(env.codec.actions(1).index(PlaceStone(1, "d2")))  # round 1: Blue, then Orange
        env.step(env.codec.actions(2).index(PlaceStone(4, "e7")))
        assert env.agent_selection == "player_2"  # round 2: Orange places first
        env.step(env.codec.actions(2).index(PlaceStone(hidden_value, "d7")))
        assert env.agent_selection == "player_1"
        seen = env.game.observe(env.state, 1)
        assert isinstance(seen, SurgeObservation)
        assert ("d7", "orange", None) in seen.face_down
        blue_view = env.observe("player_1")
        assert np.array_equal(blue_view["observation"], env.codec.encode(seen))
        views.append((blue_view, env.observe("player_2")["observation"], seen))
    (blue_a, orange_view_a, seen_a), (blue_b, orange_view_b, seen_b) = views
    assert seen_a == seen_b
    assert np.array_equal(blue_a["observation"], blue_b["observation"])
    assert np.array_equal(blue_a["action_mask"], blue_b["action_mask"])
    assert HIDDEN in blue_a["observation"]
    assert not np.array_equal(orange_view_a, orange_view_b)  # Orange's own hand and stone differ


def test_an_illegal_action_ends_the_wrapped_game_with_minus_one_for_its_player():
    env = arbiter_training.env(game="torrent", size=5)
    env.reset(seed=0)
    env.step(env.unwrapped.codec.actions(1).index(Place("c3")))
    env.step(env.unwrapped.codec.actions(1).index(Place("c3")))  # player_2 on the same point
    assert env.terminations == {"player_1": True, "player_2": True}
    assert env.rewards == {"player_1": 0, "player_2": -1}


def test_the_raw_env_refuses_an_illegal_action_and_renders_the_board():
    env = raw_env(game="surge", render_mode="ansi")
    env.reset(seed=1)
    with pytest.raises(ValueError, match="not legal"):
        env.step(int(np.flatnonzero(env.observe("player_1")["action_mask"] == 0)[0]))
    assert env.render() == env.game.render_text(env.state)
    with pytest.raises(ValueError, match="render_mode"):
        raw_env(render_mode="rgb_array")


def test_surges_forced_skips_are_played_by_the_environment(monkeypatch):
    env = raw_env(game="surge")
    played = []
    apply = env.game.apply_in_place

    def recording(state, action):
        played.append(action)
        apply(state, action)

    monkeypatch.setattr(env.game, "apply_in_place", recording)
    for seed in range(3):
        rollout(env, seed)  # asserts that no agent is ever asked to play a forced action
    assert SKIP in played
