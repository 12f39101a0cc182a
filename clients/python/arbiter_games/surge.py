"""Surge Stones: the rules engine (rules: ``docs/rules/surge-stones.md``).

Two players, Blue (seat 1) and Orange (seat 2), 8x8 board. Each round both players place one stone
face-down on an empty square of their home rows (Blue rows 1-2, Orange rows 7-8), then all stones are
revealed and every line of stones surges forward one square (see :func:`surge_step`).

Internal board representation (also what :func:`parse_board` returns and :func:`format_board`
takes): a sequence of 8 *columns* ``a``..``h``; each column is a tuple of 8 ints for rows 1..8
(index 0 is row 1). A cell is ``0`` (empty), ``+v`` (a blue stone of value ``v``) or ``-v`` (an
orange stone of value ``v``). Columns are independent in a surge; how a column surges is cached
(see "The surge" below), which makes a round a few table look-ups.

Players are indexed 0 (Blue, seat 1) and 1 (Orange, seat 2) internally.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import struct
from bisect import insort
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import chain
from operator import itemgetter, mod
from typing import TYPE_CHECKING, Any, Final

from .base import IllegalAction, MalformedAction, OptionsError, Outcome, Rules, cut_short, shown_input

BLUE: Final = "blue"
ORANGE: Final = "orange"
COLOURS: Final = (BLUE, ORANGE)
_NAMES: Final = ("Blue", "Orange")

#: The stones each player owns at the start: two of each value 1..10.
STONES: Final[tuple[int, ...]] = tuple(v for v in range(1, 11) for _ in range(2))
HAND_SIZE: Final = 3
ROUND_LIMIT: Final = 100

FILES: Final = "abcdefgh"

Column = tuple[int, ...]
Board = tuple[Column, ...]

EMPTY_COLUMN: Final[Column] = (0,) * 8

# --------------------------------------------------------------------------------------------------
# Squares
# --------------------------------------------------------------------------------------------------

SQUARES: Final[tuple[str, ...]] = tuple(f + str(r + 1) for f in FILES for r in range(8))
"""All square names in index order ``col * 8 + row`` (a1, a2, ..., a8, b1, ...)."""

_SQ_INDEX: Final[dict[str, int]] = {name: i for i, name in enumerate(SQUARES)}

#: Home square indices (col * 8 + row) of each player, in square-name order.
_HOME: Final[tuple[tuple[int, ...], tuple[int, ...]]] = (
    tuple(c * 8 + r for c in range(8) for r in (0, 1)),
    tuple(c * 8 + r for c in range(8) for r in (6, 7)),
)
# The state keeps one int, the mask of empty home squares: bit k (0..15) is Blue's k-th home
# square in square-name order (a1, a2, b1, b2, ...), bit 16 + k Orange's (a7, a8, b7, ...).
# Column c owns bits 2c, 2c+1 (Blue) and 16+2c, 17+2c (Orange).

#: square name -> (col, row, bit in the mask of empty home squares), for each player's home squares.
_HOME_CR: Final[tuple[dict[str, tuple[int, int, int]], ...]] = tuple(
    {SQUARES[i]: (i >> 3, i & 7, 1 << (16 * p + k)) for k, i in enumerate(_HOME[p])} for p in (0, 1)
)
ALL_HOME_EMPTY: Final = 0xFFFF_FFFF


def _column_mask(col: Column, c: int) -> int:
    """Column ``col``'s bits of the mask of empty home squares, were it column ``c``."""
    bits = (col[0] == 0) | (col[1] == 0) << 1 | (col[6] == 0) << 16 | (col[7] == 0) << 17
    return bits << 2 * c


def _home_mask(cols: Sequence[Column]) -> int:
    return sum(_column_mask(col, c) for c, col in enumerate(cols))


def square_name(col: int, row: int) -> str:
    """``square_name(2, 1) == "c2"`` (col and row counted from 0)."""
    return FILES[col] + str(row + 1)


# --------------------------------------------------------------------------------------------------
# Actions
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PlaceStone:
    """Place the stone ``value`` face-down on ``square`` (text form ``7@c2``)."""

    value: int
    square: str


@dataclass(frozen=True, slots=True)
class Skip:
    """Skip this placement (text form ``skip``); legal only when the player cannot place."""


SKIP: Final = Skip()
SurgeAction = PlaceStone | Skip

#: Interned actions: ``_ACT[value][square index]`` for value 1..10 and every square.
_ACT: Final[tuple[tuple[PlaceStone, ...], ...]] = (
    (),
    *tuple(tuple(PlaceStone(v, name) for name in SQUARES) for v in range(1, 11)),
)


def _legal_table(p: int, v: int, half: int) -> tuple[tuple[PlaceStone, ...], ...]:
    """For each 8-bit mask of empty squares in one half (a-d or e-h) of a player's home squares:
    the actions placing ``v`` on them, in square order."""
    squares = _HOME[p][8 * half : 8 * half + 8]
    return tuple(tuple(_ACT[v][i] for k, i in enumerate(squares) if m >> k & 1) for m in range(256))


#: ``_LEGAL[player][value]`` = (table for columns a-d, table for e-h) as in :func:`_legal_table`.
_LEGAL: Final = tuple(
    (((), ()), *tuple((_legal_table(p, v, 0), _legal_table(p, v, 1)) for v in range(1, 11))) for p in (0, 1)
)

#: ``_LEGAL_LOW[player][m][value]`` = ``_LEGAL[player][value][0][m]`` (and ``_LEGAL_HIGH`` for e-h).
_LEGAL_LOW: Final = tuple(
    tuple(tuple(t[0][m] if t[0] else () for t in _LEGAL[p]) for m in range(256)) for p in (0, 1)
)
_LEGAL_HIGH: Final = tuple(
    tuple(tuple(t[1][m] if t[1] else () for t in _LEGAL[p]) for m in range(256)) for p in (0, 1)
)

_NUMBER = r"(?:0|[1-9][0-9]{0,19})"
_ACTION_RE: Final = re.compile(rf"({_NUMBER})@([a-z])({_NUMBER})", re.ASCII)


_cut = cut_short
_shown = shown_input


