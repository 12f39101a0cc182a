"""Hostile input to the engines: every refusal is MalformedAction or IllegalAction with a short
message, never a TypeError or ValueError from Python itself; and Surge's final observation."""

from __future__ import annotations

import pytest
from arbiter_games.base import IllegalAction, MalformedAction
from arbiter_games.fravan import FRAVAN
from arbiter_games.hexflank import Place
from arbiter_games.surge import BLUE, ORANGE, SKIP, SURGE, PlaceStone, Skip
from arbiter_games.torrent import TORRENT
from hypothesis import given, settings
from hypothesis import strategies as st

SHORT = 200  # no refusal message is longer than this
FLANK = [TORRENT, FRAVAN]
ALL = [v for v in range(1, 11) for _ in range(2)]
HUGE = "1" * 5000  # more digits than Python's int string conversion limit (4300)


def refused(call, kind):
    """Run ``call``: it must raise ``kind`` with a short message (returned)."""
    with pytest.raises(kind) as info:
        call()
    message = str(info.value)
    assert len(message) <= SHORT, f"{len(message)} characters: {message[:100]}..."
    return message


# ---- 1. Surge: numbers past the int conversion limit ---------------------------------------------

SURGE_TEXTS = [
    "7@c0" + HUGE,
    HUGE + "@c2",
    "0" + HUGE + "@c2",
    "0" + "1" * 4000 + "@c2",  # below the limit: parses as an int, but the message must stay short
    "7@c0" + "1" * 4000,
    "7@C" + HUGE,
    "7@C0" + HUGE,
    "7@c" + HUGE,
    "0" + HUGE + "@c0" + HUGE,
    HUGE,
    "x" * 100_000,
    " " + HUGE + "@c2",
    "@" * 10_000,
]


@pytest.mark.parametrize("text", SURGE_TEXTS, ids=lambda t: f"{t[:12]}...{len(t)}")
def test_surge_parse_of_huge_numbers_is_malformed_and_short(text):
    message = refused(lambda: SURGE.parse_action(text), MalformedAction)
    assert message.startswith("cannot parse ")


def test_surge_parse_leading_zero_hints_are_unchanged_for_short_input():
    assert "(1@...)" in refused(lambda: SURGE.parse_action("01@c2"), MalformedAction)
    assert "(c1)" in refused(lambda: SURGE.parse_action("7@c01"), MalformedAction)
    assert "(c2)" in refused(lambda: SURGE.parse_action("7@C2"), MalformedAction)


_digits = st.builds(
    lambda lead, d, n: lead + d * n,
    st.sampled_from(["", "0", "00"]),
    st.sampled_from("019"),
    st.integers(0, 6000),
)
_pieces = st.one_of(_digits, st.sampled_from(["@", "c", "C", "i", "skip", "SKIP", " ", "x", ""]))


@settings(max_examples=300, deadline=None)
@given(st.lists(_pieces, max_size=5).map("".join))
def test_surge_parse_fails_only_with_short_malformed_action(text):
    try:
        action = SURGE.parse_action(text)
    except MalformedAction as e:
        assert len(str(e)) <= SHORT
        return
    assert action is SKIP or isinstance(action, PlaceStone)
    state = SURGE.new_game_from_orders(ALL, ALL)
    try:
        SURGE.apply(state, action)
    except IllegalAction as e:
        assert len(str(e)) <= SHORT


# ---- 2. Python API: actions whose fields have the wrong type ----------------------------------------

BAD_POINTS = [["e5"], {"e5": 1}, {"e5"}, bytearray(b"e5"), 5, None, b"e5", 1.5, 10**5000, [0] * 100_000]


@pytest.mark.parametrize("rules", FLANK, ids=lambda r: r.name)
@pytest.mark.parametrize("point", BAD_POINTS, ids=lambda p: type(p).__name__)
def test_flank_place_with_a_non_str_point_is_malformed(rules, point):
    state = rules.new_game()
    refused(lambda: rules.apply(state, Place(point=point)), MalformedAction)
    refused(lambda: rules.apply_in_place(state, Place(point=point)), MalformedAction)
    assert rules.legal_actions(state) == rules.legal_actions(rules.new_game())  # untouched


class _Name(str):
    """A str subclass (like numpy.str_): plays as its text."""


@pytest.mark.parametrize("rules", FLANK, ids=lambda r: r.name)
def test_flank_place_with_a_str_subclass_point_plays_as_its_text(rules):
    state = rules.new_game()
    assert rules.board_text(rules.apply(state, Place(_Name("e5")))) == rules.board_text(
        rules.apply(state, Place("e5"))
    )


