"""The Surge opponent model (arbiter_bot.examples.surge_model) and the search's sequential halving:
guesses that fit the observation, the hand inference itself, and the tracker's bookkeeping."""

from __future__ import annotations

import hashlib
import random
from collections import Counter
from collections.abc import Callable, Iterator

import pytest
from arbiter_bot.bot import TurnContext
from arbiter_bot.examples.ismcts_surge import (
    Determinizer,
    IsmctsSurgeBot,
    phase_sizes,
    unseen_opponent_stones,
)
from arbiter_bot.examples.surge_model import (
    HandFilter,
    OpponentTracker,
    Particle,
    choice_probability,
    fresh_particle,
    place,
)
from arbiter_games.surge import STONES, SURGE, PlaceStone, SurgeObservation, SurgeState

Policy = Callable[[SurgeState, list[PlaceStone], random.Random], PlaceStone]


def biggest(state: SurgeState, legal: list[PlaceStone], rng: random.Random) -> PlaceStone:
    """Always the biggest stone in hand, on a random square."""
    top = legal[-1].value
    return rng.choice([a for a in legal if a.value == top])


def anything(state: SurgeState, legal: list[PlaceStone], rng: random.Random) -> PlaceStone:
    return rng.choice(legal)


def game(seed: int, policy: Policy) -> Iterator[tuple[SurgeState, int, SurgeObservation]]:
    """(state, seat, observation) at every decision of one game played by ``policy`` for both."""
    rng = random.Random(seed)
    state = SURGE.new_game({}, hashlib.sha256(b"model %d" % seed).digest())
    while SURGE.outcome(state) is None:
        legal = SURGE.legal_actions(state)
        seat = SURGE.to_move(state)
        assert seat is not None
        if SURGE.can_place(state):
            yield state.copy(), seat, SURGE.observe(state, seat)
            places = [a for a in legal if isinstance(a, PlaceStone)]
            SURGE.apply_in_place(state, policy(state, places, rng))
        else:
            SURGE.apply_in_place(state, legal[0])


def context(seat: int, match_id: str = "m") -> TurnContext:
    return TurnContext(match_id, 1, "surge", {}, seat, None, "x", {1: None, 2: None}, None)


def test_a_forced_draw_weighs_its_chance() -> None:
    particle = Particle([2, 3], [0] * 11, 0, 1)
    particle.counts[7] = 2
    particle.counts[1] = 2
    particle.left = 4
    weight = place(particle, 7, random.Random(0), 1.0)
    # The hand lacked the 7, so the owed draw had to be a 7 (2 of the 4 stones left) ...
    assert weight == pytest.approx(2 / 4 * choice_probability(7, [2, 3, 7], 1.0))
    # ... and the 7 was then placed from the hand 2, 3, 7.
    assert sorted(particle.hand) == [2, 3]
    assert particle.counts[7] == 1 and particle.left == 3 and particle.pending == 1
    # A value neither in hand nor left to draw is impossible.
    assert place(Particle([1, 1], [0] * 11, 0, 0), 9, random.Random(0), 1.0) == 0.0


def test_the_first_placement_draws_the_first_hand() -> None:
    particle = fresh_particle()
    assert place(particle, 10, random.Random(3), 1.5) > 0.0
    assert len(particle.hand) == 2 and particle.left == 17 and particle.pending == 1
    assert sorted(particle.hand + [10] + [v for v in range(11) for _ in range(particle.counts[v])]) == sorted(
        STONES
    )


@pytest.mark.parametrize("seed", range(4))
def test_every_modelled_guess_fits_the_observation(seed: int) -> None:
    """Followed from the first move, the tracker's guesses deal exactly the opponent's unseen stones
    into a hand and a supply of the observed sizes, and build states that show the bot its
    observation."""
    tracker = OpponentTracker(random.Random(seed), particles=32)
    rng = random.Random(seed + 100)
    checked = 0
    for _, seat, obs in game(seed, anything):
        if seat != 1 + seed % 2:
            continue
        model = tracker.model("m", obs)
        assert model is not None  # a random player's placements are all possible under the model
        sampler = Determinizer(obs, model=model)
        assert sampler.model is model
        for _ in range(3):
            hidden = sampler.modelled(model, rng)
            assert hidden is not None
            down = [] if hidden.face_down is None else [hidden.face_down]
            dealt = sorted([*down, *hidden.opponent_hand, *hidden.opponent_supply])
            assert dealt == unseen_opponent_stones(obs)
            assert SURGE.observe(sampler.state(hidden), seat) == obs
        checked += 1
    assert checked >= 15


