"""Surge's terminal picture: the face-down stone is told apart, with a legend; scores by colour."""

from __future__ import annotations

from arbiter_games import get_game
from arbiter_games.surge import PlaceStone, render_text


def test_the_face_down_stone_is_shown_with_a_legend():
    rules = get_game("surge")
    state = rules.new_game({}, seed=bytes(32))
    first = rules.legal_actions(state)[0]
    assert isinstance(first, PlaceStone)
    state = rules.apply(state, first)
    picture = render_text(state)  # type: ignore[arg-type]
    lowered = ("b" if rules.to_move(state) == 2 else "o") + str(first.value)
    rows = picture.splitlines()
    square_row = next(row for row in rows if row.startswith(first.square[1] + " "))
    assert lowered in square_row.split()
    assert "face-down" in picture and "b7" in picture and "B7" in picture  # the legend
    assert "blue 0" in picture and "orange 0" in picture
