"""Helpers for the Surge Stones tests (hand-written boards, an independent reference surge),
and tests of the helpers themselves.

Boards in tests are written as ``{square: "B7" | "O10"}``.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field

from arbiter_games.surge import EMPTY_COLUMN, FILES, Column, board_squares, format_board, surge_step


def board(stones: dict[str, str]) -> list[Column]:
    """The engine's board (8 column tuples) for ``{square: "B7"}``."""
    cells = [[0] * 8 for _ in range(8)]
    for square, text in stones.items():
        col, row = FILES.index(square[0]), int(square[1:]) - 1
        value = int(text[1:])
        assert text[0] in "BO" and 1 <= value <= 10 and cells[col][row] == 0
        cells[col][row] = value if text[0] == "B" else -value
    return [EMPTY_COLUMN if not any(c) else tuple(c) for c in cells]


def board_text(stones: dict[str, str]) -> str:
    return format_board(board(stones))


def stones(cols: Sequence[Sequence[int]]) -> dict[str, str]:
    """``{square: "B7"}`` for an engine board."""
    return {
        sq: ("B" if colour == "blue" else "O") + str(v) for sq, (colour, v) in board_squares(cols).items()
    }


def surge(before: dict[str, str]) -> tuple[dict[str, str], dict[str, int]]:
    """One surge of a hand-written board: (stones after, scored)."""
    after, scored = surge_step(board(before))
    return stones(after), scored


# ---- an independent, literal reading of the surge rules (slow, for cross-checking) ----------------


@dataclass
class _Line:
    owner: str  # "B" or "O"
    rows: list[int] = field(default_factory=list)  # ascending
    meeting: bool = False

    @property
    def forward(self) -> int:
        return 1 if self.owner == "B" else -1

    @property
    def front(self) -> int:
        return self.rows[-1] if self.owner == "B" else self.rows[0]

    @property
    def back(self) -> int:
        return self.rows[0] if self.owner == "B" else self.rows[-1]

    def strength(self, cells: Sequence[int]) -> int:
        in_front_order = sorted(self.rows, key=lambda r: -r * self.forward)
        return sum(abs(cells[r]) for r in in_front_order[:4])


def reference_column(cells: Sequence[int]) -> tuple[list[int], dict[str, int]]:
    """One surge of one column (``cells[0]`` is row 1; + blue, - orange), read off the rules page."""
    lines: list[_Line] = []
    for r, v in enumerate(cells):
        if v == 0:
            continue
        owner = "B" if v > 0 else "O"
        if lines and lines[-1].owner == owner and lines[-1].rows[-1] == r - 1:
            lines[-1].rows.append(r)
        else:
            lines.append(_Line(owner, [r]))
    moved: dict[int, int | None] = {}  # row -> new row, None = leaves the board
    scored = {"blue": 0, "orange": 0}
    pushes: list[tuple[int, _Line, _Line]] = []
    for below, above in itertools.pairwise(lines):
        if below.owner != "B" or above.owner != "O":
            continue
        gap = above.front - below.front - 1
        if gap >= 2:
            continue
        below.meeting = above.meeting = True
        sb, so = below.strength(cells), above.strength(cells)
        if sb == so:
            moved[below.front] = None
            moved[above.front] = None
            continue
        winner, loser = (below, above) if sb > so else (above, below)
        if gap == 1:
            for r in winner.rows:
                moved[r] = r + winner.forward
            continue
        behind = loser.back - loser.forward
        if not 0 <= behind <= 7:
            scored["blue" if winner.owner == "B" else "orange"] += abs(cells[loser.back])
            for r in winner.rows:
                moved[r] = r + winner.forward
            for r in loser.rows:
                moved[r] = None if r == loser.back else r - loser.forward
        elif cells[behind] == 0:
            pushes.append((behind, winner, loser))
        # else: blocked, nothing moves
    for target, winner, loser in pushes:
        if sum(1 for t, _, _ in pushes if t == target) > 1:
            continue  # both pushes into one square fail
        for r in winner.rows:
            moved[r] = r + winner.forward
        for r in loser.rows:
            moved[r] = r - loser.forward
    settled = [0] * 8
    for line in lines:
        if line.meeting:
            for r in line.rows:
                to = moved.get(r, r)
                if to is not None:
                    assert settled[to] == 0, "two stones meet on one square"
                    settled[to] = cells[r]
    after = list(settled)
    for line in lines:
        if line.meeting:
            continue
        ahead = line.front + line.forward
        if not 0 <= ahead <= 7:
            for r in line.rows:
                if r != line.front:
                    assert after[r + line.forward] == 0
                    after[r + line.forward] = cells[r]
        else:
            step = line.forward if settled[ahead] == 0 else 0
            for r in line.rows:
                assert after[r + step] == 0, "two stones meet on one square"
                after[r + step] = cells[r]
    return after, scored


def reference_surge(cols: Sequence[Sequence[int]]) -> tuple[str, dict[str, int]]:
    total = {"blue": 0, "orange": 0}
    out = []
    for col in cols:
        after, scored = reference_column(col)
        out.append(tuple(after))
        total["blue"] += scored["blue"]
        total["orange"] += scored["orange"]
    return format_board(out), total


# ---- tests of the helpers ------------------------------------------------------------------------


def test_board_helper_round_trips():
    position = {"a1": "B5", "c7": "O10", "h8": "B1"}
    assert stones(board(position)) == position
    assert board_text(position).split("/")[0] == ". . . . . . . B1"


def test_reference_reproduces_the_worked_example_column_d():
    after, scored = reference_column((10, 1, 1, 1, 1, -3, -2, 0))
    assert after == [1, 1, 1, 1, -3, -2, 0, 0]
    assert scored == {"blue": 0, "orange": 10}
