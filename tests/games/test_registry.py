"""The games registry: one definition per game, options normalised, forced actions, public views."""

from __future__ import annotations

import hashlib
import random

import pytest
from arbiter_games import GAMES, REGISTRY, MalformedAction, OptionsError, get_game
from arbiter_games.hexflank import Place
from arbiter_games.surge import SKIP, PlaceStone
from arbiter_games.surge_game import SURGE_GAME
from arbiter_games.torrent import TORRENT_GAME


def test_every_game_is_registered_once_by_its_name():
    assert GAMES == ("torrent", "fravan", "surge")
    assert all(REGISTRY[name].name == name for name in GAMES)
    with pytest.raises(OptionsError, match="unknown game"):
        get_game("chess")


@pytest.mark.parametrize("raw", [None, {}, {"size": 0}, {"size": None}, {"size": 7}])
def test_torrent_options_without_a_size_are_the_default_board(raw):
    assert get_game("torrent").normalise_options(raw) == {"size": 7}


def test_options_are_checked_against_the_game():
    with pytest.raises(OptionsError, match="must be one of 5, 7"):
        get_game("fravan").normalise_options({"size": 6})
    with pytest.raises(OptionsError, match="no option 'size'"):
        get_game("surge").normalise_options({"size": 7})
    with pytest.raises(OptionsError):
        get_game("torrent").normalise_options({"size": True})
    assert get_game("surge").normalise_options({}) == {}


def test_chance_and_hidden_information_are_declared():
    assert [(g.has_chance, g.hidden_information) for g in REGISTRY.values()] == [
        (False, False),
        (False, False),
        (True, True),
    ]
    seed = bytes(range(32))
    assert get_game("surge").seed_commitment(seed) == hashlib.sha256(seed).hexdigest()
    assert get_game("surge").revealed_seed(seed) == seed.hex()
    assert get_game("torrent").seed_commitment(seed) == "" and get_game("torrent").revealed_seed(seed) == ""


def test_an_object_that_is_no_action_of_the_game_is_malformed():
    torrent = get_game("torrent")
    with pytest.raises(MalformedAction):
        torrent.apply(torrent.new_game(), PlaceStone(7, "c2"))
    with pytest.raises(MalformedAction):
        torrent.apply(torrent.new_game(), "e5")


def test_the_only_forced_action_is_surges_skip():
    surge = get_game("surge")
    state = surge.new_game({}, bytes(32))
    assert surge.forced_action(state, surge.legal_actions(state)) is None
    assert surge.forced_action(state, [SKIP]) is SKIP
    torrent = get_game("torrent")
    assert torrent.forced_action(torrent.new_game(), torrent.legal_actions(torrent.new_game())) is None


def _surge_positions(seed: bytes, plies: int):
    surge = get_game("surge")
    state = surge.new_game({}, seed)
    rng = random.Random(seed)
    for _ in range(plies):
        if surge.outcome(state) is not None:
            return
        yield state
        state = surge.apply(state, rng.choice(list(surge.legal_actions(state))))


def test_surges_public_view_shows_no_face_down_value_and_no_hand():
    surge = SURGE_GAME
    seen_face_down = 0
    for seed in (bytes([n]) * 32 for n in range(5)):
        for state in _surge_positions(seed, 200):
            view = surge.public_view(state)
            blue, orange = surge.observe(state, 1), surge.observe(state, 2)
            # Face-down stones: square and owner only, exactly those both seats see.
            assert view.face_down == tuple((s, c) for s, c, _ in blue.face_down)
            assert all(len(stone) == 2 for stone in view.face_down)
            seen_face_down += len(view.face_down)
            # Hands and supplies by size only.
            assert dict(view.hand_sizes) == {"blue": len(blue.hand), "orange": len(orange.hand)}
            assert dict(view.supply_sizes) == {"blue": len(blue.supply), "orange": len(orange.supply)}
            assert view.face_up == blue.face_up == orange.face_up
    assert seen_face_down > 0


def test_flank_public_view_is_the_whole_position():
    torrent = TORRENT_GAME
    state = torrent.apply(torrent.new_game({"size": 5}), Place("e5"))
    view = torrent.public_view(state)
    seat_view = torrent.observe(state, 2)
    assert view.board == seat_view.board and view.events == seat_view.events
    assert view.black_seat == 1 and view.to_move_seat == 2
