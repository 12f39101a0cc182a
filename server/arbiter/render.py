"""Terminal pictures of positions (plain text, optionally with ANSI colours)."""

from __future__ import annotations

from typing import Any

from .engines.hexflank import FlankRules, FlankState

_ANSI = {"B": "\x1b[1;30;47m", "W": "\x1b[1;37;40m", "O": "\x1b[1;33m", "U": "\x1b[1;34m"}
_RESET = "\x1b[0m"


def render_flank(rules: FlankRules, state: FlankState, colour: bool = False) -> str:
    """The hexagon with rows indented as on the rules page, then the scores."""
    geo = state.geo
    longest = max(len(r) for r in geo.rows)
    lines = []
    text = rules.board_text(state).split("/")
    for row, cells in zip(geo.rows, text, strict=True):
        row_no = geo.names[row[0]][1:]
        shown = []
        for ch in cells:
            sym = {".": "·", "B": "●", "W": "○", "b": "◆", "w": "◇"}[ch]
            if colour and ch != ".":
                sym = _ANSI[ch.upper()] + sym + _RESET
            shown.append(sym)
        lines.append(f"{row_no:>3} " + " " * (longest - len(row)) + " ".join(shown))
    scores = rules.scores(state)
    lines.append(
        f"black {scores['black']}  white {scores['white']}  to move: {state.colour_to_move}"
        + ("  (swapped)" if state.swapped else "")
        + ("  ◆/◇ locked" if rules.locks else "")
    )
    return "\n".join(lines)


def render(rules: Any, state: Any, colour: bool = False) -> str:
    if isinstance(rules, FlankRules):
        return render_flank(rules, state, colour)
    from .engines import surge

    return surge.render_text(state)