def _parse_error(text: str) -> MalformedAction:
    """The most helpful explanation of why ``text`` is not an action."""
    shown = repr(text) if len(text) <= 40 else repr(text[:40]) + "..."
    usage = "an action is VALUE@SQUARE (e.g. 7@c2) or skip"
    if text.strip() != text:
        return MalformedAction(f"cannot parse {shown}: no spaces around the action; {usage}")
    if text.lower() == "skip":
        return MalformedAction(f"cannot parse {shown}: write skip in lower case")
    if text.count("@") != 1:
        return MalformedAction(f"cannot parse {shown}: {usage}")
    value, square = text.split("@")
    if not re.fullmatch(r"[0-9]+", value, re.ASCII):
        if re.fullmatch(r"[A-Za-z][0-9]+", value, re.ASCII):
            return MalformedAction(f"cannot parse {shown}: the value comes first, then the square (7@c2)")
        return MalformedAction(f"cannot parse {shown}: the value must be a decimal number; {usage}")
    if len(value) > 1 and value[0] == "0":
        digits = _cut(value.lstrip("0") or "0")
        return MalformedAction(f"cannot parse {shown}: write the value without leading zeros ({digits}@...)")
    if len(value) > 20:
        return MalformedAction(f"cannot parse {shown}: the value has too many digits")
    m = re.fullmatch(r"([A-Za-z])([0-9]+)", square, re.ASCII)
    if m is None:
        return MalformedAction(f"cannot parse {shown}: the square must be a letter and a row number like c2")
    letter, row = m.groups()
    if letter.isupper():
        return MalformedAction(
            f"cannot parse {shown}: write the square in lower case ({_cut(letter.lower() + row)})"
        )
    if len(row) > 1 and row[0] == "0":
        square = _cut(letter + (row.lstrip("0") or "0"))
        return MalformedAction(f"cannot parse {shown}: write the row without leading zeros ({square})")
    return MalformedAction(f"cannot parse {shown}: the row number has too many digits")


def parse_action(text: str) -> SurgeAction:
    """Parse ``"7@c2"`` into ``PlaceStone(7, "c2")`` and ``"skip"`` into :data:`SKIP`.

    Malformed (raises :class:`MalformedAction`) means the text does not follow the syntax
    ``VALUE@SQUARE`` or ``skip`` exactly: VALUE is a decimal number without leading zeros (at most
    20 digits), SQUARE is one lower-case letter followed by a row number without leading zeros; no
    spaces, ``skip`` in lower case. So ``07@c2``, ``c2@7``, ``7@C2``, ``A1``, ``7@c02``, ``7 @c2``
    and ``SKIP`` are malformed.

    A well-formed action naming a value outside 1..10 (``11@c2``, ``0@c2``) or a square outside
    a1..h8 (``7@i9``, ``7@a0``) parses; :meth:`SurgeRules.apply` then refuses it as *illegal*.
    """
    if text == "skip":
        return SKIP
    if not isinstance(text, str):
        raise MalformedAction(f"an action must be text, not {type(text).__name__}")
    m = _ACTION_RE.fullmatch(text)
    if m is None:
        raise _parse_error(text)
    value = int(m.group(1))
    square = m.group(2) + m.group(3)
    index = _SQ_INDEX.get(square)
    if index is not None and 1 <= value <= 10:
        return _ACT[value][index]
    return PlaceStone(value, square)


def format_action(action: SurgeAction) -> str:
    """The text form of an action: ``7@c2`` or ``skip`` (inverse of :func:`parse_action`)."""
    if isinstance(action, PlaceStone):
        return f"{action.value}@{action.square}"
    if isinstance(action, Skip):
        return "skip"
    raise MalformedAction(f"not a Surge Stones action: {_shown(action)}")


# --------------------------------------------------------------------------------------------------
# Draw orders from a seed
# --------------------------------------------------------------------------------------------------


def commitment(seed: bytes) -> str:
    """``SHA-256(seed)`` in lower-case hex: sent to both players before the first placement."""
    return hashlib.sha256(seed).hexdigest()


def draw_order(seed: bytes, player: str) -> list[int]:
    """The draw order of ``player`` (``"blue"`` or ``"orange"``) for a match seed, per the rules.

    Byte stream ``SHA-256(seed || player || counter)`` for counter 0, 1, ... (4-byte big-endian),
    read as 8-byte big-endian integers ``x``; Fisher-Yates from i = 19 down to 1 with
    ``j = x mod (i + 1)`` on ``[1, 1, 2, 2, ..., 10, 10]``.
    """
    if player not in COLOURS:
        raise ValueError(f"player must be 'blue' or 'orange', not {player!r}")
    base = hashlib.sha256(bytes(seed) + player.encode("ascii"))
    blocks = []
    for counter in _COUNTERS:  # 19 draws of 8 bytes: the first 5 blocks of 32 bytes
        block = base.copy()
        block.update(counter)
        blocks.append(block.digest())
    order = list(STONES)
    for i, j in zip(_SWAP_I, map(mod, _DRAWS.unpack_from(b"".join(blocks)), _SWAP_SIZES), strict=True):
        order[i], order[j] = order[j], order[i]
    return order


_DRAWS: Final = struct.Struct(">19Q")
_SWAP_I: Final = tuple(range(19, 0, -1))
_SWAP_SIZES: Final = tuple(i + 1 for i in _SWAP_I)  # number of candidates for j
_COUNTERS: Final = tuple(counter.to_bytes(4, "big") for counter in range(5))


def _check_order(order: Sequence[int], player: str) -> tuple[int, ...]:
    values = tuple(order)
    if len(values) != 20 or any(type(v) is not int for v in values) or sorted(values) != list(STONES):
        raise ValueError(
            f"{player} draw order must be a permutation of two of each value 1..10, got {list(values)!r}"
        )
    return values


# --------------------------------------------------------------------------------------------------
# Board text
# --------------------------------------------------------------------------------------------------


def _cell_text(v: int) -> str:
    if v == 0:
        return "."
    return ("B" if v > 0 else "O") + str(abs(v))


def format_board(board: Sequence[Sequence[int]]) -> str:
    """Board text: rows 8 down to 1 joined by ``/``; squares a..h separated by one space;
    ``.`` empty, ``B7`` a blue 7, ``O10`` an orange 10. ``board`` is 8 columns of 8 cells."""
    return "/".join(" ".join(_cell_text(board[c][r]) for c in range(8)) for r in range(7, -1, -1))


_CELL_RE: Final = re.compile(r"\.|([BO])(10|[1-9])", re.ASCII)


def parse_board(text: str) -> list[Column]:
    """Parse board text (see :func:`format_board`) into 8 column tuples. Raises ``ValueError``."""
    rows = text.split("/")
    if len(rows) != 8:
        raise ValueError(f"board text must have 8 rows separated by '/', got {len(rows)}")
    cells = [[0] * 8 for _ in range(8)]
    for k, row_text in enumerate(rows):
        row = 7 - k
        tokens = row_text.split(" ")
        if len(tokens) != 8:
            raise ValueError(f"row {row + 1} must have 8 squares separated by one space: {row_text!r}")
        for col, token in enumerate(tokens):
            m = _CELL_RE.fullmatch(token)
            if m is None:
                raise ValueError(f"bad square {token!r} in row {row + 1} (use ., B1..B10 or O1..O10)")
            if token != ".":
                v = int(m.group(2))
                cells[col][row] = v if m.group(1) == "B" else -v
    return [_intern_column(tuple(c)) for c in cells]