def test_against_a_biggest_first_player_the_kept_stones_are_small() -> None:
    """With a sharp choice model and an opponent that always places its biggest stone, every guessed
    hand holds at most one stone (the one drawn since) bigger than the opponent's last placement,
    while uniform guesses often hold more; the real hand is guessed more often than uniformly."""
    modelled_hits = uniform_hits = guesses = 0
    for seed in range(3):
        tracker = OpponentTracker(random.Random(seed), particles=64, beta=30.0)
        rng = random.Random(seed)
        last: int | None = None
        seen_before: Counter[int] = Counter()
        for state, seat, obs in game(seed, biggest):
            if seat != 2:
                continue
            model = tracker.model("m", obs)
            assert model is not None
            seen = Counter(v for _, colour, v in obs.face_up if colour == "blue") + Counter(obs.removed_blue)
            new = list((seen - seen_before).elements())
            seen_before = seen
            last = new[0] if len(new) == 1 else last
            if last is None or obs.face_down or obs.opponent_supply_size == 0:
                continue
            uniform = Determinizer(obs)
            modelled = Determinizer(obs, model=model)
            for _ in range(10):
                hand = modelled.sample(rng).hands[0]
                assert sum(1 for v in hand if v > last) <= 1
                modelled_hits += sorted(hand) == sorted(state.hands[0])
                uniform_hits += sorted(uniform.sample(rng).hands[0]) == sorted(state.hands[0])
                guesses += 1
    assert guesses >= 100
    assert modelled_hits > 2 * uniform_hits


def test_a_match_joined_in_the_middle_gets_no_model() -> None:
    observations = [obs for _, seat, obs in game(5, anything) if seat == 1]
    tracker = OpponentTracker(random.Random(0), particles=8)
    assert tracker.model("late", observations[6]) is None
    assert tracker.model("late", observations[7]) is None
    # From the start the same match's placements are followed, in the order they were made.
    for obs in observations[:8]:
        assert tracker.model("early", obs) is not None
    assert len(tracker.tracks["early"].filter.placed) == sum(
        1 for _, colour, _ in observations[7].face_up if colour == "orange"
    ) + len(observations[7].removed_orange)


def test_an_impossible_history_turns_the_model_off() -> None:
    model = HandFilter(random.Random(0), particles=4)
    for value in (10, 10):
        model.observe_placement(value)
    assert model.alive
    model.observe_placement(10)  # a third 10 does not exist
    assert not model.alive


def test_phase_sizes_halve_the_root_moves() -> None:
    assert phase_sizes(8) == [8, 4, 2]
    assert phase_sizes(6) == [6, 3, 2]
    assert phase_sizes(4) == [4, 2]
    assert phase_sizes(3) == [3, 2]
    assert phase_sizes(2) == [2]
    assert phase_sizes(1) == [1]


def expected_determinizations(moves: int, budget: int) -> int:
    """Determinizations of a halving search of ``budget`` playouts over ``moves`` root moves."""
    sizes = phase_sizes(moves)
    playouts = count = 0
    for phase, size in enumerate(sizes):
        while playouts < budget * (phase + 1) // len(sizes):
            playouts += size
            count += 1
    return count


def test_halving_plays_each_phase_s_survivors_from_every_determinization() -> None:
    """With a fixed playout budget the halving search is deterministic given its seed, spends the
    budget in phases of 6, 3 and 2 moves per determinization, and plays one of the survivors."""
    states = list(game(2, anything))
    for state, seat, obs in states[6:30:6]:
        moves = []
        for _ in range(2):
            bot = IsmctsSurgeBot(4, iterations=60, model=False, width=6)
            bot.record = []
            moves.append(bot.choose(obs, SURGE.legal_actions(state), context(seat)))
            assert len(bot.record) == expected_determinizations(6, 60) == 4 + 6 + 9
            assert bot.last.iterations == 4 * 6 + 6 * 3 + 9 * 2
        assert moves[0] == moves[1]
        assert moves[0] in SURGE.legal_actions(state)
