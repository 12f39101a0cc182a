"""Board geometry, point names, board text, and malformed vs illegal actions (Torrent/Fravan)."""

import pytest
from arbiter_games import IllegalAction, MalformedAction, OptionsError
from arbiter_games.fravan import FRAVAN
from arbiter_games.hexflank import PASS, SWAP, Place, geometry
from arbiter_games.torrent import TORRENT


@pytest.mark.parametrize("size", [5, 6, 7, 8, 9])
def test_point_count_is_3n_n_minus_1_plus_1(size):
    assert geometry(size).count == 3 * size * (size - 1) + 1


def test_centre_names():
    assert geometry(5).names[geometry(5).index["e5"]] == "e5"
    assert geometry(5).coords[geometry(5).index["e5"]] == (0, 0)
    assert geometry(7).coords[geometry(7).index["g7"]] == (0, 0)


def test_size_5_rows_start_at_different_columns():
    geo = geometry(5)
    top, bottom = geo.rows[0], geo.rows[-1]
    assert [geo.names[p] for p in top] == ["a9", "b9", "c9", "d9", "e9"]
    assert [geo.names[p] for p in bottom] == ["e1", "f1", "g1", "h1", "i1"]


def test_size_3_picture_from_rules():
    geo = geometry(3)
    assert [[geo.names[p] for p in row] for row in geo.rows] == [
        ["a5", "b5", "c5"],
        ["a4", "b4", "c4", "d4"],
        ["a3", "b3", "c3", "d3", "e3"],
        ["b2", "c2", "d2", "e2"],
        ["c1", "d1", "e1"],
    ]


@pytest.mark.parametrize("text", ["E5", "e05", "5e", "e", "", "e5 ", "ee5", "e-1", "e00", "Pass", "SWAP"])
def test_malformed_point_names(text):
    with pytest.raises(MalformedAction):
        TORRENT.parse_action(text)


@pytest.mark.parametrize("text", ["E5", "e05"])
def test_malformed_place_object_is_malformed_on_apply(text):
    state = TORRENT.new_game({"size": 5})
    with pytest.raises(MalformedAction):
        TORRENT.apply(state, Place(text))


def test_off_board_point_is_illegal_not_malformed():
    state = TORRENT.new_game({"size": 5})
    action = TORRENT.parse_action("a1")
    with pytest.raises(IllegalAction, match="not on the size-5 board"):
        TORRENT.apply(state, action)
    with pytest.raises(IllegalAction):
        TORRENT.apply(state, Place("z99"))


def test_row_zero_is_well_formed_but_off_the_board():
    # "0" is a decimal number without leading zeros: e0 reads as a point, which is not on the board.
    state = TORRENT.new_game({"size": 5})
    action = TORRENT.parse_action("e0")
    with pytest.raises(IllegalAction, match="not on the size-5 board"):
        TORRENT.apply(state, action)


def test_huge_input_gives_a_short_message():
    with pytest.raises(MalformedAction) as info:
        TORRENT.parse_action("x" * 1_000_000)
    assert len(str(info.value)) < 200


def test_occupied_point_is_illegal():
    state = TORRENT.apply(TORRENT.new_game({"size": 5}), Place("e5"))
    with pytest.raises(IllegalAction, match="occupied"):
        TORRENT.apply(state, Place("e5"))


def test_pass_as_first_action_is_illegal():
    state = TORRENT.new_game({"size": 5})
    with pytest.raises(IllegalAction):
        TORRENT.apply(state, PASS)
    assert PASS not in TORRENT.legal_actions(state)


def test_swap_only_as_second_action():
    state = TORRENT.new_game({"size": 5})
    with pytest.raises(IllegalAction):
        TORRENT.apply(state, SWAP)
    state = TORRENT.apply(state, Place("e5"))
    assert SWAP in TORRENT.legal_actions(state)
    state = TORRENT.apply(state, Place("d5"))
    with pytest.raises(IllegalAction):
        TORRENT.apply(state, SWAP)
    assert SWAP not in TORRENT.legal_actions(state)


def test_refused_action_leaves_state_unchanged():
    state = TORRENT.apply(TORRENT.new_game({"size": 5}), Place("e5"))
    before = state.snapshot()
    for bad in (Place("e5"), Place("a1"), Place("E5"), "e5", None):
        with pytest.raises((IllegalAction, MalformedAction)):
            TORRENT.apply_in_place(state, bad)  # type: ignore[arg-type]
    assert state.snapshot() == before


@pytest.mark.parametrize(
    "rules,size", [(TORRENT, 4), (TORRENT, 10), (FRAVAN, 6), (FRAVAN, 9), (TORRENT, "7")]
)
def test_unsupported_sizes(rules, size):
    with pytest.raises(OptionsError):
        rules.new_game({"size": size})


def test_unknown_option():
    with pytest.raises(OptionsError):
        TORRENT.new_game({"size": 7, "komi": 1})


def test_default_sizes_are_7():
    assert TORRENT.new_game().size == 7
    assert FRAVAN.new_game().size == 7


def test_format_and_parse_round_trip():
    for text in ("g7", "a10", "pass", "swap"):
        assert TORRENT.format_action(TORRENT.parse_action(text)) == text