def _intern_column(col: Column) -> Column:
    return EMPTY_COLUMN if col == EMPTY_COLUMN else col


def board_squares(board: Sequence[Sequence[int]]) -> dict[str, tuple[str, int]]:
    """``{square: (colour, value)}`` for every stone on ``board``."""
    out: dict[str, tuple[str, int]] = {}
    for c in range(8):
        for r in range(8):
            v = board[c][r]
            if v:
                out[square_name(c, r)] = (BLUE, v) if v > 0 else (ORANGE, -v)
    return out


# --------------------------------------------------------------------------------------------------
# The surge
# --------------------------------------------------------------------------------------------------
#
# A column's surge depends on its stones only through (1) the sign pattern (who holds which
# square: lines, facing pairs, gaps, blocked squares, edges) and (2) the outcome of each contest
# (a facing pair at most one square apart: which side is stronger, or equal). ``_resolve`` applies
# the rules to such a pattern and outcomes and says where every stone goes. The result is cached
# as a *plan* per (pattern, outcomes): at most 3**8 patterns and 3**4 outcomes each, so the cache
# is bounded and a surge is a few table look-ups per column.

_REMOVED: Final = -1  # leaves the board, nobody scores (clash, far edge)
_SCORED: Final = -2  # pushed off its owner's back edge: the pusher scores its value

Line = tuple[int, int, int]  # (sign: 1 blue / 2 orange, lowest row, highest row)


def _lines(signs: Sequence[int]) -> list[Line]:
    """Maximal runs of one player's stones on adjacent squares, bottom to top."""
    lines: list[Line] = []
    r = 0
    while r < 8:
        s = signs[r]
        if s == 0:
            r += 1
            continue
        lo = r
        while r < 7 and signs[r + 1] == s:
            r += 1
        lines.append((s, lo, r))
        r += 1
    return lines


def _contests(lines: Sequence[Line]) -> list[tuple[int, int, int]]:
    """Facing pairs at most one square apart, bottom to top: (index of the blue line, of the orange
    line, gap). A blue line faces the orange line directly above it."""
    out = []
    for i in range(len(lines) - 1):
        (s1, _, b_hi), (s2, o_lo, _) = lines[i], lines[i + 1]
        if s1 == 1 and s2 == 2 and o_lo - b_hi - 1 <= 1:
            out.append((i, i + 1, o_lo - b_hi - 1))
    return out


def _resolve(signs: Sequence[int], outcomes: Sequence[int]) -> list[int | None]:  # noqa: C901 - the rules' surge, step by step
    """Where each stone goes in one surge: ``dest[row]`` is the new row, :data:`_REMOVED`,
    :data:`_SCORED`, or ``None`` for an empty square.

    ``signs[row]`` is 0 (empty), 1 (blue) or 2 (orange); ``outcomes[k]`` is the result of the
    k-th contest (see :func:`_contests`): 1 the blue line is stronger, -1 the orange line, 0 equal.
    Everything is judged on the board as the surge begins.
    """
    lines = _lines(signs)
    n = len(lines)
    free = [True] * n
    shift = [0] * n  # +1 up, -1 down, for lines settled in a meeting
    gone: dict[int, int] = {}  # row -> _REMOVED / _SCORED
    pushes: list[tuple[int, int, int, int]] = []  # (target row, blue line, orange line, direction)
    for (i, j, gap), outcome in zip(_contests(lines), outcomes, strict=True):
        free[i] = free[j] = False
        _, b_lo, b_hi = lines[i]
        _, o_lo, o_hi = lines[j]
        if outcome == 0:  # clash: both front stones leave; nothing else in the two lines moves
            gone[b_hi] = gone[o_lo] = _REMOVED
        elif gap == 1:  # the stronger moves forward into the gap; the weaker stays
            if outcome > 0:
                shift[i] = 1
            else:
                shift[j] = -1
        elif outcome > 0:  # blue pushes: blue moves up 1, the orange line is pushed up 1
            if o_hi == 7:  # the pushed line's back stone is on Orange's back row: off the edge
                gone[7] = _SCORED
                shift[i] = shift[j] = 1
            elif signs[o_hi + 1] == 0:  # otherwise the push is blocked (judged before the surge)
                pushes.append((o_hi + 1, i, j, 1))
        else:  # orange pushes: orange moves down 1, the blue line is pushed down 1
            if b_lo == 0:
                gone[0] = _SCORED
                shift[i] = shift[j] = -1
            elif signs[b_lo - 1] == 0:
                pushes.append((b_lo - 1, i, j, -1))
    targets = [t for t, _, _, _ in pushes]
    for target, i, j, direction in pushes:
        if targets.count(target) == 1:  # two losing lines aimed at one square: both pushes fail
            shift[i] = shift[j] = direction

    dest: list[int | None] = [None] * 8
    taken = [False] * 8  # the board once the meetings are settled
    for k in range(n):
        if not free[k]:
            _, lo, hi = lines[k]
            for row in range(lo, hi + 1):
                if row in gone:
                    dest[row] = gone[row]
                else:
                    dest[row] = row + shift[k]
                    taken[row + shift[k]] = True
    for k in range(n):  # free lines move forward 1 if the square ahead is empty now
        if free[k]:
            s, lo, hi = lines[k]
            if s == 1:
                front, step = hi, 1
            else:
                front, step = lo, -1
            ahead = front + step
            if ahead < 0 or ahead > 7:  # far edge: the front leaves (no score), the rest moves
                move = step
                dest[front] = _REMOVED
            else:
                move = 0 if taken[ahead] else step
            for row in range(lo, hi + 1):
                if dest[row] is None:
                    dest[row] = row + move
    return dest


# A plan: how a column with a given pattern and contest outcomes surges:
# (getter of the new column from ``col + (0,)`` or None when it ends empty, changed,
#  row whose orange stone Blue scores or -1, row whose blue stone Orange scores or -1,
#  for each column position c the column's bits of the mask of empty home squares after the surge)
#  then the tail of the :data:`_results` entry when nobody scores, see :func:`_surge_result`)
_Plan = tuple[Callable[[Column], Column] | None, bool, int, int, tuple[int, ...], tuple[Any, ...]]
_PatternInfo = tuple[tuple[tuple[int, int, int, int], ...], list[_Plan | None], tuple[int, ...]]
# The surge of one column: (new column, changed, blue scores, orange scores, mask bits by position)
_Result = tuple[Column, bool, int, int, tuple[int, ...]]

