"""Surge Stones: one small hand-built position per rule and per decision of the rules page
(``docs/rules/surge-stones.md``), each worked out by hand."""

from __future__ import annotations

import pytest
from arbiter_games.base import IllegalAction, OptionsError
from arbiter_games.surge import (
    BLUE,
    ORANGE,
    SKIP,
    SURGE,
    PlaceStone,
    SurgeState,
    commitment,
    draw_order,
    format_board,
    parse_board,
    surge_step,
)

from tests.engines.test_surge_helpers import board_text, stones, surge

R = SURGE
ALL = [v for v in range(1, 11) for _ in range(2)]


def place(state: SurgeState, text: str) -> SurgeState:
    return R.apply(state, R.parse_action(text))


# ---- randomness anyone can check -----------------------------------------------------------------


def test_seed_example_from_rules_page():
    seed = bytes(range(32))
    assert draw_order(seed, BLUE) == [10, 7, 2, 5, 10, 2, 1, 4, 5, 7, 3, 8, 1, 9, 3, 6, 4, 8, 6, 9]
    assert draw_order(seed, ORANGE) == [7, 10, 2, 4, 10, 3, 5, 6, 9, 4, 5, 3, 1, 8, 2, 6, 8, 7, 9, 1]
    assert commitment(seed) == "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"


def test_new_game_deals_hands_from_the_seed_orders():
    seed = bytes(range(32))
    state = R.new_game(None, seed)
    assert state.seed == seed
    assert R.observe(state, 1).hand == (2, 7, 10)  # first three of blue's order, sorted
    assert R.observe(state, 2).hand == (2, 7, 10)
    assert R.observe(state, 1).supply == tuple(sorted(draw_order(seed, BLUE)[3:]))


def test_new_game_without_seed_draws_one():
    a, b = R.new_game(), R.new_game()
    assert a.seed is not None and len(a.seed) == 32 and a.seed != b.seed


def test_new_game_rejects_options_and_bad_seeds():
    with pytest.raises(OptionsError):
        R.new_game({"size": 7})
    R.new_game({})
    with pytest.raises(ValueError):
        R.new_game(None, b"short")
    with pytest.raises(ValueError):
        R.new_game(None, "0" * 32)  # type: ignore[arg-type]


def test_new_game_from_orders_checks_the_multiset():
    R.new_game_from_orders(ALL, list(reversed(ALL)))
    with pytest.raises(ValueError):
        R.new_game_from_orders([*ALL[:-1], 1], ALL)  # three 1s
    with pytest.raises(ValueError):
        R.new_game_from_orders(ALL, ALL[:19])
    with pytest.raises(ValueError):
        R.new_game_from_orders(ALL, [0, *ALL[1:]])


# ---- board text ----------------------------------------------------------------------------------


def test_board_text_rows_8_to_1_files_a_to_h():
    text = board_text({"a1": "B7", "h8": "O10", "c2": "B1"})
    assert text == (
        ". . . . . . . O10/. . . . . . . ./. . . . . . . ./. . . . . . . ./"
        ". . . . . . . ./. . . . . . . ./. . B1 . . . . ./B7 . . . . . . ."
    )
    assert format_board(parse_board(text)) == text


@pytest.mark.parametrize(
    "text",
    [
        "",
        ". . . . . . . ./" * 7 + ". . . . . . .",  # 7 squares in the last row
        ". . . . . . . ./" * 7 + ". . . . . . . B11",
        ". . . . . . . ./" * 7 + ". . . . . . . b1",
        ". . . . . . . ./" * 7 + ". . . . . . . B01",
        ". . . . . . . ./" * 7 + ".  . . . . . . .",
    ],
)
def test_bad_board_text_is_refused(text):
    with pytest.raises(ValueError):
        parse_board(text)


# ---- the surge: the worked example ---------------------------------------------------------------

WORKED_BEFORE = """\
. . . . B4 . . .
. . . O2 B6 . . .
. . . O3 . . . .
O9 . . B1 . O5 O5 O9
B2 . O9 B1 . . . .
. B1 B2 B1 . B5 B6 .
O3 O3 . B1 . . . B1
B5 B5 B1 B10 . . . ."""

WORKED_AFTER = """\
. . . . B6 . . .
. . . . . . . .
. . . O2 . . . .
O9 . . O3 . . O5 .
B2 B1 . B1 . . B6 O9
. . O9 B1 . . . B1
O3 O3 B2 B1 . . . .
B5 B5 B1 B1 . . . ."""


