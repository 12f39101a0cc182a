"""Decision: the cascade guard stops a stage that would repeat a position of this turn."""

from arbiter_games import hexflank
from arbiter_games.hexflank import Place
from arbiter_games.torrent import TORRENT

from .flank_helpers import cell, position

# A real Torrent-5 game whose last placement (White f3) starts a flip cycle: the stages after it
# keep turning the same stones around row 2 back and forth. Found by a random search and checked
# against a separate implementation that re-examines every stone at every stage.
CYCLE_GAME = (
    "c7 swap g5 e9 h3 a8 i5 d6 b7 e8 f1 c4 h4 h5 h2 f5 c3 c9 e4 b5 c8 e3 b4 i4 c6 i3 a9 f2 f6 g1 "
    "d9 a5 pass g2 a6 f7 e5 b8 a7 g3 d7 b9 f8 e2 b6 pass"
).split()


def test_guard_stops_a_natural_cycle():
    state = TORRENT.new_game({"size": 5})
    for text in CYCLE_GAME:
        TORRENT.apply_in_place(state, TORRENT.parse_action(text))
    assert not state.unsettled
    seen = []
    real_verdict = hexflank._flip_verdict

    def watch(board, events, pairs_of_p, cell_value):
        verdict = real_verdict(board, events, pairs_of_p, cell_value)
        if verdict:
            seen.append(bytes(board))
        return verdict

    hexflank._flip_verdict = watch
    try:
        TORRENT.apply_in_place(state, Place("f3"))
    finally:
        hexflank._flip_verdict = real_verdict
    stage_boards = list(dict.fromkeys(seen))  # the positions that flipping stages started from
    assert len(stage_boards) >= 4  # the cascade went round several stages ...
    assert state.unsettled  # ... until the next one would have repeated a position of this turn
    assert bytes(state.board) == stage_boards[-1]  # and that stage was not applied
    assert TORRENT.board_text(state) == (
        "WBBBB/WWB.BW/WWWW.B./WWWW.B../BW..WWWWW/WB.W..WB/W.BWBBB/.BBWW./.WB.."
    )
    # The game goes on; the next cascade re-examines every stone.
    TORRENT.apply_in_place(state, Place("d8"))
    assert not state.over


def test_guard_stops_a_constructed_loop(monkeypatch):
    """A verdict that always flips one stone makes stage A and stage B undo each other forever."""
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


def test_guard_cut_turn_is_followed_by_a_full_examination():
    # As a guard would leave it: e5 (white, flanked by black d5 and f5) was never examined.
    state = position(TORRENT, 5, {"e5": ("W", 1), "d5": ("B", 2), "f5": ("B", 3)})
    state.unsettled = True
    TORRENT.apply_in_place(state, Place("i1"))  # far from e5
    assert cell(TORRENT, state, "e5") == "B"
    assert not state.unsettled


def test_no_guard_in_normal_play():
    state = TORRENT.new_game({"size": 5})
    for text in ["e5", "d5", "c5", "f5", "g5"]:
        TORRENT.apply_in_place(state, TORRENT.parse_action(text))
        assert not state.unsettled