_PACK: Final = struct.Struct("8b").pack
#: bytes.translate table from a packed cell (signed byte) to its sign code 0 / 1 blue / 2 orange.
_SIGN_CODES: Final = bytes([0] + [1] * 127 + [2] * 128)
_PAD: Final[Column] = (0,)
#: Plans by sign pattern: at most 3**8 patterns, each with at most 3**4 outcome combinations.
_patterns: dict[bytes, _PatternInfo] = {}
#: Surge results by column, in front of the plans: play keeps meeting the same columns. Emptied
#: when it reaches its limit (about 10 MB with random play).
#: Each entry: (the column after the surge, flags (1: the surge changes the column, 2: somebody
#: scores), (blue scores, orange scores) or None, then for each column position a..h the column's
#: bits of the mask of empty home squares after the surge). Empty columns have entries too.
_Entry = tuple[Any, ...]
_results: dict[Column, _Entry] = {}
_RESULTS_LIMIT: Final = 1 << 15


def _pattern_info(pattern: bytes) -> _PatternInfo:
    """Contests of a sign pattern as strength slices ``(blue start, blue end, orange start, orange
    end)`` over the front four stones of each line, and an empty table of plans by outcomes."""
    lines = _lines(pattern)
    slices = []
    for i, j, _ in _contests(lines):
        _, b_lo, b_hi = lines[i]
        _, o_lo, o_hi = lines[j]
        slices.append((max(b_lo, b_hi - 3), b_hi + 1, o_lo, min(o_hi, o_lo + 3) + 1))
    info: _PatternInfo = (tuple(slices), [None] * 3 ** len(slices), tuple(pattern))
    _patterns[pattern] = info
    return info


def _make_plan(signs: tuple[int, ...], index: int, contests: int) -> _Plan:
    outcomes = []
    for _ in range(contests):  # index is base 3, first contest most significant; digit 2 = orange
        digit = index % 3
        index //= 3
        outcomes.append(-1 if digit == 2 else digit)
    outcomes.reverse()
    dest = _resolve(signs, outcomes)
    src = [8] * 8  # new row -> old row, 8 for empty
    blue_scores = orange_scores = -1
    for row, d in enumerate(dest):
        if d is None:
            continue
        if d >= 0:
            src[d] = row
        elif d == _SCORED:
            if signs[row] == 2:
                blue_scores = row
            else:
                orange_scores = row
    changed = any(d is not None and d != row for row, d in enumerate(dest))
    getter: Callable[[Column], Column] | None = None
    if any(s != 8 for s in src):
        getter = itemgetter(*src)
    after = tuple(0 if s == 8 else 1 for s in src)
    masks = tuple(_column_mask(after, c) for c in range(8))
    tail = (1 if changed else 0, None, *masks)
    return getter, changed, blue_scores, orange_scores, masks, tail


def _surge_column(col: Column) -> _Result:
    """One surge of one column (through the plan of its pattern and contest outcomes)."""
    pattern = _PACK(*col).translate(_SIGN_CODES)
    info = _patterns.get(pattern)
    if info is None:
        info = _pattern_info(pattern)
    index = 0
    for a, b, c, d in info[0]:
        strength = sum(col[a:b]) + sum(col[c:d])  # orange stones are negative
        index = index * 3 + (0 if strength == 0 else 1 if strength > 0 else 2)
    plans = info[1]
    plan = plans[index]
    if plan is None:
        plan = plans[index] = _make_plan(info[2], index, len(info[0]))
    getter, changed, blue_row, orange_row, masks, _ = plan
    new = EMPTY_COLUMN if getter is None else getter(col + _PAD)
    return (
        new,
        changed,
        -col[blue_row] if blue_row >= 0 else 0,
        col[orange_row] if orange_row >= 0 else 0,
        masks,
    )


def _surge_result(col: Column) -> _Entry:
    """The entry of :data:`_results` for ``col`` (computed and stored)."""
    pattern = _PACK(*col).translate(_SIGN_CODES)
    info = _patterns.get(pattern)
    if info is None:
        info = _pattern_info(pattern)
    slices = info[0]
    index = 0
    for a, b, c, d in slices:
        strength = sum(col[a:b]) + sum(col[c:d])  # orange stones are negative
        index = index * 3 + (0 if strength == 0 else 1 if strength > 0 else 2)
    plan = info[1][index]
    if plan is None:
        plan = info[1][index] = _make_plan(info[2], index, len(slices))
    getter, changed, blue_row, orange_row, masks, tail = plan
    if not changed:
        new = col
    elif getter is None:
        new = EMPTY_COLUMN
    else:
        new = getter(col + _PAD)
    if blue_row < 0 and orange_row < 0:
        result: _Entry = (new, *tail)
    else:
        gains = (-col[blue_row] if blue_row >= 0 else 0, col[orange_row] if orange_row >= 0 else 0)
        result = (new, tail[0] | 2, gains, *masks)
    results = _results
    if len(results) >= _RESULTS_LIMIT:
        results.clear()
    results[col] = result
    return result


_EMPTY_ENTRY: Final[_Entry] = (EMPTY_COLUMN, 0, None, *(_column_mask(EMPTY_COLUMN, c) for c in range(8)))


def _check_board(board: Sequence[Sequence[int]]) -> list[Column]:
    cols = [tuple(c) for c in board]
    if len(cols) != 8 or any(len(c) != 8 for c in cols):
        raise ValueError("a board is 8 columns of 8 cells")
    for c in cols:
        for v in c:
            if type(v) is not int or not -10 <= v <= 10:
                raise ValueError(f"a board cell is an int in -10..10, got {v!r}")
    return [_intern_column(c) for c in cols]


def surge_step(board: Sequence[Sequence[int]]) -> tuple[list[Column], dict[str, int]]:
    """One surge of a board of face-up stones: ``(new board, {"blue": scored, "orange": scored})``.

    Per column: lines, facing pairs and gaps are judged on the board as the surge begins. Facing
    pairs (a blue line and the orange line directly above it) with ``g`` empty squares between
    their fronts: g >= 2 no contest; g = 1 the stronger moves into the gap; g = 0 the stronger
    pushes the weaker back one (off the back edge: its back stone leaves and the pusher scores
    it; blocked if the square behind holds a stone before the surge; two losing lines aimed at
    the same square: both pushes fail); equal strength (sum of the front four): clash, both
    fronts leave. Then every free line moves forward one if the square ahead is empty; on the
    far row its front leaves (no score) and the rest moves.
    """
    cols = _check_board(board)
    scored = [0, 0]
    for c in range(8):
        new, _, blue, orange, _ = _surge_column(cols[c])
        cols[c] = new
        scored[0] += blue
        scored[1] += orange
    return cols, {BLUE: scored[0], ORANGE: scored[1]}