def _surge_state():
    return SURGE.new_game_from_orders([3, 5, 9] + [v for v in ALL if v not in (3, 5, 9)] + [3, 5, 9], ALL)


BAD_STONES = [
    (1.0, "a1"),
    ([3], "a1"),
    ("3", "a1"),
    (True, "a1"),
    (None, None),
    (3, ["a1"]),
    (3, {"a1": 1}),
    (3, {"a1"}),
    (3, 3),
    (3, b"a1"),
    (3, None),
    ([0] * 100_000, "a1"),
    (3, [0] * 100_000),
    (1.5, "x" * 100_000),
]


@pytest.mark.parametrize("value,square", BAD_STONES, ids=lambda x: type(x).__name__)
def test_surge_place_stone_with_wrong_types_is_malformed(value, square):
    state = _surge_state()
    before = state.snapshot()
    refused(lambda: SURGE.apply(state, PlaceStone(value, square)), MalformedAction)
    refused(lambda: SURGE.apply_in_place(state, PlaceStone(value, square)), MalformedAction)
    assert state.snapshot() == before


def test_surge_place_stone_with_a_str_subclass_square_plays_as_its_text():
    state = _surge_state()
    assert SURGE.apply(state, PlaceStone(3, _Name("a1"))) == SURGE.apply(state, PlaceStone(3, "a1"))


def test_surge_not_an_action_message_is_short():
    state = _surge_state()
    refused(lambda: SURGE.apply(state, [0] * 100_000), MalformedAction)  # type: ignore[arg-type]
    refused(lambda: SURGE.format_action([0] * 100_000), MalformedAction)  # type: ignore[arg-type]


# ---- 3. Off-board names are cut short in IllegalAction ------------------------------------------


@pytest.mark.parametrize("rules", FLANK, ids=lambda r: r.name)
def test_flank_off_board_point_message_is_short(rules):
    state = rules.new_game({"size": 5})
    name = "e" + "1" * 20_000
    for action in (Place(name), rules.parse_action(name)):
        message = refused(lambda: rules.apply(state, action), IllegalAction)  # noqa: B023
        assert "is not on the size-5 board" in message and message.startswith("e111")
    assert (
        refused(lambda: rules.apply(state, Place("e99")), IllegalAction) == "e99 is not on the size-5 board"
    )


@pytest.mark.parametrize(
    "value,square,words",
    [
        (3, "i" + "1" * 20_000, "is not a square of the board"),
        (3, "a" + "9" * 20_000, "is not a square of the board"),
        (3, "x" * 100_000, "is not a square of the board"),
        (10**5000, "a1", "is not a stone value"),
        (10**4000, "a1", "is not a stone value"),
        (-(10**4000), "a1", "is not a stone value"),
    ],
    ids=["i-long", "a-long", "x-long", "value-past-limit", "value-4000-digits", "negative"],
)
def test_surge_off_board_square_or_value_message_is_short(value, square, words):
    state = _surge_state()
    message = refused(lambda: SURGE.apply(state, PlaceStone(value, square)), IllegalAction)
    assert words in message
    assert refused(lambda: SURGE.apply(state, PlaceStone(3, "a9")), IllegalAction) == (
        "a9 is not a square of the board (a1..h8)"
    )


# ---- 4. Surge: first_placer after the end is the first placer of the round named by ``round`` ----


def _first_placer_of(round_number: int) -> str:
    return BLUE if round_number % 2 == 1 else ORANGE  # proto: "Blue in odd rounds"


@pytest.mark.parametrize("start", [1, 2, 4, 7])
def test_surge_final_observation_first_placer_agrees_with_round(start):
    state = SURGE.position("/".join([". . . . . . . ."] * 8), round=start)  # nobody can place
    while not state.over:
        state = SURGE.apply(state, Skip())
    assert state.rounds_played == start
    for seat in (1, 2):
        obs = SURGE.observe(state, seat)
        assert obs.over and obs.round == start + 1
        assert obs.first_placer == _first_placer_of(obs.round)


@pytest.mark.parametrize("seed", range(4))
def test_surge_first_placer_agrees_with_round_in_every_observation(seed):
    import random

    rng = random.Random(seed)
    state = SURGE.new_game(None, bytes([seed]) * 32)
    while True:
        for seat in (1, 2):
            obs = SURGE.observe(state, seat)
            assert obs.first_placer == _first_placer_of(obs.round), (obs.round, obs.over)
        if state.over:
            break
        state = SURGE.apply(state, rng.choice(SURGE.legal_actions(state)))