def test_worked_example_from_rules_page():
    before = parse_board(WORKED_BEFORE.replace("\n", "/"))
    after, scored = surge_step(before)
    assert format_board(after) == WORKED_AFTER.replace("\n", "/")
    assert scored == {"blue": 0, "orange": 10}


def test_surge_step_does_not_change_its_input():
    before = parse_board(WORKED_BEFORE.replace("\n", "/"))
    copy = list(before)
    surge_step(before)
    assert before == copy


# ---- the surge: free lines -----------------------------------------------------------------------


def test_free_blue_line_moves_up_whole():
    assert surge({"c3": "B4", "c4": "B2"}) == ({"c4": "B4", "c5": "B2"}, {"blue": 0, "orange": 0})


def test_free_orange_line_moves_down_whole():
    assert surge({"f7": "O4", "f8": "O9"})[0] == {"f6": "O4", "f7": "O9"}


def test_far_edge_front_leaves_no_score():
    # e: the blue 4 on the far row leaves (no score); the 6 behind it moves up.
    assert surge({"e7": "B6", "e8": "B4"}) == ({"e8": "B6"}, {"blue": 0, "orange": 0})
    assert surge({"d1": "O3", "d2": "O5"}) == ({"d1": "O5"}, {"blue": 0, "orange": 0})


def test_far_edge_lone_stone_leaves():
    assert surge({"a8": "B9", "b1": "O2"}) == ({}, {"blue": 0, "orange": 0})


def test_lines_of_one_player_are_separated_by_a_gap():
    # Two blue lines with one empty square between: both free, both move.
    assert surge({"a1": "B1", "a3": "B2"})[0] == {"a2": "B1", "a4": "B2"}


def test_back_to_back_lines_do_not_face():
    # An orange line below a blue line: they move apart.
    assert surge({"b4": "O3", "b5": "B3"})[0] == {"b3": "O3", "b6": "B3"}


# ---- the surge: facing pairs ---------------------------------------------------------------------


def test_gap_two_or_more_no_contest_both_move():
    # h: two squares apart, both move (and end adjacent: nothing is re-judged).
    assert surge({"h2": "B1", "h5": "O9"})[0] == {"h3": "B1", "h4": "O9"}
    assert surge({"h2": "B1", "h6": "O9"})[0] == {"h3": "B1", "h5": "O9"}


def test_gap_one_stronger_moves_into_the_gap():
    # g: 6 beats 5 one square apart: blue takes g4, orange stays.
    assert surge({"g3": "B6", "g5": "O5"})[0] == {"g4": "B6", "g5": "O5"}
    assert surge({"g3": "B4", "g5": "O5"})[0] == {"g3": "B4", "g4": "O5"}


def test_gap_one_stronger_line_moves_whole():
    after, _ = surge({"g1": "B1", "g2": "B1", "g3": "B6", "g5": "O7"})  # 8 vs 7
    assert after == {"g2": "B1", "g3": "B1", "g4": "B6", "g5": "O7"}


def test_clash_on_equal_strength_gap1():
    # f: 5 vs 5 one square apart: clash, both removed.
    assert surge({"f3": "B5", "f5": "O5"}) == ({}, {"blue": 0, "orange": 0})


def test_clash_on_equal_strength_gap0():
    assert surge({"a3": "B4", "a4": "O4"}) == ({}, {"blue": 0, "orange": 0})


def test_clash_removes_only_the_fronts_and_nothing_else_moves():
    # 2+3 vs 4+1: fronts f3 (B3) and f5 (O4) leave; f2 and f6 stay put.
    assert surge({"f2": "B2", "f3": "B3", "f5": "O4", "f6": "O1"})[0] == {"f2": "B2", "f6": "O1"}


def test_push_stronger_moves_forward_weaker_line_back():
    # 6 vs 2+1: blue moves to a4, the orange line goes back to a5-a6.
    assert surge({"a3": "B6", "a4": "O2", "a5": "O1"})[0] == {"a4": "B6", "a5": "O2", "a6": "O1"}


def test_push_by_orange_moves_blue_line_down():
    assert surge({"a2": "B1", "a3": "B2", "a4": "O7"})[0] == {"a1": "B1", "a2": "B2", "a3": "O7"}


