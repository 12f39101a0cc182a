"""Each rule and decision of torrent-fravan.md on a small hand-built position (size 5)."""

from arbiter_games.fravan import FRAVAN
from arbiter_games.hexflank import PASS, SWAP, Place
from arbiter_games.torrent import TORRENT

from .flank_helpers import cell, position


def play(rules, actions, size=5):
    state = rules.new_game({"size": size})
    for text in actions:
        rules.apply_in_place(state, rules.parse_action(text))
    return state


def row5(rules, state):
    return rules.board_text(state).split("/")[4]


# --- flank -----------------------------------------------------------------------------------


def test_worked_example_flip_at_distance_1():
    state = play(TORRENT, ["e5", "d5", "c5"])
    assert row5(TORRENT, state) == "..BBB...."
    assert TORRENT.scores(state) == {"black": 3, "white": 0}


def test_flank_at_distance_2_with_empty_points_between():
    # Black a5 and e5 flank c5 at distance 2 (b5, d5 empty).
    state = position(TORRENT, 5, {"a5": ("B", 1), "c5": ("W", 2)})
    TORRENT.apply_in_place(state, Place("e5"))
    assert cell(TORRENT, state, "c5") == "B"


def test_unequal_distances_do_not_flank():
    state = position(TORRENT, 5, {"a5": ("B", 1), "c5": ("W", 2)})
    TORRENT.apply_in_place(state, Place("f5"))  # distances 2 and 3
    assert cell(TORRENT, state, "c5") == "W"


def test_board_edge_never_flanks():
    # a5 is on the edge: black b5 on one side, nothing on the other.
    state = position(TORRENT, 5, {"a5": ("W", 1)})
    TORRENT.apply_in_place(state, Place("b5"))
    assert cell(TORRENT, state, "a5") == "W"


def test_first_stones_must_both_be_the_flanking_colour():
    # W at c5 between B a5 ... and W d5 then B e5: nearest on the right is white, no flank.
    state = position(TORRENT, 5, {"a5": ("B", 1), "c5": ("W", 2), "e5": ("W", 3)})
    TORRENT.apply_in_place(state, Place("b5"))
    assert cell(TORRENT, state, "c5") == "W"


# --- a turn ----------------------------------------------------------------------------------


def test_worked_example_placed_stone_flips_in_stage_b():
    state = play(TORRENT, ["e5", "pass", "c5", "d5"])
    assert row5(TORRENT, state) == "..BBB...."


def test_stage_a_before_stage_b_placed_stone_saved_by_its_own_flips():
    # White places d5 between black c5 and e5, but first (stage A) flips e5, flanked by white
    # d5 and f5; after that d5 is not flanked by black any more.
    state = position(TORRENT, 5, {"c5": ("B", 1), "e5": ("B", 2), "f5": ("W", 3)}, action_count=5)
    TORRENT.apply_in_place(state, Place("d5"))
    assert row5(TORRENT, state) == "..BWWW..."


def test_cascade_repeats_until_a_round_flips_nothing():
    # Row 5: . B W W B W . . .  and a black stone on c6.
    state = position(
        TORRENT,
        5,
        {"b5": ("B", 1), "c5": ("W", 2), "d5": ("W", 3), "e5": ("B", 4), "f5": ("W", 5), "c6": ("B", 6)},
    )
    # Black g5 flanks f5 with e5: one flip, then nothing more (c5 and d5 are not flanked).
    TORRENT.apply_in_place(state, Place("g5"))
    assert row5(TORRENT, state) == ".BWWBBB.."
    TORRENT.apply_in_place(state, PASS)
    # Black e4 flanks d5 with c6 on the (1,-1) axis: round 1 flips d5; then c5 is between black
    # b5 and black d5, and round 2 flips it; round 3 flips nothing.
    TORRENT.apply_in_place(state, Place("e4"))
    assert row5(TORRENT, state) == ".BBBBBB.."
    ev = {s.point: s.event for s in TORRENT.observe(state, 1).stones}
    assert ev["c5"] > ev["d5"] > ev["e4"]


def test_stage_flips_are_simultaneous_on_the_stage_start_board():
    # e4 (W) is flanked by d4 B and the new f4 B. e5 (W) is flanked by black d5/f5 (age 2)
    # and by white e4/e6 (age 6): it keeps its colour in round 1 even though e4 flips in the
    # same stage; only in round 2 (e4 now black) does the black flank alone flip it.
    state = position(
        TORRENT,
        5,
        {"d5": ("B", 1), "f5": ("B", 2), "d4": ("B", 3), "e5": ("W", 4), "e4": ("W", 5), "e6": ("W", 6)},
    )
    TORRENT.apply_in_place(state, Place("f4"))
    ev = {s.point: (s.colour, s.event) for s in TORRENT.observe(state, 1).stones}
    assert ev["e4"][0] == "black" and ev["e5"][0] == "black"
    assert ev["e5"][1] > ev["e4"][1] > ev["f4"][1]


