"""The flank-and-flip game shared by Torrent and Fravan (rules: ``docs/rules/torrent-fravan.md``).

The two games differ only in how a stone flanked by both colours is resolved:
Fravan locks a stone the first time it flips by double flank. ``FlankRules``
holds everything; ``torrent.py`` and ``fravan.py`` pick the variant.

Internals, for speed: the board is a ``bytearray`` indexed by point number in
board-text order; a cell is 0 (empty), 1 (black) or 2 (white), plus 4 when the
stone is locked. Each stone remembers the event that gave it its colour.
A turn's cascade only re-examines stones whose nearest stones changed
(the stone just placed or flipped and the first stone met from it in each of
the six directions), which is exactly the set whose flank status can change.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from operator import itemgetter
from typing import Any

from .base import (
    SEAT_1,
    SEAT_2,
    IllegalAction,
    MalformedAction,
    OptionsError,
    Outcome,
    cut_short,
    shown_input,
)

BLACK = "black"
WHITE = "white"
COLOUR_NAMES = {1: BLACK, 2: WHITE}
COLOUR_CODES = {BLACK: 1, WHITE: 2}
EMPTY = 0
LOCK = 4
CELL_CHARS = {0: ".", 1: "B", 2: "W", 5: "b", 6: "w"}
CHAR_CELLS = {v: k for k, v in CELL_CHARS.items()}
_CELL_BYTES = bytes(ord(CELL_CHARS.get(i, "?")) for i in range(256))
# For scoring: a cell as ".", "B" or "W" (locks dropped), 3 as the "|" between lines.
_LINE_BYTES = bytes(ord({0: ".", 1: "B", 5: "B", 2: "W", 6: "W", 3: "|"}.get(i, "?")) for i in range(256))
# A stone, an odd number of empty points, then (not consumed) a stone of the same colour.
_FLANKED_MIDPOINT = re.compile(rb"([BW])\.(?:\.\.)*(?=\1)")

POINT_NAME = re.compile(r"[a-z](?:0|[1-9][0-9]*)\Z")


_cut = cut_short
_shown = shown_input


# The six cardinal directions, as pairs of opposites along the three axes.
AXES = (((1, 0), (-1, 0)), ((0, 1), (0, -1)), ((1, -1), (-1, 1)))


@dataclass(frozen=True, slots=True)
class Place:
    """Put a stone of your colour on ``point`` (a name such as ``g7``)."""

    point: str


@dataclass(frozen=True, slots=True)
class Pass:
    """Do nothing this turn. Two passes in a row end the game."""


@dataclass(frozen=True, slots=True)
class Swap:
    """Second player's first action only: take Black and the first stone."""


PASS = Pass()
SWAP = Swap()
FlankAction = Place | Pass | Swap


@dataclass(frozen=True, slots=True)
class Stone:
    """A stone as a player sees it."""

    point: str
    colour: str
    locked: bool
    #: The event that gave the stone its colour; newer events have larger numbers (recency rule).
    event: int


@dataclass(frozen=True, slots=True)
class FlankObservation:
    """Everything a seat sees in Torrent or Fravan (the whole position is public).

    ``board`` is the rules' board text (rows from the top joined by ``/``; ``.`` empty,
    ``B``/``W`` stones, ``b``/``w`` locked Fravan stones); ``events`` gives, for every point in
    board-text order, the event that gave its stone its colour (0 for an empty point).
    """

    game: str
    size: int
    seat: int
    colour: str
    to_move_seat: int | None
    to_move_colour: str
    board: str
    events: tuple[int, ...]
    swapped: bool
    action_count: int
    last_action: str | None
    first_pass_colour: str | None
    scores: tuple[tuple[str, int], ...]
    over: bool

    @property
    def score_by_colour(self) -> dict[str, int]:
        return dict(self.scores)

    @property
    def stones(self) -> tuple[Stone, ...]:
        """The stones on the board, in board-text order."""
        names = geometry(self.size).names
        cells = self.board.replace("/", "")
        return tuple(
            Stone(names[i], BLACK if ch in "Bb" else WHITE, ch in "bw", self.events[i])
            for i, ch in enumerate(cells)
            if ch != "."
        )


