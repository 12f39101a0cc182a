"""The Surge seed check: a true seed passes, a forged one (or a forged draw) is caught."""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import pytest
from arbiter_bot.bot import MatchSummary
from arbiter_bot.client import verify_seed
from arbiter_games.surge import SURGE, SurgeObservation, commitment, draw_order
from arbiter_games.surge_seed import SeedMismatch, SeedRecorder, check_surge_seed

RULES_SEED = bytes(range(32))  # the example on the rules page


def observations_of(seed: bytes, seat: int, play_seed: int = 0) -> list[SurgeObservation]:
    """What ``seat`` is shown in a random game with ``seed``: each of its turns and the final position."""
    rng = random.Random(play_seed)
    state = SURGE.new_game(seed=seed)
    shown = []
    while SURGE.outcome(state) is None:
        legal = SURGE.legal_actions(state)
        if SURGE.to_move(state) == seat and SURGE.can_place(state):
            shown.append(SURGE.observe(state, seat))
        SURGE.apply_in_place(state, rng.choice(legal))
    shown.append(SURGE.observe(state, seat))
    return shown


def test_the_rules_example() -> None:
    assert commitment(RULES_SEED) == "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"
    assert draw_order(RULES_SEED, "blue") == [10, 7, 2, 5, 10, 2, 1, 4, 5, 7, 3, 8, 1, 9, 3, 6, 4, 8, 6, 9]
    for seat, colour in ((1, "blue"), (2, "orange")):
        shown = observations_of(RULES_SEED, seat)
        assert check_surge_seed(RULES_SEED.hex(), commitment(RULES_SEED), colour, shown) == []
    first = observations_of(RULES_SEED, 1)[0]
    assert first.hand == (2, 7, 10)  # the first three stones of blue's order, sorted


@pytest.mark.parametrize("trial", range(12))
def test_true_seeds_pass(trial: int) -> None:
    rng = random.Random(trial)
    seed = rng.randbytes(32)
    seat = 1 + trial % 2
    shown = observations_of(seed, seat, play_seed=trial)
    assert check_surge_seed(seed.hex(), commitment(seed), ("blue", "orange")[seat - 1], shown) == []


def test_a_forged_seed_with_its_own_commitment_is_caught() -> None:
    # The arbiter committed to one seed but dealt from another: the draws give it away.
    real = random.Random(1).randbytes(32)
    forged = random.Random(2).randbytes(32)
    shown = observations_of(real, 1)
    problems = check_surge_seed(forged.hex(), commitment(forged), "blue", shown)
    assert problems
    assert any("own hand" in p for p in problems)
    assert any("opponent" in p for p in problems)


def test_a_seed_that_does_not_match_the_commitment_is_caught() -> None:
    seed = random.Random(3).randbytes(32)
    other = random.Random(4).randbytes(32)
    shown = observations_of(seed, 2)
    problems = check_surge_seed(seed.hex(), commitment(other), "orange", shown)
    assert len(problems) == 1 and "commitment" in problems[0]


@pytest.mark.parametrize("bad", ["", "zz" * 32, "ab" * 31, "AB" * 32, "ab" * 33])
def test_malformed_seeds_are_caught(bad: str) -> None:
    assert check_surge_seed(bad, "00" * 32, "blue", []) != []


def test_a_forged_hand_is_caught() -> None:
    seed = random.Random(5).randbytes(32)
    shown = observations_of(seed, 1)
    early = shown[2]
    order = draw_order(seed, "blue")
    # Swap one stone in hand for a value the order has not dealt yet.
    undealt = next(v for v in range(1, 11) if v not in early.hand and v in order[20 - len(early.supply) :])
    forged = dataclasses.replace(early, hand=tuple(sorted((*early.hand[1:], undealt))))
    problems = check_surge_seed(seed.hex(), commitment(seed), "blue", [forged])
    assert problems and "own hand" in problems[0]


def test_an_opponent_stone_from_the_undrawn_part_is_caught() -> None:
    seed = random.Random(6).randbytes(32)
    shown = observations_of(seed, 1)
    order = draw_order(seed, "orange")
    for obs in shown:
        drawn = 20 - obs.opponent_supply_size
        enemy = [(i, s) for i, s in enumerate(obs.face_up) if s[1] == "orange"]
        missing = [v for v in range(1, 11) if v not in order[:drawn]]
        if enemy and missing:
            i, (square, colour, _) = enemy[0]
            face_up = list(obs.face_up)
            face_up[i] = (square, colour, missing[0])
            forged = dataclasses.replace(obs, face_up=tuple(face_up))
            problems = check_surge_seed(seed.hex(), commitment(seed), "blue", [forged])
            assert any("not among the first" in p for p in problems)
            return
    pytest.fail("no observation with a revealed opponent stone and an undrawn value")


def test_recorder_and_summary_verdicts() -> None:
    seed = random.Random(7).randbytes(32)
    shown = observations_of(seed, 2)
    recorder = SeedRecorder("m", commitment(seed), "orange")
    for obs in shown[:-1]:
        recorder.record(obs)
    recorder.verify(seed.hex())  # no exception
    forged = random.Random(8).randbytes(32)
    with pytest.raises(SeedMismatch) as caught:
        SeedRecorder("m", commitment(forged), "orange", list(shown)).verify(forged.hex())
    assert caught.value.match_id == "m" and caught.value.problems
    assert SeedRecorder("m", "", "orange").check(seed.hex()) != []

    summary: Any = MatchSummary(
        match_id="m", game="surge", options={}, seat=2, opponent_name="x", outcome="win",
        final_observation=shown[-1], seed=seed.hex(),
    )  # fmt: skip
    good = verify_seed(summary, SeedRecorder("m", commitment(seed), "orange", list(shown[:-1])))
    assert good.seed_verified is True and good.seed_problems == ()
    bad = verify_seed(
        dataclasses.replace(summary, seed=forged.hex()),
        SeedRecorder("m", commitment(forged), "orange", list(shown[:-1])),
    )
    assert bad.seed_verified is False and bad.seed_problems
    unrevealed = verify_seed(
        dataclasses.replace(summary, seed=""), SeedRecorder("m", commitment(seed), "orange")
    )
    assert unrevealed.seed_verified is None