def surge_columns(cols: Sequence[Column]) -> tuple[list[Column], int, int]:
    """One surge of a board in the engine's column form, through the engine's cached plans.

    ``(new columns, points Blue scored, points Orange scored)``. The same surge as
    :func:`surge_step`, many times faster, for search code: ``cols`` must be 8 column tuples as a
    state holds them (``SurgeState.cols``, or this function's result); they are not checked.
    """
    get = _results.get
    out: list[Column] = []
    blue = orange = 0
    for col in cols:
        entry = get(col) or _surge_result(col)
        out.append(entry[0])
        gains = entry[2]
        if gains is not None:
            blue += gains[0]
            orange += gains[1]
    return out, blue, orange


# --------------------------------------------------------------------------------------------------
# State
# --------------------------------------------------------------------------------------------------


class SurgeState:
    """A Surge Stones game in progress (the arbiter's full view, hidden stones included).

    Read it through :class:`SurgeRules` and the module functions; fields are internal except the
    read-only properties. ``cols`` is the board (8 column tuples, see the module docstring), with
    the first placer's face-down stone already on it at ``down`` (``col * 8 + row``, ``-1`` if
    none).
    """

    __slots__ = (
        "cols",
        "done",
        "down",
        "empty",
        "first",
        "hands",
        "mover",
        "orders",
        "placed",
        "pos",
        "reason",
        "score",
        "seed",
    )

    cols: list[Column]
    empty: int  # mask of empty home squares (see _HOME_CR)
    hands: list[list[int]]  # sorted
    orders: tuple[tuple[int, ...], tuple[int, ...]]
    pos: list[int]  # next index into each order
    score: list[int]
    done: int  # rounds completed
    first: int  # player placing first this round
    mover: int  # player to place now, -1 when the game is over
    down: int  # square index of the face-down stone placed this round, -1 if none
    placed: int  # placements made this round
    reason: str | None  # why the game ended
    seed: bytes | None

    def copy(self) -> SurgeState:
        """An independent copy (the draw orders, immutable, are shared)."""
        new = _new_state(SurgeState)
        new.cols = self.cols.copy()
        new.empty = self.empty
        hands = self.hands
        new.hands = [hands[0].copy(), hands[1].copy()]
        new.orders = self.orders
        new.pos = self.pos.copy()
        new.score = self.score.copy()
        new.done = self.done
        new.first = self.first
        new.mover = self.mover
        new.down = self.down
        new.placed = self.placed
        new.reason = self.reason
        new.seed = self.seed
        return new

    def snapshot(self) -> tuple[Any, ...]:
        """Every field as immutable values (for equality and tests)."""
        return (
            tuple(self.cols),
            self.empty,
            tuple(tuple(h) for h in self.hands),
            self.orders,
            tuple(self.pos),
            tuple(self.score),
            self.done,
            self.first,
            self.mover,
            self.down,
            self.placed,
            self.reason,
            self.seed,
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SurgeState):
            return NotImplemented
        return self.snapshot() == other.snapshot()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (
            f"SurgeState(round={self.round}, over={self.over}, scores={self.scores}, "
            f"board={format_board(self.cols)!r})"
        )

    @property
    def board(self) -> Board:
        """The board as 8 column tuples (face-down stones included, with their values)."""
        return tuple(self.cols)

    @property
    def scores(self) -> dict[str, int]:
        """Cumulative scores by colour."""
        return {BLUE: self.score[0], ORANGE: self.score[1]}

    @property
    def round(self) -> int:
        """The round being played (1-based); after the end, the round that would have come next."""
        return self.done + 1

    @property
    def rounds_played(self) -> int:
        return self.done

    @property
    def over(self) -> bool:
        return self.mover < 0


_new_state: Final = object.__new__
#: ``_PUT[r](col + (x,))`` is ``col`` with row ``r`` set to ``x``.
_PUT: Final = tuple(itemgetter(*(8 if i == r else i for i in range(8))) for r in range(8))
#: ``_PLACE[player][id(action)]`` for the interned actions placing on one of the player's home
#: squares: (player, value, col, row, bit in the mask of empty home squares, (signed value,),
#: ``_PUT[row]``, square index); ``_PLACE[-1]`` (the game is over) is empty. The interned actions
#: live as long as the module, so their ids are never reused.
_PLACE: Final[tuple[dict[int, tuple[Any, ...]], ...]] = (
    *tuple(
        {
            id(_ACT[v][c * 8 + r]): (p, v, c, r, bit, (-v if p else v,), _PUT[r], c * 8 + r)
            for v in range(1, 11)
            for c, r, bit in _HOME_CR[p].values()
        }
        for p in (0, 1)
    ),
    {},
)


def _removed(state: SurgeState, p: int) -> tuple[int, ...]:
    """Player ``p``'s stones no longer in play: all 20 minus board, hand and supply (sorted).

    Equal to the stones the surges took off the board, which is public."""
    left = Counter(STONES)
    sign = 1 if p == 0 else -1
    left.subtract(sign * v for col in state.cols for v in col if v * sign > 0)
    left.subtract(state.hands[p])
    left.subtract(state.orders[p][state.pos[p] :])
    return tuple(sorted(left.elements()))


def round_of(state: SurgeState) -> int:
    """The round being played; once the game is over, one more than the rounds played."""
    return state.done + 1


def completed_rounds(state: SurgeState) -> int:
    """How many rounds have been played to the end (surge included)."""
    return state.done


def board_text(state: SurgeState) -> str:
    """The board text of a state (face-down stones shown with their values)."""
    return format_board(state.cols)


def colour_scores(state: SurgeState) -> dict[str, int]:
    """``{"blue": ..., "orange": ...}``."""
    return {BLUE: state.score[0], ORANGE: state.score[1]}