class Geometry:
    """Points, names and rays of one board size; shared by every state of that size."""

    def __init__(self, size: int) -> None:
        n = size
        self.size = n
        coords = [
            (q, r)
            for r in range(n - 1, -n, -1)
            for q in range(-(n - 1), n)
            if max(abs(q), abs(r), abs(q + r)) <= n - 1
        ]
        self.coords = coords
        self.count = len(coords)
        index = {c: i for i, c in enumerate(coords)}
        self.names = [chr(ord("a") + q + n - 1) + str(r + n) for q, r in coords]
        self.index = {name: i for i, name in enumerate(self.names)}
        self.place_actions = [Place(name) for name in self.names]
        # rays[p][d]: points met walking from p in direction d (d = 2*axis + side).
        rays: list[list[tuple[int, ...]]] = []
        for q, r in coords:
            mine = []
            for axis in AXES:
                for dq, dr in axis:
                    walk = []
                    x, y = q + dq, r + dr
                    while (x, y) in index:
                        walk.append(index[(x, y)])
                        x, y = x + dq, y + dr
                    mine.append(tuple(walk))
            rays.append(mine)
        self.rays = rays
        # axis_pairs[p]: for each axis with points on both sides, the pairs of
        # points at equal distance from p, nearest first.
        self.axis_pairs = [
            tuple(
                tuple(zip(rs[2 * a], rs[2 * a + 1], strict=False))
                for a in range(3)
                if rs[2 * a] and rs[2 * a + 1]
            )
            for rs in rays
        ]
        # Every line of points along each axis, for scoring territory in one pass per line.
        lines = []
        for a, (forward, _) in enumerate(AXES):
            for p, (q, r) in enumerate(coords):
                if (q - forward[0], r - forward[1]) not in index:  # p starts a line
                    lines.append((p, *rays[p][2 * a]))
        self.lines = lines
        # All lines end to end with a separator (index ``count`` reads the sentinel cell), and for
        # each position of that text the territory slot (axis * count + point; -1: separator).
        flat: list[int] = []
        slots: list[int] = []
        per_axis = len(lines) // 3
        for number, line in enumerate(lines):
            flat.extend(line)
            flat.append(self.count)
            base = number // per_axis * self.count
            slots.extend(base + p for p in line)
            slots.append(-1)
        self.line_slots = slots
        self.line_getter = itemgetter(*flat)
        # Row boundaries for board text: rows from the highest row number down.
        rows: list[list[int]] = []
        last_r = None
        for i, (_, r) in enumerate(coords):
            if r != last_r:
                rows.append([])
                last_r = r
            rows[-1].append(i)
        self.rows = rows
        self.row_bounds = [(row[0], row[-1] + 1) for row in rows]


@cache
def geometry(size: int) -> Geometry:
    return Geometry(size)


class FlankState:
    """A Torrent or Fravan position plus the game's history facts the rules need."""

    __slots__ = (
        "action_count",
        "board",
        "empties",
        "events",
        "first_pass",
        "geo",
        "last_action",
        "next_event",
        "over",
        "passes_in_row",
        "swapped",
        "territory",
        "territory_from",
        "unsettled",
    )

    geo: Geometry
    board: bytearray
    events: list[int]
    empties: list[int]
    next_event: int
    action_count: int
    passes_in_row: int
    swapped: bool
    first_pass: int
    last_action: FlankAction | None
    over: bool
    unsettled: bool
    #: A cache for ``scores`` (never part of the position): the territory of this board, or None.
    territory: Territory | None
    #: When ``territory`` is None, what it follows from: the territory of the board before the
    #: last placement, the point placed and the stones its cascade flipped.
    territory_from: tuple[Territory, int, list[int]] | None

    def copy(self) -> FlankState:
        new = FlankState.__new__(FlankState)
        new.geo = self.geo
        new.board = self.board[:]
        new.events = self.events[:]
        new.empties = self.empties[:]
        new.next_event = self.next_event
        new.action_count = self.action_count
        new.passes_in_row = self.passes_in_row
        new.swapped = self.swapped
        new.first_pass = self.first_pass
        new.last_action = self.last_action
        new.over = self.over
        new.unsettled = self.unsettled
        new.territory = self.territory  # shared: a Territory is never changed once built
        new.territory_from = self.territory_from
        return new

    @property
    def size(self) -> int:
        return self.geo.size

    @property
    def colour_to_move(self) -> str:
        """Seats alternate strictly; after a swap the first player, now White, moves next."""
        return COLOUR_NAMES[self.mover_code]

    @property
    def mover_code(self) -> int:
        return 1 if (self.action_count + self.swapped) % 2 == 0 else 2

    def seat_of(self, colour: str) -> int:
        black_seat = SEAT_2 if self.swapped else SEAT_1
        return black_seat if colour == BLACK else 3 - black_seat

    def colour_of(self, seat: int) -> str:
        return BLACK if self.seat_of(BLACK) == seat else WHITE

    def snapshot(self) -> tuple[Any, ...]:
        """Every fact of the state, for equality checks in tests."""
        return (
            self.geo.size,
            bytes(self.board),
            tuple(self.events),
            tuple(self.empties),
            self.next_event,
            self.action_count,
            self.passes_in_row,
            self.swapped,
            self.first_pass,
            self.last_action,
            self.over,
            self.unsettled,
        )