def test_push_off_back_edge_scores():
    # The pushed line's back stone is on its owner's back row: it leaves, the pusher scores it.
    assert surge({"a1": "B3", "a2": "O5"}) == ({"a1": "O5"}, {"blue": 0, "orange": 3})
    after, scored = surge({"h6": "B9", "h7": "O1", "h8": "O4"})
    assert after == {"h7": "B9", "h8": "O1"}
    assert scored == {"blue": 4, "orange": 0}


def test_both_back_edges_in_one_column():
    after, scored = surge({"a1": "B2", "a2": "O5", "a7": "B8", "a8": "O1"})
    assert after == {"a1": "O5", "a8": "B8"}
    assert scored == {"blue": 1, "orange": 2}


def test_strength_counts_front_four_only():
    # d: five blue stones 10,1,1,1,1: strength 1+1+1+1 = 4 < 5, the 10 at the back does not count.
    after, scored = surge({"d1": "B10", "d2": "B1", "d3": "B1", "d4": "B1", "d5": "B1", "d6": "O5"})
    assert after == {"d1": "B1", "d2": "B1", "d3": "B1", "d4": "B1", "d5": "O5"}
    assert scored == {"blue": 0, "orange": 10}


def test_strength_front_four_of_orange_line():
    # Orange 1,1,1,1 in front of a 10 (rows 4-8): strength 4 < 5: blue pushes it off row 8.
    after, scored = surge({"c3": "B5", "c4": "O1", "c5": "O1", "c6": "O1", "c7": "O1", "c8": "O10"})
    assert after == {"c4": "B5", "c5": "O1", "c6": "O1", "c7": "O1", "c8": "O1"}
    assert scored == {"blue": 10, "orange": 0}


def test_blocked_push_judged_before_surge():
    # b: 5 beats 3 but b3 holds a blue stone: blocked; that free blue stone then moves up anyway.
    assert surge({"b1": "B5", "b2": "O3", "b3": "B1"})[0] == {"b1": "B5", "b2": "O3", "b4": "B1"}


def test_blocked_push_by_orange():
    # 6 beats 1 pushing down, but a3 holds an orange stone (a free line that moves down).
    assert surge({"a3": "O2", "a4": "B1", "a5": "O6"})[0] == {"a2": "O2", "a4": "B1", "a5": "O6"}


def test_two_pushes_into_same_square_both_fail():
    # a: 5 vs 3 upward and 9 vs 2 downward both aim at a3: none of the four lines moves.
    position = {"a1": "B5", "a2": "O3", "a4": "B2", "a5": "O9"}
    assert surge(position) == (position, {"blue": 0, "orange": 0})


def test_free_line_stays_when_square_ahead_is_taken_after_meetings():
    # c: 9 pushes the 2 back to c2; the free blue 1 on c1 stays because c2 is taken.
    assert surge({"c1": "B1", "c3": "B2", "c4": "O9"})[0] == {"c1": "B1", "c2": "B2", "c3": "O9"}


def test_free_line_behind_a_pusher_follows():
    assert surge({"a1": "B1", "a3": "B9", "a4": "O2"})[0] == {"a2": "B1", "a4": "B9", "a5": "O2"}


def test_columns_are_independent():
    position = {"a1": "B5", "a2": "O3", "b3": "B4", "b5": "O4"}
    after, _ = surge(position)
    assert after == {"a2": "B5", "a3": "O3"}


# ---- rounds --------------------------------------------------------------------------------------


def test_blue_places_first_in_round_1_then_alternates():
    state = R.new_game_from_orders(ALL, ALL)
    seen = []
    for _ in range(4):  # four rounds
        first = R.to_move(state)
        state = R.apply(state, R.legal_actions(state)[0])
        second = R.to_move(state)
        state = R.apply(state, R.legal_actions(state)[0])
        seen.append((first, second))
    assert seen == [(1, 2), (2, 1), (1, 2), (2, 1)]
    assert R.observe(state, 1).first_placer == BLUE  # round 5


def test_rounds_are_counted():
    state = R.new_game_from_orders(ALL, ALL)
    assert (state.round, state.rounds_played) == (1, 0)
    state = place(state, "1@a1")
    assert (state.round, state.rounds_played) == (1, 0)
    state = place(state, "1@a8")
    assert (state.round, state.rounds_played) == (2, 1)