def render_text(state: SurgeState) -> str:
    """A terminal picture: rows 8..1 with row numbers, file letters, scores, hands and a legend.

    ``B7`` is a blue 7, ``O10`` an orange 10; the stone placed face-down this round (the
    arbiter's view: its value shows) is in lower case, ``b7`` or ``o10``.
    """
    lines = []
    for r in range(7, -1, -1):
        cells = []
        for c in range(8):
            v = state.cols[c][r]
            text = _cell_text(v)
            if c * 8 + r == state.down:
                text = text.lower()  # face-down this round
            cells.append(f"{text:>3}")
        lines.append(f"{r + 1} " + " ".join(cells))
    lines.append("  " + " ".join(f"{f:>3}" for f in FILES))
    status = "over" if state.over else f"{COLOURS[state.mover]} to place"
    lines.append(
        f"round {state.round}  blue {state.score[0]}  orange {state.score[1]}  {status}  "
        f"hands blue {state.hands[0]} orange {state.hands[1]}"
    )
    lines.append("legend: B7 blue 7, O7 orange 7, b7 o7 face-down (this round's), . empty")
    return "\n".join(lines)


# --------------------------------------------------------------------------------------------------
# Observation
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SurgeObservation:
    """What one seat may see. Built only from public facts and that seat's own stones.

    ``face_up``: ``(square, colour, value)`` for every revealed stone, in square order.
    ``face_down``: ``(square, owner colour, value)`` for stones placed this round and not yet
    revealed; ``value`` is ``None`` for the opponent's stone. ``hand`` and ``supply`` are this
    seat's stones, sorted (the supply as a multiset: never its order). ``removed_blue`` and
    ``removed_orange`` are the values removed from the board so far, sorted. ``round`` is the
    round being played (after the end: one more than ``rounds_played``); ``first_placer`` places
    first in that round (Blue in odd rounds), also after the end.
    """

    seat: int
    colour: str
    round: int
    rounds_played: int
    over: bool
    your_turn: bool
    to_move: str | None
    first_placer: str
    face_up: tuple[tuple[str, str, int], ...]
    face_down: tuple[tuple[str, str, int | None], ...]
    hand: tuple[int, ...]
    supply: tuple[int, ...]
    opponent_hand_size: int
    opponent_supply_size: int
    blue_score: int
    orange_score: int
    removed_blue: tuple[int, ...]
    removed_orange: tuple[int, ...]

    @property
    def home_squares(self) -> tuple[str, ...]:
        """This seat's 16 home squares in square order."""
        return tuple(SQUARES[i] for i in _HOME[0 if self.colour == BLUE else 1])

    @property
    def occupied(self) -> frozenset[str]:
        return frozenset(s for s, _, _ in self.face_up) | frozenset(s for s, _, _ in self.face_down)

    def legal_actions(self) -> list[SurgeAction]:
        """The legal actions if it is this seat's turn (the same list as ``SurgeRules.legal_actions``)."""
        if not self.your_turn:
            return []
        p = 0 if self.colour == BLUE else 1
        taken = self.occupied
        empties = [i for i in _HOME[p] if SQUARES[i] not in taken]
        if not self.hand or not empties:
            return [SKIP]
        return [_ACT[v][i] for v in sorted(set(self.hand)) for i in empties]


# --------------------------------------------------------------------------------------------------
# Rules
# --------------------------------------------------------------------------------------------------