class Territory:
    """The points each colour flanks on one board, per axis (the cache behind ``scores``).

    ``flanks[axis * count + point]`` is 1 (Black) or 2 (White) when ``point`` is the midpoint of
    two consecutive stones of that colour on its line along ``axis``, else 0. ``board`` is the
    board it was computed for: a state whose board no longer equals it computes afresh.
    """

    __slots__ = ("black", "board", "flanks", "white")

    def __init__(self, board: bytes, flanks: bytearray, count: int) -> None:
        self.board = board
        self.flanks = flanks
        # A point is a colour's territory when flanked on some axis by that colour and on none by
        # the other: OR the three axes byte by byte (as big integers: no carry between bytes).
        merged = (
            int.from_bytes(flanks[:count], "little")
            | int.from_bytes(flanks[count : 2 * count], "little")
            | int.from_bytes(flanks[2 * count :], "little")
        ).to_bytes(count, "little")
        self.black = merged.count(1)
        self.white = merged.count(2)


def _territory_afresh(state: FlankState) -> Territory:
    """Every line read at once as one string (``.`` ``B`` ``W``, ``|`` between lines) and scanned
    with a regular expression for flanked midpoints, which keeps the work in C."""
    board = state.board
    geo = state.geo
    text = bytes(geo.line_getter(board + b"\x03")).translate(_LINE_BYTES)
    flanks = bytearray(3 * geo.count)
    slots = geo.line_slots
    for m in _FLANKED_MIDPOINT.finditer(text):
        start, end = m.span()
        flanks[slots[start + 1 + (end - start - 1) // 2]] = 1 if m.group(1) == b"B" else 2
    return Territory(bytes(board), flanks, geo.count)


def _first_stone(board: bytearray, ray: Sequence[int]) -> int:
    """How many points along ``ray`` come before its first stone (-1: none on it)."""
    for k, q in enumerate(ray):
        if board[q]:
            return k
    return -1


def _territory_after(state: FlankState, before: Territory, placed: int, flipped: list[int]) -> Territory:
    """The territory after one placement and its cascade, from the territory before it.

    Only the lines through a changed stone change: on each axis, the gap the placed stone split
    loses its midpoint, and the gaps on either side of the placed stone and of every flipped stone
    get their midpoints' values from the two stones bounding them.
    """
    board = state.board
    geo = state.geo
    count = geo.count
    rays = geo.rays
    flanks = bytearray(before.flanks)
    for p in (placed, *flipped):
        colour = board[p] & 3
        rays_of_p = rays[p]
        for axis in range(3):
            base = axis * count
            left = rays_of_p[2 * axis]
            right = rays_of_p[2 * axis + 1]
            i = _first_stone(board, left)
            j = _first_stone(board, right)
            if p == placed and i >= 0 and j >= 0 and (i + j) % 2 == 0:
                # The gap between the two stones around the placed one had a midpoint: gone.
                shift = (j - i) // 2
                flanks[base + (p if shift == 0 else right[shift - 1] if shift > 0 else left[-shift - 1])] = 0
            if i > 0 and i % 2 == 1:  # a stone at an even distance (i + 1) on the left: a midpoint
                flanks[base + left[i // 2]] = colour if board[left[i]] & 3 == colour else 0
            if j > 0 and j % 2 == 1:
                flanks[base + right[j // 2]] = colour if board[right[j]] & 3 == colour else 0
    return Territory(bytes(board), flanks, count)


def _territory_before_placing(state: FlankState, placed: int) -> list[int]:
    """Keep the territory of the board about to change as the start of the next one; returns
    the list the cascade fills with the stones it flips."""
    territory = state.territory
    flipped: list[int] = []
    # Only a territory computed for this very board leads to the next (a board changed by other
    # means than ``apply_in_place`` is read afresh).
    if territory is not None and territory.board == state.board:
        state.territory_from = (territory, placed, flipped)
    else:
        state.territory_from = None
    state.territory = None
    return flipped


def _territory(state: FlankState) -> Territory:
    """The state's territory: cached, else derived from the one before its last placement."""
    territory = state.territory
    if territory is not None and territory.board == state.board:
        return territory
    source = state.territory_from
    if source is not None and territory is None:
        territory = _territory_after(state, *source)
    else:
        territory = _territory_afresh(state)
    state.territory = territory
    state.territory_from = None
    return territory


def _flip_verdict(
    board: bytearray, events: list[int], pairs_of_p: Sequence[Sequence[tuple[int, int]]], cell: int
) -> int:
    """0: keep; 1: flip by enemy flank only; 2: flip while flanked by both colours."""
    colour = cell & 3
    newest_enemy = -1
    newest_friend = -1
    for pairs in pairs_of_p:
        for x, y in pairs:
            a = board[x]
            b = board[y]
            if a or b:
                if a and b and (a & 3) == (b & 3):
                    ex = events[x]
                    ey = events[y]
                    age = ex if ex > ey else ey
                    if (a & 3) == colour:
                        if age > newest_friend:
                            newest_friend = age
                    elif age > newest_enemy:
                        newest_enemy = age
                break
    if newest_enemy < 0:
        return 0
    if newest_friend < 0:
        return 1
    if cell & LOCK or newest_enemy < newest_friend:
        return 0
    return 2


def _nearest_stones(board: bytearray, rays_of_p: Sequence[Sequence[int]], out: set[int]) -> None:
    for ray in rays_of_p:
        for q in ray:
            if board[q]:
                out.add(q)
                break


class FlankRules:
    """Rules object for Torrent (``locks=False``) or Fravan (``locks=True``)."""

    def __init__(self, name: str, sizes: Sequence[int], default_size: int, locks: bool) -> None:
        self.name = name
        self.sizes = tuple(sizes)
        self.default_size = default_size
        self.locks = locks

    # --- creation -----------------------------------------------------------------------
    def new_game(self, options: Mapping[str, Any] | None = None, seed: bytes | None = None) -> FlankState:
        """A new empty board. ``seed`` is accepted for the common interface; this game has no chance."""
        opts = dict(options or {})
        size = opts.pop("size", self.default_size)
        if opts:
            raise OptionsError(f"{self.name}: unknown option(s) {sorted(opts)}; only 'size' is accepted")
        if isinstance(size, bool) or not isinstance(size, int) or size not in self.sizes:
            raise OptionsError(f"{self.name}: size must be one of {list(self.sizes)}, got {size!r}")
        geo = geometry(size)
        st = FlankState.__new__(FlankState)
        st.geo = geo
        st.board = bytearray(geo.count)
        st.events = [0] * geo.count
        st.empties = list(range(geo.count))
        st.next_event = 1
        st.action_count = 0
        st.passes_in_row = 0
        st.swapped = False
        st.first_pass = 0
        st.last_action = None
        st.over = False
        st.unsettled = False
        st.territory = None
        st.territory_from = None
        return st

    # --- queries ------------------------------------------------------------------------
    def to_move(self, state: FlankState) -> int | None:
        if state.over:
            return None
        return state.seat_of(state.colour_to_move)

    def legal_actions(self, state: FlankState) -> list[FlankAction]:
        """Placements in board-text order, then ``PASS`` (not on the first action), then ``SWAP``."""
        if state.over:
            return []
        acts = state.geo.place_actions
        out: list[FlankAction] = [acts[i] for i in state.empties]
        if state.action_count:
            out.append(PASS)
            if state.action_count == 1:
                out.append(SWAP)
        return out

    def scores(self, state: FlankState) -> dict[str, int]:
        """Stones plus territory for each colour, at this moment.

        Along each line, two consecutive stones of one colour an even number of points apart
        flank the empty midpoint; a point flanked only by one colour is its territory. The
        territory is kept with the state and carried from one placement to the next (only the
        lines through the stones that changed are read again); see ``Territory``.
        """
        board = state.board
        territory = _territory(state)
        black = board.count(1) + board.count(1 | LOCK) + territory.black
        white = board.count(2) + board.count(2 | LOCK) + territory.white
        return {BLACK: black, WHITE: white}

    def scores_by_seat(self, state: FlankState) -> dict[int, int]:
        by_colour = self.scores(state)
        return {seat: by_colour[state.colour_of(seat)] for seat in (SEAT_1, SEAT_2)}

    def outcome(self, state: FlankState) -> Outcome | None:
        if not state.over:
            return None
        scores = self.scores(state)
        if scores[BLACK] != scores[WHITE]:
            winner = BLACK if scores[BLACK] > scores[WHITE] else WHITE
            tie_break = False
        else:
            winner = COLOUR_NAMES[state.first_pass]
            tie_break = True
        return Outcome(
            winner_seat=state.seat_of(winner),
            winner_colour=winner,
            scores={state.seat_of(BLACK): scores[BLACK], state.seat_of(WHITE): scores[WHITE]},
            colour_scores=scores,
            reason="two_passes",
            details={"tie_break_first_pass": tie_break, "first_pass_colour": COLOUR_NAMES[state.first_pass]},
        )

    def observe(self, state: FlankState, seat: int) -> FlankObservation:
        """The position as ``seat`` sees it: everything in these games is public."""
        if seat not in (SEAT_1, SEAT_2):
            raise ValueError(f"seat must be 1 or 2, got {seat!r}")
        scores = self.scores(state)
        return FlankObservation(
            game=self.name,
            size=state.geo.size,
            seat=seat,
            colour=state.colour_of(seat),
            to_move_seat=self.to_move(state),
            to_move_colour=state.colour_to_move,
            board=self.board_text(state),
            events=tuple(state.events),
            swapped=state.swapped,
            action_count=state.action_count,
            last_action=None if state.last_action is None else self.format_action(state.last_action),
            first_pass_colour=COLOUR_NAMES[state.first_pass] if state.first_pass else None,
            scores=((BLACK, scores[BLACK]), (WHITE, scores[WHITE])),
            over=state.over,
        )

    def board_text(self, state: FlankState) -> str:
        """The rules' board text: rows from the top, ``.`` ``B`` ``W`` and locked ``b`` ``w``."""
        cells = state.board.translate(_CELL_BYTES).decode("ascii")
        return "/".join([cells[a:b] for a, b in state.geo.row_bounds])

    # --- actions ------------------------------------------------------------------------
    def parse_action(self, text: str) -> FlankAction:
        """``pass``, ``swap`` or a point name; raises ``MalformedAction`` for anything else."""
        if text == "pass":
            return PASS
        if text == "swap":
            return SWAP
        if isinstance(text, str) and POINT_NAME.match(text):
            return Place(text)
        raise MalformedAction(
            f"cannot read action {_shown(text)}: expected 'pass', 'swap' or a point name "
            "(a lowercase letter then a number without leading zeros, such as 'g7')"
        )

    def format_action(self, action: FlankAction) -> str:
        if isinstance(action, Place):
            return action.point
        if isinstance(action, Pass):
            return "pass"
        if isinstance(action, Swap):
            return "swap"
        raise MalformedAction(f"not a {self.name} action: {_shown(action)}")

    def apply(self, state: FlankState, action: FlankAction) -> FlankState:
        """The state after ``action``; ``state`` itself is left as it was."""
        new = state.copy()
        self.apply_in_place(new, action)
        return new

    def apply_in_place(self, state: FlankState, action: FlankAction) -> None:
        """Play ``action`` on ``state`` itself (for search code that owns the state).

        A refused action raises before anything changes.
        """
        if state.over:
            raise IllegalAction("the game is over")
        if type(action) is Place:
            geo = state.geo
            p = geo.index.get(action.point) if isinstance(action.point, str) else None
            if p is None:
                if not isinstance(action.point, str) or not POINT_NAME.match(action.point):
                    raise MalformedAction(
                        f"{_shown(action.point)} is not a point name (a lowercase letter then a number "
                        "without leading zeros, such as 'g7')"
                    )
                raise IllegalAction(f"{_cut(action.point)} is not on the size-{geo.size} board")
            board = state.board
            if board[p]:
                raise IllegalAction(f"{action.point} is occupied")
            flipped = _territory_before_placing(state, p)
            mover = state.mover_code
            board[p] = mover
            state.events[p] = state.next_event
            state.next_event += 1
            empties = state.empties
            del empties[bisect_left(empties, p)]
            state.action_count += 1
            state.passes_in_row = 0
            state.last_action = action
            self._cascade(state, p, mover, flipped)
            return
        if type(action) is Pass:
            if state.action_count == 0:
                raise IllegalAction("the first player must place a stone: no pass on the first action")
            if not state.first_pass:
                state.first_pass = state.mover_code
            state.action_count += 1
            state.passes_in_row += 1
            state.last_action = action
            if state.passes_in_row >= 2:
                state.over = True
            return
        if type(action) is Swap:
            if state.action_count != 1:
                raise IllegalAction("swap is only allowed as the second action of the game")
            state.swapped = True
            state.action_count += 1
            state.last_action = action
            return
        raise MalformedAction(f"not a {self.name} action: {_shown(action)}")

    def _cascade(self, state: FlankState, placed: int, mover: int, flipped: list[int]) -> None:  # noqa: C901 - the engine's hot path, kept in one piece
        """Stages A and B after a placement, until a round flips nothing or the guard stops it.
        Every stone flipped (and kept flipped) is appended to ``flipped``."""
        board = state.board
        events = state.events
        geo = state.geo
        pairs = geo.axis_pairs
        rays = geo.rays
        locks = self.locks
        if state.unsettled:
            # The previous cascade was cut by the guard: any stone may be flippable.
            dirty = {i for i in range(geo.count) if board[i]}
            state.unsettled = False
        else:
            dirty = {placed}
            _nearest_stones(board, rays[placed], dirty)
        seen: set[bytes] | None = None
        stage_colours = (3 - mover, mover)  # stage A flips the enemy's stones, stage B the mover's
        while True:
            flipped_round = False
            for colour in stage_colours:
                flips = []
                checked = []
                for p in dirty:
                    cell = board[p]
                    if cell & 3 == colour:
                        checked.append(p)
                        verdict = _flip_verdict(board, events, pairs[p], cell)
                        if verdict:
                            flips.append((p, verdict))
                dirty.difference_update(checked)
                if not flips:
                    continue
                if seen is None:
                    seen = {bytes(board)}
                event = state.next_event
                before = [(p, board[p], events[p]) for p, _ in flips]
                other = 3 - colour
                for p, verdict in flips:
                    cell = board[p]
                    new_cell = other | (cell & LOCK)
                    if verdict == 2 and locks:
                        new_cell |= LOCK
                    board[p] = new_cell
                    events[p] = event
                key = bytes(board)
                if key in seen:
                    # Cascade guard: this position already occurred in this turn; undo and stop.
                    for p, cell, ev in before:
                        board[p] = cell
                        events[p] = ev
                    state.unsettled = True
                    return
                seen.add(key)
                state.next_event = event + 1
                for p, _ in flips:
                    flipped.append(p)
                    dirty.add(p)
                    _nearest_stones(board, rays[p], dirty)
                flipped_round = True
            if not flipped_round:
                return


def state_from_observation(rules: FlankRules, obs: FlankObservation) -> FlankState:
    """Rebuild a playable state from an observation (for bots' search code)."""
    state = rules.new_game({"size": obs.size})
    geo = state.geo
    cells = obs.board.replace("/", "")
    if len(cells) != geo.count or len(obs.events) != geo.count:
        raise ValueError("the observation's board does not fit its size")
    for p, ch in enumerate(cells):
        state.board[p] = CHAR_CELLS[ch]
        state.events[p] = obs.events[p] if ch != "." else 0
    state.empties = [i for i in range(geo.count) if not state.board[i]]
    state.next_event = max(state.events, default=0) + 1
    state.action_count = obs.action_count
    state.swapped = obs.swapped
    state.first_pass = COLOUR_CODES[obs.first_pass_colour] if obs.first_pass_colour else 0
    state.last_action = None if obs.last_action is None else rules.parse_action(obs.last_action)
    state.passes_in_row = 1 if obs.last_action == "pass" else 0
    state.over = obs.over
    state.territory = None
    state.territory_from = None
    state.unsettled = True  # unknown whether a guard cut the last cascade: re-examine every stone
    return state