def test_hand_is_first_three_and_refills_after_each_placement():
    blue = [5, 9, 1, 7, 2, 2, 3, 3, 4, 4, 6, 6, 8, 8, 10, 10, 1, 5, 7, 9]
    state = R.new_game_from_orders(blue, ALL)
    assert R.observe(state, 1).hand == (1, 5, 9)
    state = place(state, "9@c2")
    obs = R.observe(state, 1)
    assert obs.hand == (1, 5, 7)  # refilled at once with the next of the order
    assert obs.supply == tuple(sorted(blue[4:]))
    assert R.observe(state, 2).opponent_hand_size == 3
    assert R.observe(state, 2).opponent_supply_size == 16


def test_hand_shrinks_when_supply_is_empty():
    state = R.position("/".join([". . . . . . . ."] * 8), [4, 6, 8], [1, 2, 3])
    state = place(state, "8@a1")
    assert R.observe(state, 1).hand == (4, 6)
    assert R.observe(state, 1).supply == ()


def test_placement_is_face_down_until_the_reveal():
    state = R.new_game_from_orders(ALL, ALL)
    state = place(state, "1@c2")
    assert R.observe(state, 2).face_down == (("c2", BLUE, None),)
    assert R.observe(state, 1).face_down == (("c2", BLUE, 1),)
    assert R.observe(state, 2).face_up == ()
    state = place(state, "2@f7")
    # Revealed and surged: blue 1 moved c2 -> c3, orange 2 f7 -> f6.
    assert R.observe(state, 2).face_down == ()
    assert R.observe(state, 2).face_up == (("c3", BLUE, 1), ("f6", ORANGE, 2))


def test_legal_actions_every_distinct_value_times_every_empty_home_square():
    order = [3, 3, 8, 1, 1, 2, 2, 4, 4, 5, 5, 6, 6, 7, 7, 8, 9, 9, 10, 10]
    state = R.new_game_from_orders(order, ALL)
    legal = R.legal_actions(state)
    homes = [f + r for f in "abcdefgh" for r in "12"]
    assert legal == [PlaceStone(v, sq) for v in (3, 8) for sq in homes]
    state = place(state, "3@b1")
    state = place(state, "1@b8")  # surge: b1 -> b2, b8 -> b7
    state = R.apply(state, R.legal_actions(state)[0])  # orange first in round 2
    legal = R.legal_actions(state)
    assert PlaceStone(3, "b2") not in legal and PlaceStone(3, "b1") in legal
    assert len(legal) == 15 * len(set(R.observe(state, 1).hand))


def test_legal_actions_are_interned():
    state = R.new_game_from_orders(ALL, ALL)
    first = R.legal_actions(state)
    assert all(a is b for a, b in zip(first, R.legal_actions(state), strict=True))
    assert R.parse_action("1@a1") is first[0]


def test_must_place_when_able():
    state = R.new_game_from_orders(ALL, ALL)
    with pytest.raises(IllegalAction, match="must place"):
        R.apply(state, SKIP)
    assert SKIP not in R.legal_actions(state)


FULL_BLUE_HOME = "/".join([". . . . . . . ."] * 6 + ["B1 B2 B3 B4 B5 B6 B7 B8"] * 2)


def test_skip_only_action_when_no_home_square():
    state = R.position(FULL_BLUE_HOME, [9, 9, 10], [1, 2, 3], [10], [4])
    assert R.to_move(state) == 1
    assert R.legal_actions(state) == [SKIP]
    with pytest.raises(IllegalAction, match="occupied"):
        R.apply(state, PlaceStone(9, "a1"))
    state = R.apply(state, SKIP)
    assert R.to_move(state) == 2
    assert SKIP not in R.legal_actions(state)


def test_skip_only_action_when_hand_is_empty():
    state = R.position("/".join([". . . . . . . ."] * 8), [], [1, 2, 3])
    assert R.legal_actions(state) == [SKIP]
    with pytest.raises(IllegalAction, match="no stone in hand"):
        R.apply(state, PlaceStone(1, "a1"))
    state = R.apply(state, SKIP)
    assert R.to_move(state) == 2


def test_skipped_round_still_surges():
    state = R.position(board_text({"a3": "B5"}), [], [], round=2)
    state = R.apply(state, SKIP)  # orange (first in round 2)
    state = R.apply(state, SKIP)
    assert stones(state.cols) == {"a4": "B5"}
    assert not state.over


# ---- end and score -------------------------------------------------------------------------------


