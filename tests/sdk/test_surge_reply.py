"""The reply model of ismcts_surge: surge_tips' choice computed on a full engine state."""

from __future__ import annotations

import random
from collections.abc import Iterator

from arbiter_bot.examples.ismcts_surge import (
    Determinizer,
    IsmctsSurgeBot,
    _dealt,
    playout_value,
    unseen_opponent_stones,
)
from arbiter_bot.examples.surge_model import OpponentTracker
from arbiter_bot.examples.surge_reply import hidden_guess, tips_choices
from arbiter_bot.examples.surge_tips import Position, SurgeTipsBot, Weights
from arbiter_bot.local import play_local
from arbiter_games.surge import SKIP, SURGE, PlaceStone, SurgeAction, SurgeState

RULES = SURGE


def greedy_best(state: SurgeState, legal: list[SurgeAction]) -> set[tuple[int, str]]:
    """The placements SurgeTipsBot itself rates best, from the mover's observation."""
    weights = Weights()
    position = Position(RULES.observe(state, state.mover + 1), weights)
    scores = [(position.score(a, weights), a) for a in legal if isinstance(a, PlaceStone)]
    top = max(score for score, _ in scores)
    return {(a.value, a.square) for score, a in scores if abs(score - top) <= 1e-9}


def positions(seed: int, greedy: bool) -> Iterator[tuple[SurgeState, list[SurgeAction]]]:
    """Every placement decision of one game, played at random or by surge_tips' own choices."""
    rng = random.Random(seed)
    state = RULES.new_game({}, seed=rng.randbytes(32))
    while RULES.to_move(state) is not None:
        legal = list(RULES.legal_actions(state))
        if legal[0] is not SKIP:
            yield state, legal
            choices = tips_choices(state, legal) if greedy else legal
            state = RULES.apply(state, rng.choice(choices))
        else:
            state = RULES.apply(state, SKIP)


def test_the_reply_model_chooses_what_surge_tips_chooses() -> None:
    """In random games and in games surge_tips plays against itself, for either seat placing first
    or second, the model's best placements are exactly the bot's (the same ties included)."""
    checked = second = ties = 0
    for seed in range(6):
        for state, legal in positions(seed, greedy=seed % 2 == 1):
            mine = {(a.value, a.square) for a in tips_choices(state, legal) if isinstance(a, PlaceStone)}
            assert mine == greedy_best(state, legal)
            checked += 1
            second += state.down >= 0
            ties += len(mine) > 1
    assert checked > 150 and second > 50 and ties > 5


def test_the_hidden_stone_is_guessed_from_what_the_mover_cannot_see() -> None:
    """The face-down stone's guess is the Position's enemy_guess, and it does not depend on the
    face-down stone's true value beyond the pool it belongs to."""
    checked = 0
    for seed in range(3):
        for state, _ in positions(seed, greedy=True):
            if state.down < 0:
                continue
            position = Position(RULES.observe(state, state.mover + 1), Weights())
            assert hidden_guess(state, state.mover) == position.enemy_guess
            checked += 1
    assert checked > 20


def test_playouts_with_the_reply_model_reach_the_end_and_are_reproducible() -> None:
    for state, _ in list(positions(4, greedy=True))[::5]:
        values = []
        for _ in range(2):
            copy = state.copy()
            values.append(
                playout_value(copy, random.Random(7), rounds=100, reply=100, modelled=1 - state.mover)
            )
            assert copy.mover < 0
        assert values[0] == values[1] and -1.0 <= values[0] <= 1.0


def test_a_fitted_face_down_stone_is_surge_tips_choice_on_its_square() -> None:
    """``Determinizer(down_tries=K)``: a guess kept by ``_fits`` has the face-down value that
    surge_tips would place on the observed square from the hand the model dealt, deals exactly the
    opponent's unseen stones, and shows the bot its real observation."""
    kept = changed = refused = 0
    for seed in range(6):
        tracker = OpponentTracker(random.Random(seed))
        for state, _ in positions(seed, greedy=True):
            seat = state.mover + 1
            obs = RULES.observe(state, seat)
            model = tracker.model("m", obs) if seat == 1 else None
            if model is None or state.down < 0:
                continue
            sampler = Determinizer(obs, True, model, 4)
            assert sampler.before is not None
            rng = random.Random(seed)
            for _ in range(10):
                hidden = sampler.modelled(model, rng)
                assert hidden is not None and hidden.held
                fitted = sampler._fits(hidden, rng)
                if fitted is None:
                    refused += 1
                    continue
                kept += 1
                changed += fitted.face_down != hidden.face_down
                before = sampler.before.copy()
                before.hands[1] = list(fitted.held)
                square = "abcdefgh"[state.down >> 3] + str((state.down & 7) + 1)
                choices = tips_choices(before, RULES.legal_actions(before))
                assert (fitted.face_down, square) in {(a.value, a.square) for a in choices}
                assert sorted(_dealt(fitted)) == unseen_opponent_stones(obs)
                assert RULES.observe(sampler.state(fitted), seat) == obs
            assert RULES.observe(sampler.sample(rng), seat) == obs
    assert kept > 50 and changed > 0 and refused > 0


def test_the_bot_with_the_reply_model_answers_legally_and_reproducibly() -> None:
    """With a fixed number of playouts the bot (reply and own placements by surge_tips' choice,
    face-down stones fitted) is deterministic given its seed, and plays legal placements."""
    runs = []
    for _ in range(2):
        bot = IsmctsSurgeBot(5, iterations=6, reply=1, own=1, down_tries=4)
        tips = SurgeTipsBot(6)
        result = play_local(bot, tips, "surge", seed=bytes(range(32)), wire=False)
        runs.append((result.winner_seat, result.actions))
    assert runs[0] == runs[1] and len(runs[0][1]) > 20