class SurgeRules:
    """Surge Stones behind the ``Rules`` protocol. Seat 1 plays Blue, seat 2 Orange."""

    name = "surge"

    # ---- creating games ------------------------------------------------------------------------

    def new_game(self, options: Mapping[str, Any] | None = None, seed: bytes | None = None) -> SurgeState:
        """A new game. Surge takes no options; ``seed`` is 32 bytes (random when ``None``)."""
        if options:
            raise OptionsError(f"Surge Stones takes no options, got {sorted(options)!r}")
        if seed is None:
            seed = secrets.token_bytes(32)
        if not isinstance(seed, (bytes, bytearray, memoryview)):
            raise ValueError(f"seed must be 32 bytes, not {type(seed).__name__}")
        seed = bytes(seed)
        if len(seed) != 32:
            raise ValueError(f"seed must be 32 bytes, got {len(seed)}")
        state = self._start(tuple(draw_order(seed, BLUE)), tuple(draw_order(seed, ORANGE)))
        state.seed = seed
        return state

    def new_game_from_orders(self, blue: Sequence[int], orange: Sequence[int]) -> SurgeState:
        """A new game with given draw orders (each a permutation of two of each value 1..10)."""
        return self._start(_check_order(blue, BLUE), _check_order(orange, ORANGE))

    def _start(self, blue: tuple[int, ...], orange: tuple[int, ...]) -> SurgeState:
        s = object.__new__(SurgeState)
        s.cols = [EMPTY_COLUMN] * 8
        s.empty = ALL_HOME_EMPTY
        s.orders = (blue, orange)
        s.hands = [sorted(blue[:HAND_SIZE]), sorted(orange[:HAND_SIZE])]
        s.pos = [HAND_SIZE, HAND_SIZE]
        s.score = [0, 0]
        s.done = 0
        s.first = 0
        s.mover = 0
        s.down = -1
        s.placed = 0
        s.reason = None
        s.seed = None
        return s

    def position(
        self,
        board: Sequence[Sequence[int]] | str,
        blue_hand: Sequence[int] = (),
        orange_hand: Sequence[int] = (),
        blue_supply: Sequence[int] = (),
        orange_supply: Sequence[int] = (),
        *,
        round: int = 1,
        scores: tuple[int, int] = (0, 0),
    ) -> SurgeState:
        """A state at the start of ``round`` (for tests and puzzles). Supplies are draw orders.

        Stones of a player not on the board, in hand or in supply count as removed, so each
        player must not have more than two stones of any value.
        """
        cols = parse_board(board) if isinstance(board, str) else _check_board(board)
        if not 1 <= round <= ROUND_LIMIT:
            raise ValueError(f"round must be 1..{ROUND_LIMIT}")
        s = self._start(tuple(STONES), tuple(STONES))
        s.cols = cols
        s.empty = _home_mask(cols)
        for p, hand, supply in ((0, blue_hand, blue_supply), (1, orange_hand, orange_supply)):
            if len(hand) > HAND_SIZE or (supply and len(hand) < HAND_SIZE):
                raise ValueError("a hand holds 3 stones while the supply is not empty")
            sign = 1 if p == 0 else -1
            on_board = [sign * v for col in cols for v in col if v * sign > 0]
            left = Counter(STONES)
            left.subtract(on_board)
            left.subtract(hand)
            left.subtract(supply)
            if any(k < 0 for k in left.values()) or any(not 1 <= v <= 10 for v in chain(hand, supply)):
                raise ValueError(f"{COLOURS[p]} has more stones than two of each value 1..10")
            s.hands[p] = sorted(hand)
        s.orders = (tuple(blue_supply), tuple(orange_supply))
        s.pos = [0, 0]
        s.score = list(scores)
        s.done = round - 1
        s.first = s.mover = (round - 1) % 2
        return s

    # ---- queries -------------------------------------------------------------------------------

    def to_move(self, state: SurgeState) -> int | None:
        """The seat that must decide now (1 Blue, 2 Orange), ``None`` when the game is over."""
        p = state.mover
        return None if p < 0 else p + 1

    def legal_actions(self, state: SurgeState) -> list[SurgeAction]:
        """Every distinct value in hand x every empty home square (value, then square order);
        ``[SKIP]`` alone when the mover cannot place; ``[]`` when the game is over."""
        p = state.mover
        if p < 0:
            return []
        hand = state.hands[p]
        mask = state.empty >> 16 if p else state.empty & 0xFFFF
        if not hand or not mask:
            return [SKIP]
        lo = _LEGAL_LOW[p][mask & 255]
        hi = _LEGAL_HIGH[p][mask >> 8]
        if len(hand) == 3:
            a, b, c = hand
            if a != b != c:  # three distinct values (the hand is sorted)
                return [*lo[a], *hi[a], *lo[b], *hi[b], *lo[c], *hi[c]]
        out: list[SurgeAction] = []
        last = 0
        for v in hand:
            if v != last:
                out += lo[v]
                out += hi[v]
                last = v
        return out

    def can_place(self, state: SurgeState) -> bool:
        """Whether the player to move has a stone in hand and an empty home square."""
        p = state.mover
        if p < 0 or not state.hands[p]:
            return False
        return (state.empty >> 16 if p else state.empty & 0xFFFF) != 0

    def scores_by_seat(self, state: SurgeState) -> dict[int, int]:
        """Blue's score for seat 1, Orange's for seat 2."""
        return {1: state.score[0], 2: state.score[1]}

    def outcome(self, state: SurgeState) -> Outcome | None:
        if state.reason is None:
            return None
        b, o = state.score
        if b > o:
            seat: int | None = 1
        elif o > b:
            seat = 2
        else:
            seat = None
        return Outcome(
            winner_seat=seat,
            winner_colour=None if seat is None else COLOURS[seat - 1],
            scores={1: b, 2: o},
            colour_scores={BLUE: b, ORANGE: o},
            reason=state.reason,
            details={"rounds": state.done},
        )

    def removed(self, state: SurgeState) -> dict[str, list[int]]:
        """The stones each player has lost from the board so far (sorted values)."""
        return {BLUE: list(_removed(state, 0)), ORANGE: list(_removed(state, 1))}

    def observe(self, state: SurgeState, seat: int) -> SurgeObservation:
        """What ``seat`` may see: never the opponent's hand, face-down value or any undrawn order."""
        if seat not in (1, 2):
            raise ValueError(f"seat must be 1 or 2, not {seat!r}")
        p = seat - 1
        q = 1 - p
        face_up: list[tuple[str, str, int]] = []
        face_down: list[tuple[str, str, int | None]] = []
        for c in range(8):
            col = state.cols[c]
            if col is EMPTY_COLUMN:
                continue
            for r in range(8):
                v = col[r]
                if v:
                    owner = 0 if v > 0 else 1
                    name = SQUARES[c * 8 + r]
                    if c * 8 + r == state.down:
                        face_down.append((name, COLOURS[owner], abs(v) if owner == p else None))
                    else:
                        face_up.append((name, COLOURS[owner], abs(v)))
        over = state.mover < 0
        return SurgeObservation(
            seat=seat,
            colour=COLOURS[p],
            round=state.done + 1,
            rounds_played=state.done,
            over=over,
            your_turn=state.mover == p,
            to_move=None if over else COLOURS[state.mover],
            first_placer=COLOURS[state.done % 2] if over else COLOURS[state.first],  # of ``round``
            face_up=tuple(face_up),
            face_down=tuple(face_down),
            hand=tuple(state.hands[p]),
            supply=tuple(sorted(state.orders[p][state.pos[p] :])),
            opponent_hand_size=len(state.hands[q]),
            opponent_supply_size=len(state.orders[q]) - state.pos[q],
            blue_score=state.score[0],
            orange_score=state.score[1],
            removed_blue=_removed(state, 0),
            removed_orange=_removed(state, 1),
        )

    def parse_action(self, text: str) -> SurgeAction:
        return parse_action(text)

    def format_action(self, action: SurgeAction) -> str:
        return format_action(action)

    # ---- applying actions ----------------------------------------------------------------------

    def apply(self, state: SurgeState, action: SurgeAction) -> SurgeState:
        """A new state with ``action`` applied; ``state`` is never changed."""
        place = _PLACE[state.mover].get(id(action))
        if place is not None:  # an interned action placing on a home square of the mover
            p, v, c, r, bit, cell, put, down = place
            hands = state.hands
            hand = hands[p]
            cols = state.cols
            col = cols[c]
            if v in hand and not col[r]:  # the common case, copying only what changes
                new = _new_state(SurgeState)
                hand = hand.copy()
                hand.remove(v)
                new.orders = orders = state.orders
                pos = state.pos
                k = pos[p]
                order = orders[p]
                if k < len(order):
                    insort(hand, order[k])
                    pos = [k + 1, pos[1]] if p == 0 else [pos[0], k + 1]
                else:
                    pos = pos.copy()
                new.hands = [hand, hands[1].copy()] if p == 0 else [hands[0].copy(), hand]
                new.pos = pos
                cols = cols.copy()
                cols[c] = put(col + cell)
                new.cols = cols
                new.empty = state.empty ^ bit
                new.score = state.score.copy()
                new.done = state.done
                new.first = first = state.first
                new.placed = state.placed + 1
                new.reason = state.reason
                new.seed = state.seed
                if p == first:
                    new.down = down
                    new.mover = 1 - p
                else:
                    new.down = state.down
                    new.mover = p
                    self._end_round(new)
                return new
        new = state.copy()
        self.apply_in_place(new, action)
        return new

    def apply_in_place(self, state: SurgeState, action: SurgeAction) -> None:  # noqa: C901 - the engine's hot path
        """Apply ``action`` to ``state``; a refused action raises and leaves ``state`` unchanged."""
        place = _PLACE[state.mover].get(id(action))
        if place is not None:  # an interned action placing on a home square of the mover
            p, v, c, r, bit, cell, put, down = place
            hand = state.hands[p]
            cols = state.cols
            col = cols[c]
            if v in hand and not col[r]:  # the common case
                state.empty ^= bit
                hand.remove(v)
                pos = state.pos
                k = pos[p]
                order = state.orders[p]
                if k < len(order):
                    insort(hand, order[k])
                    pos[p] = k + 1
                cols[c] = put(col + cell)
                state.placed += 1
                if p == state.first:
                    state.down = down
                    state.mover = 1 - p
                else:
                    self._end_round(state)
                return
        p = state.mover
        if p < 0:
            raise IllegalAction("game is over")
        cls = action.__class__
        if cls is PlaceStone:
            v = action.value  # type: ignore[union-attr]
            square = action.square  # type: ignore[union-attr]
            hand = state.hands[p]
            if type(v) is int and isinstance(square, str) and v in hand:
                where = _HOME_CR[p].get(square)
                if where is not None:
                    c, r, bit = where
                    col = state.cols[c]
                    if not col[r]:
                        state.empty ^= bit
                        hand.remove(v)
                        k = state.pos[p]
                        order = state.orders[p]
                        if k < len(order):
                            insort(hand, order[k])
                            state.pos[p] = k + 1
                        state.cols[c] = _PUT[r]((*col, -v if p else v))
                        state.placed += 1
                        if p == state.first:
                            state.down = c * 8 + r
                            state.mover = 1 - p
                        else:
                            self._end_round(state)
                        return
            raise self._refusal(state, action)
        if cls is Skip:
            if state.hands[p] and (state.empty >> 16 if p else state.empty & 0xFFFF):  # can place
                raise self._refusal(state, action)
        elif isinstance(action, (PlaceStone, Skip)):  # subclasses: the slow, careful path
            if isinstance(action, Skip):
                self.apply_in_place(state, SKIP)
            else:
                self.apply_in_place(state, PlaceStone(action.value, action.square))
            return
        else:
            raise MalformedAction(f"not a Surge Stones action: {_shown(action)} (use PlaceStone or Skip)")
        if p == state.first:
            state.mover = 1 - p
        else:
            self._end_round(state)

    def _refusal(self, state: SurgeState, action: SurgeAction) -> Exception:
        """Why ``action`` (a PlaceStone or Skip) is refused for the player to move."""
        p = state.mover
        who = _NAMES[p]
        rows = "rows 1-2" if p == 0 else "rows 7-8"
        hand = state.hands[p]
        if isinstance(action, Skip):
            return IllegalAction(
                f"{who} must place a stone: skip is legal only without a stone in hand or an empty "
                f"home square (hand {hand}, {rows} have empty squares)"
            )
        assert isinstance(action, PlaceStone)
        v, square = action.value, action.square
        if type(v) is not int:
            return MalformedAction(f"a stone value is an int, not {type(v).__name__}: {_shown(action)}")
        if not isinstance(square, str):
            return MalformedAction(
                f"a square is a name like 'c2', not {type(square).__name__}: {_shown(action)}"
            )
        if not hand:
            return IllegalAction(f"{who} has no stone in hand: the only legal action is skip")
        if not self.can_place(state):
            return IllegalAction(
                f"all of {who}'s home squares ({rows}) are occupied: the only legal action is skip"
            )
        if not 1 <= v <= 10:
            return IllegalAction(f"{_shown(v)} is not a stone value (values are 1..10)")
        if v not in hand:
            return IllegalAction(f"{v} is not in your hand {hand}")
        index = _SQ_INDEX.get(square)
        if index is None:
            return IllegalAction(f"{_cut(square)} is not a square of the board (a1..h8)")
        if square not in _HOME_CR[p]:
            return IllegalAction(f"{square} is not one of {who}'s home squares ({rows})")
        return IllegalAction(f"{square} is occupied")

    def _end_round(self, state: SurgeState) -> None:
        """Reveal, surge, score, check the end, start the next round."""
        cols = state.cols
        get = _results.get
        miss = _surge_result
        z = EMPTY_COLUMN
        ze = _EMPTY_ENTRY
        a, b, c, d, e, f, g, h = cols
        ra = ze if a is z else get(a) or miss(a)
        rb = ze if b is z else get(b) or miss(b)
        rc = ze if c is z else get(c) or miss(c)
        rd = ze if d is z else get(d) or miss(d)
        re_ = ze if e is z else get(e) or miss(e)
        rf = ze if f is z else get(f) or miss(f)
        rg = ze if g is z else get(g) or miss(g)
        rh = ze if h is z else get(h) or miss(h)
        cols[:] = (ra[0], rb[0], rc[0], rd[0], re_[0], rf[0], rg[0], rh[0])
        # The mask of empty home squares of the board after the surge (equal to updating the
        # bits of the columns that changed, since ``state.empty`` matches ``cols``).
        state.empty = ra[3] | rb[4] | rc[5] | rd[6] | re_[7] | rf[8] | rg[9] | rh[10]
        flags = ra[1] | rb[1] | rc[1] | rd[1] | re_[1] | rf[1] | rg[1] | rh[1]
        if flags & 2:  # somebody scored
            score = state.score
            for r in (ra, rb, rc, rd, re_, rf, rg, rh):
                gains = r[2]
                if gains is not None:
                    score[0] += gains[0]
                    score[1] += gains[1]
        state.done = done = state.done + 1
        state.down = -1
        hands = state.hands
        no_stones = not hands[0] and not hands[1]
        if no_stones and cols.count(EMPTY_COLUMN) == 8:
            reason: str | None = "board_empty"
        elif flags & 1:  # the surge changed the board
            reason = "round_limit" if done >= ROUND_LIMIT else None
        elif no_stones:
            reason = "no_change_no_stones"
        elif not state.placed:
            reason = "no_change_nobody_placed"
        else:
            reason = "round_limit" if done >= ROUND_LIMIT else None
        if reason is not None:
            state.reason = reason
            state.mover = -1
            return
        state.placed = 0
        state.first = first = 1 - state.first
        state.mover = first


SURGE: Final = SurgeRules()

if TYPE_CHECKING:  # SurgeRules implements the shared interface
    _RULES: Rules[SurgeState, SurgeAction, SurgeObservation] = SURGE


def legal_actions_from_observation(observation: SurgeObservation) -> list[SurgeAction]:
    """The legal actions a bot may choose from, computed from its observation alone."""
    return observation.legal_actions()


__all__ = [
    "BLUE",
    "ORANGE",
    "SKIP",
    "SURGE",
    "Board",
    "Column",
    "PlaceStone",
    "Skip",
    "SurgeAction",
    "SurgeObservation",
    "SurgeRules",
    "SurgeState",
    "board_squares",
    "board_text",
    "colour_scores",
    "commitment",
    "completed_rounds",
    "draw_order",
    "format_action",
    "format_board",
    "legal_actions_from_observation",
    "parse_action",
    "parse_board",
    "render_text",
    "round_of",
    "surge_columns",
    "surge_step",
]