def test_end_a_board_empty_and_no_stones_left():
    state = R.position(board_text({"a8": "B9"}), [], [], scores=(4, 2))
    state = R.apply(R.apply(state, SKIP), SKIP)
    outcome = R.outcome(state)
    assert outcome is not None and outcome.reason == "board_empty"
    assert (outcome.winner_seat, outcome.winner_colour) == (1, BLUE)
    assert outcome.scores == {1: 4, 2: 2} and outcome.colour_scores == {BLUE: 4, ORANGE: 2}
    assert R.to_move(state) is None and R.legal_actions(state) == []


def test_no_end_while_stones_are_left_even_if_board_empties():
    state = R.position(board_text({"a8": "B9", "c5": "B3"}), [], [2, 3])
    state = R.apply(R.apply(state, SKIP), PlaceStone(3, "c7"))  # clash on c: 3 vs 3 one apart
    assert stones(state.cols) == {}
    assert R.outcome(state) is None and R.observe(state, 2).hand == (2,)


DEADLOCK = {"a1": "B5", "a2": "O3", "a4": "B2", "a5": "O9"}


def test_end_b_no_change_and_no_stones_left():
    state = R.position(board_text(DEADLOCK), [], [], scores=(3, 3))
    state = R.apply(R.apply(state, SKIP), SKIP)
    outcome = R.outcome(state)
    assert outcome is not None and outcome.reason == "no_change_no_stones"
    assert outcome.is_draw and outcome.winner_colour is None


def test_no_end_b_when_surge_changes_something():
    state = R.position(board_text({**DEADLOCK, "h3": "B1"}), [], [])
    state = R.apply(R.apply(state, SKIP), SKIP)
    assert R.outcome(state) is None


def test_end_c_nobody_placed_and_no_change():
    # Needs both home rows full and a frozen board: more stones than a game has (24 blue), so
    # unreachable in play; the state is built directly to test the guard itself.
    column = (10, 10, -1, 1, -2, -2, -3, -3)  # blue push blocked by a4, orange push blocked by a3
    state = R.new_game_from_orders(ALL, ALL)
    state.cols = [column] * 8
    state.empty = 0  # both home rows full
    assert R.legal_actions(state) == [SKIP]
    state = R.apply(state, SKIP)
    assert R.legal_actions(state) == [SKIP]
    state = R.apply(state, SKIP)
    outcome = R.outcome(state)
    assert outcome is not None and outcome.reason == "no_change_nobody_placed"
    assert state.cols == [column] * 8


def test_round_100_guard():
    state = R.position(board_text({"a3": "B5"}), [], [], round=99, scores=(1, 6))
    state = R.apply(R.apply(state, SKIP), SKIP)
    assert R.outcome(state) is None and state.round == 100
    state = R.apply(R.apply(state, SKIP), SKIP)
    outcome = R.outcome(state)
    assert outcome is not None and outcome.reason == "round_limit"
    assert outcome.winner_colour == ORANGE and outcome.details["rounds"] == 100
    assert stones(state.cols) == {"a5": "B5"}


def test_game_over_refuses_actions():
    state = R.position(board_text({"a8": "B9"}), [], [])
    state = R.apply(R.apply(state, SKIP), SKIP)
    with pytest.raises(IllegalAction, match="game is over"):
        R.apply(state, SKIP)


def test_scores_accumulate_across_rounds():
    state = R.position(board_text({"a1": "B3", "a2": "O5", "b1": "B2", "b3": "O6"}), [], [], scores=(0, 1))
    removed_before = R.removed(state)  # a made-up position: every stone not shown counts as removed
    state = R.apply(R.apply(state, SKIP), SKIP)
    # a: orange pushes B3 off: +3. b: 2 vs 6 one apart: orange moves to b2.
    assert state.scores == {BLUE: 0, ORANGE: 4}
    assert stones(state.cols) == {"a1": "O5", "b1": "B2", "b2": "O6"}
    state = R.apply(R.apply(state, SKIP), SKIP)
    # a: the orange 5 on a1 is on its far row: it leaves. b: 6 pushes B2 off: +2.
    assert state.scores == {BLUE: 0, ORANGE: 6}
    removed = R.removed(state)
    for colour, values in removed_before.items():
        for v in values:
            removed[colour].remove(v)
    assert removed == {BLUE: [2, 3], ORANGE: [5]}


def test_scores_by_seat_are_blue_then_orange():
    state = SURGE.position(". . . . . . . ./" * 7 + ". . . . . . . .", scores=(7, 3))
    assert SURGE.scores_by_seat(state) == {1: 7, 2: 3}
