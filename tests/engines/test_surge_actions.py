"""Surge Stones actions: text form, malformed versus illegal, refusals leave the state alone."""

from __future__ import annotations

import pytest
from arbiter_games.base import IllegalAction, MalformedAction
from arbiter_games.surge import (
    SKIP,
    SQUARES,
    SURGE,
    PlaceStone,
    Skip,
    SurgeState,
    format_action,
    parse_action,
)

from tests.engines.test_surge_helpers import board_text

R = SURGE
ALL = [v for v in range(1, 11) for _ in range(2)]


def fresh() -> SurgeState:
    return R.new_game_from_orders([3, 5, 9] + [v for v in ALL if v not in (3, 5, 9)] + [3, 5, 9], ALL)


def test_parse_and_format():
    assert parse_action("7@c2") == PlaceStone(7, "c2")
    assert parse_action("10@h8") == PlaceStone(10, "h8")
    assert parse_action("skip") is SKIP
    assert Skip() == SKIP
    assert format_action(PlaceStone(7, "c2")) == "7@c2"
    assert format_action(SKIP) == "skip"
    assert R.parse_action("1@a1") == PlaceStone(1, "a1") and R.format_action(SKIP) == "skip"


@pytest.mark.parametrize("value", range(1, 11))
def test_format_is_the_inverse_of_parse_for_every_action(value):
    for square in SQUARES:
        text = f"{value}@{square}"
        action = parse_action(text)
        assert format_action(action) == text
        assert action is parse_action(text)  # interned


@pytest.mark.parametrize(
    "text",
    [
        "",
        "07@c2",  # leading zero
        "c2@7",  # square first
        "A1",
        "a1",
        "7@C2",  # upper case square
        "7@c02",
        "7 @c2",
        " 7@c2",
        "7@c2 ",
        "7@c2\n",
        "SKIP",
        "Skip",
        "pass",
        "7@",
        "@c2",
        "7@@c2",
        "7@c2@c3",
        "7c2",
        "-1@c2",
        "+7@c2",
        "7.0@c2",
        "seven@c2",
        "7@cc2",
        "7@2",
        "\uff17@c2",  # a full-width digit
        "123456789012345678901@c2",  # 21 digits
    ],
)
def test_malformed_text(text):
    with pytest.raises(MalformedAction) as info:
        parse_action(text)
    assert "cannot parse" in str(info.value)


def test_malformed_messages_explain():
    with pytest.raises(MalformedAction, match="leading zeros"):
        parse_action("07@c2")
    with pytest.raises(MalformedAction, match="value comes first"):
        parse_action("c2@7")
    with pytest.raises(MalformedAction, match="lower case"):
        parse_action("7@C2")
    with pytest.raises(MalformedAction, match="lower case"):
        parse_action("SKIP")


@pytest.mark.parametrize(
    "text,match",
    [
        ("11@c2", "11 is not a stone value"),
        ("0@c2", "0 is not a stone value"),
        ("3@i9", "i9 is not a square of the board"),
        ("3@a0", "a0 is not a square of the board"),
        ("3@c9", "c9 is not a square of the board"),
        ("3@c10", "c10 is not a square of the board"),
    ],
)
def test_out_of_range_is_well_formed_but_illegal(text, match):
    action = parse_action(text)  # parses
    assert isinstance(action, PlaceStone) and format_action(action) == text
    state = fresh()
    before = state.snapshot()
    with pytest.raises(IllegalAction, match=match):
        R.apply_in_place(state, action)
    assert state.snapshot() == before


@pytest.mark.parametrize(
    "action,match",
    [
        (PlaceStone(7, "c2"), r"7 is not in your hand \[3, 5, 9\]"),
        (PlaceStone(3, "d4"), r"d4 is not one of Blue's home squares \(rows 1-2\)"),
        (PlaceStone(3, "c7"), r"c7 is not one of Blue's home squares"),
        (SKIP, "must place"),
    ],
)
def test_illegal_actions_have_clear_messages(action, match):
    state = fresh()
    before = state.snapshot()
    with pytest.raises(IllegalAction, match=match):
        R.apply_in_place(state, action)
    assert state.snapshot() == before
    with pytest.raises(IllegalAction, match=match):
        R.apply(state, action)
    assert state.snapshot() == before


def test_occupied_square_is_illegal():
    state = R.position(board_text({"c2": "B4"}), [3, 5, 9], [1, 2, 3])
    before = state.snapshot()
    with pytest.raises(IllegalAction, match="c2 is occupied"):
        R.apply_in_place(state, PlaceStone(3, "c2"))
    assert state.snapshot() == before


def test_orange_messages_name_orange():
    state = R.apply(fresh(), PlaceStone(3, "a1"))
    with pytest.raises(IllegalAction, match=r"c2 is not one of Orange's home squares \(rows 7-8\)"):
        R.apply(state, PlaceStone(1, "c2"))
    # Blue's face-down stone does not make Orange's square occupied and vice versa.
    R.apply(state, PlaceStone(1, "a8"))


@pytest.mark.parametrize("thing", [None, "7@c2", 7, ("7", "c2"), object()])
def test_non_actions_are_malformed(thing):
    state = fresh()
    before = state.snapshot()
    with pytest.raises(MalformedAction):
        R.apply_in_place(state, thing)
    with pytest.raises(MalformedAction):
        R.apply(state, thing)
    assert state.snapshot() == before


@pytest.mark.parametrize("action", [PlaceStone("3", "c2"), PlaceStone(3.0, "c2"), PlaceStone(3, 12)])  # type: ignore[arg-type]
def test_badly_typed_place_is_malformed(action):
    state = fresh()
    before = state.snapshot()
    with pytest.raises(MalformedAction):
        R.apply_in_place(state, action)
    assert state.snapshot() == before


def test_parse_action_refuses_non_text():
    with pytest.raises(MalformedAction):
        parse_action(7)  # type: ignore[arg-type]


def test_format_action_refuses_non_actions():
    with pytest.raises(MalformedAction):
        format_action("7@c2")  # type: ignore[arg-type]


def test_subclassed_actions_are_accepted():
    class MyPlace(PlaceStone):
        __slots__ = ()

    state = fresh()
    after = R.apply(state, MyPlace(3, "c2"))
    assert after == R.apply(state, PlaceStone(3, "c2"))


def test_actions_are_frozen_and_hashable():
    action = PlaceStone(3, "c2")
    with pytest.raises(AttributeError):
        action.value = 4  # type: ignore[misc]
    assert {action, PlaceStone(3, "c2"), SKIP, Skip()} == {action, SKIP}
