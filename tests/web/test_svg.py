"""The boards drawn from public views: every point or square, and what the view holds."""

from __future__ import annotations

import random
import re

from arbiter.web.svg import board_svg
from arbiter_games import get_game
from arbiter_games.hexflank import geometry


def test_a_fravan_board_names_every_point_and_marks_locked_stones() -> None:
    game = get_game("fravan")
    rng = random.Random(7)
    state = game.new_game({"size": 5})
    for _ in range(200):  # play until a stone is locked (or the game ends)
        view = game.public_view(state)
        if game.outcome(state) is not None or any(c in "bw" for c in view.board):  # type: ignore[attr-defined]
            break
        state = game.apply(state, rng.choice(list(game.legal_actions(state))))
    view = game.public_view(state)
    svg = board_svg(view)
    names = geometry(5).names
    drawn = dict(re.findall(r'data-point="([a-z0-9]+)" data-stone="(.)"', svg))
    assert sorted(drawn) == sorted(names)
    assert "".join(drawn[name] for name in names) == view.board.replace("/", "")  # type: ignore[attr-defined]
    locked = [cell for cell in view.board if cell in "bw"]  # type: ignore[attr-defined]
    assert svg.count('class="stone locked"') == len(locked)
    assert locked, "no locked stone in this game: pick another seed"


def test_a_surge_board_shows_face_down_stones_without_values() -> None:
    game = get_game("surge")
    state = game.new_game({}, bytes(32))
    state = game.apply(state, game.legal_actions(state)[0])  # one stone face down
    svg = board_svg(game.public_view(state))
    assert svg.count('class="stone face-down"') == 1
    assert "data-value" not in svg
