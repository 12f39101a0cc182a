"""Decision: the cascade guard stops a stage that would repeat a position of this turn.

The rules never produced a cycle in testing, so the loop is constructed: the flip
verdict is replaced by one that always flips a chosen stone, which makes stage A
and stage B undo each other forever without the guard.
"""

from arbiter.engines import hexflank
from arbiter.engines.hexflank import Place
from arbiter.engines.torrent import TORRENT

from .flank_helpers import cell, position


def test_guard_stops_a_constructed_loop(monkeypatch):
    state = position(TORRENT, 5, {"e5": ("W", 1)})
    target = state.geo.index["e5"]

    def always_flip_e5(board, events, pairs_of_p, cell_value):
        return 1 if pairs_of_p is state.geo.axis_pairs[target] else 0

    monkeypatch.setattr(hexflank, "_flip_verdict", always_flip_e5)
    # Black f5: stage A flips e5 to black; stage B would flip it back to white, which is the
    # position right after the placement: the guard ends the cascade without applying it.
    TORRENT.apply_in_place(state, Place("f5"))
    assert cell(TORRENT, state, "e5") == "B"
    assert state.unsettled  # the next cascade re-examines every stone


def test_guard_cut_turn_is_followed_by_a_full_examination(monkeypatch):
    state = position(TORRENT, 5, {"e5": ("W", 1), "d5": ("B", 2)})
    state.unsettled = True  # as left by a guard: e5 (flanked by d5 and f5 below) was never examined
    state.board[state.geo.index["f5"]] = 1
    state.empties.remove(state.geo.index["f5"])
    TORRENT.apply_in_place(state, Place("a1" if "a1" in state.geo.index else "i1"))  # far away
    assert cell(TORRENT, state, "e5") == "B"
    assert not state.unsettled


def test_no_guard_in_normal_play():
    state = TORRENT.new_game({"size": 5})
    for text in ["e5", "d5", "c5", "f5", "g5"]:
        TORRENT.apply_in_place(state, TORRENT.parse_action(text))
        assert not state.unsettled
