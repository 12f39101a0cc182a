"""Building Torrent/Fravan positions by hand for tests."""

from __future__ import annotations

from arbiter_games.hexflank import CHAR_CELLS, FlankRules, FlankState


def position(
    rules: FlankRules, size: int, stones: dict[str, tuple[str, int]], action_count: int = 4
) -> FlankState:
    """A state with ``stones`` as {point: (char, event)}; chars B/W, b/w for locked stones.

    ``action_count`` even means Black moves next (no swap).
    """
    state = rules.new_game({"size": size})
    geo = state.geo
    for name, (char, event) in stones.items():
        p = geo.index[name]
        state.board[p] = CHAR_CELLS[char]
        state.events[p] = event
    state.empties = [i for i in range(geo.count) if not state.board[i]]
    state.next_event = max((e for _, e in stones.values()), default=0) + 1
    state.action_count = action_count
    return state


def cell(rules: FlankRules, state: FlankState, name: str) -> str:
    return {0: ".", 1: "B", 2: "W", 5: "b", 6: "w"}[state.board[state.geo.index[name]]]