# --- decision: recency (double flank) ---------------------------------------------------------


def test_double_flank_newer_enemy_flanking_flips():
    # e5 W: black d5/f5 (age 9), white e4/e6 (age 6). Black f4 makes e5 re-examined.
    stones = {"d5": ("B", 1), "f5": ("B", 9), "e4": ("W", 5), "e6": ("W", 6), "e5": ("W", 2)}
    state = position(TORRENT, 5, stones)
    TORRENT.apply_in_place(state, Place("f4"))
    assert cell(TORRENT, state, "e5") == "B"


def test_double_flank_newer_friendly_flanking_keeps():
    stones = {"d5": ("B", 1), "f5": ("B", 2), "e4": ("W", 5), "e6": ("W", 6), "e5": ("W", 3)}
    state = position(TORRENT, 5, stones)
    TORRENT.apply_in_place(state, Place("f4"))
    assert cell(TORRENT, state, "e5") == "W"


def test_double_flank_active_flanking_is_the_movers_new_friendly_flank():
    # Black's own stone e5 is flanked by white d5/f5 (old) and Black's new e4 completes a
    # black flank with e6: the newest flanking is friendly, so e5 stays black in stage B.
    stones = {"d5": ("W", 1), "f5": ("W", 2), "e5": ("B", 3), "e6": ("B", 4)}
    state = position(TORRENT, 5, stones)
    TORRENT.apply_in_place(state, Place("e4"))
    assert cell(TORRENT, state, "e5") == "B"


def test_enemy_flank_alone_flips_own_stone_in_stage_b():
    stones = {"d5": ("W", 1), "f5": ("W", 2), "e5": ("B", 3)}
    state = position(TORRENT, 5, stones)
    TORRENT.apply_in_place(state, Place("e4"))  # e5 is re-examined: only white flanks it
    assert cell(TORRENT, state, "e5") == "W"


# --- decision: Fravan's once-per-game lock ----------------------------------------------------


def test_fravan_double_flank_flip_locks_the_stone():
    stones = {"d5": ("B", 1), "f5": ("B", 9), "e4": ("W", 5), "e6": ("W", 6), "e5": ("W", 2)}
    state = position(FRAVAN, 5, stones)
    FRAVAN.apply_in_place(state, Place("f4"))
    assert cell(FRAVAN, state, "e5") == "b"
    assert any(s.point == "e5" and s.locked for s in FRAVAN.observe(state, 2).stones)


def test_torrent_has_no_lock():
    stones = {"d5": ("B", 1), "f5": ("B", 9), "e4": ("W", 5), "e6": ("W", 6), "e5": ("W", 2)}
    state = position(TORRENT, 5, stones)
    TORRENT.apply_in_place(state, Place("f4"))
    assert cell(TORRENT, state, "e5") == "B"


def test_fravan_locked_stone_never_flips_while_doubly_flanked():
    # Same as the flip above, but e5 is already locked: the newer black flanking cannot flip it.
    stones = {"d5": ("B", 1), "f5": ("B", 9), "e4": ("W", 5), "e6": ("W", 6), "e5": ("w", 2)}
    state = position(FRAVAN, 5, stones)
    FRAVAN.apply_in_place(state, Place("f4"))
    assert cell(FRAVAN, state, "e5") == "w"


def test_fravan_locked_stone_flips_by_enemy_alone_and_stays_locked():
    state = position(FRAVAN, 5, {"d5": ("B", 1), "e5": ("w", 2)})
    FRAVAN.apply_in_place(state, Place("f5"))
    assert cell(FRAVAN, state, "e5") == "b"


def test_fravan_kept_stone_does_not_lock():
    stones = {"d5": ("B", 1), "f5": ("B", 2), "e4": ("W", 5), "e6": ("W", 6), "e5": ("W", 3)}
    state = position(FRAVAN, 5, stones)
    FRAVAN.apply_in_place(state, Place("f4"))
    assert cell(FRAVAN, state, "e5") == "W"


def test_fravan_flip_by_enemy_alone_does_not_lock():
    state = position(FRAVAN, 5, {"d5": ("B", 1), "e5": ("W", 2)})
    FRAVAN.apply_in_place(state, Place("f5"))
    assert cell(FRAVAN, state, "e5") == "B"


def test_lock_is_in_board_text():
    state = position(FRAVAN, 5, {"e5": ("w", 1), "d5": ("B", 2)})
    assert FRAVAN.board_text(state).split("/")[4] == "...Bw...."


# --- pie rule --------------------------------------------------------------------------------


def test_swap_gives_second_player_black_and_first_player_moves_next_as_white():
    state = play(TORRENT, ["e5", "swap"])
    assert state.swapped
    assert TORRENT.to_move(state) == 1
    assert state.colour_to_move == "white"
    assert state.colour_of(2) == "black" and state.colour_of(1) == "white"
    TORRENT.apply_in_place(state, Place("d5"))
    assert cell(TORRENT, state, "d5") == "W"
    assert TORRENT.to_move(state) == 2 and state.colour_to_move == "black"


def test_swap_is_not_a_pass():
    state = play(TORRENT, ["e5", "swap", "pass"])
    assert not state.over
    TORRENT.apply_in_place(state, PASS)
    assert state.over


def test_second_player_may_play_on_as_white():
    state = play(TORRENT, ["e5", "d4"])
    assert not state.swapped and state.colour_of(2) == "white"
    assert SWAP not in TORRENT.legal_actions(state)


def test_first_player_must_place():
    legal = TORRENT.legal_actions(TORRENT.new_game({"size": 5}))
    assert all(isinstance(a, Place) for a in legal) and len(legal) == 61


# --- end and score ---------------------------------------------------------------------------


def test_two_passes_end_the_game():
    state = play(TORRENT, ["e5", "pass", "pass"])
    assert state.over and TORRENT.to_move(state) is None and TORRENT.legal_actions(state) == []


def test_full_board_leaves_only_pass():
    state = position(TORRENT, 5, {name: ("B", 1) for name in TORRENT.new_game({"size": 5}).geo.names})
    assert TORRENT.legal_actions(state) == [PASS]


def test_territory_only_at_equidistant_midpoints():
    # B . . B gives nothing; B . . . B gives the middle point.
    state = position(TORRENT, 5, {"a5": ("B", 1), "d5": ("B", 2)})
    assert TORRENT.scores(state)["black"] == 2
    state = position(TORRENT, 5, {"a5": ("B", 1), "e5": ("B", 2)})
    assert TORRENT.scores(state)["black"] == 3


def test_territory_flanked_by_both_colours_counts_for_nobody():
    # e5 empty: black d5/f5 on one axis, white e4/e6 on another.
    state = position(TORRENT, 5, {"d5": ("B", 1), "f5": ("B", 2), "e4": ("W", 3), "e6": ("W", 4)})
    assert TORRENT.scores(state) == {"black": 2, "white": 2}


def test_tie_goes_to_first_passer_black():
    state = play(TORRENT, ["e5", "d5", "pass", "pass"])
    assert TORRENT.scores(state)["black"] == TORRENT.scores(state)["white"]
    outcome = TORRENT.outcome(state)
    assert (
        outcome.winner_colour == "black"
        and outcome.winner_seat == 1
        and outcome.details["tie_break_first_pass"]
    )


def test_tie_goes_to_first_passer_white_after_swap():
    # After the swap seat 1 plays White and passes first; 2 stones each, no territory.
    state = play(TORRENT, ["e5", "swap", "pass", "a7", "i1", "pass", "a5", "pass", "pass"])
    assert TORRENT.scores(state) == {"black": 2, "white": 2}
    outcome = TORRENT.outcome(state)
    assert outcome.winner_colour == "white" and outcome.winner_seat == 1


def test_higher_score_wins_and_results_name_seat_and_colour():
    state = play(TORRENT, ["e5", "swap", "pass", "pass"])
    outcome = TORRENT.outcome(state)
    assert outcome.winner_colour == "black" and outcome.winner_seat == 2
    assert outcome.scores == {2: 1, 1: 0}
    assert outcome.reason == "two_passes"


def test_scores_by_seat_follow_the_swap():
    state = play(TORRENT, ["e5", "swap", "a7"])
    # Seat 2 took Black (e5); seat 1 plays White (a7).
    assert TORRENT.scores_by_seat(state) == {2: 1, 1: 1}
    TORRENT.apply_in_place(state, Place("b6"))  # Black b6 (no flank, no territory)
    assert TORRENT.scores_by_seat(state) == {2: 2, 1: 1}
