"""``surge_tips``' choice computed on a full engine state: the reply model of ``ismcts_surge``.

Not a bot itself. ``surge_tips`` (the greedy yardstick) scores every legal placement by the
designer's tips plus a four-surge look-ahead of the whole board, with the opponent's face-down
stone (if any) taken to be worth the rounded mean of the opponent's stones it has not seen. In a
determinization the search has a full state, so it can compute what such a player would place
there, seeing only what that player sees: :func:`tips_choices` gives the placements ``surge_tips``
rates best (several when they tie; it picks one of them at random) for the player to move.

It reads the state as the mover sees it: its own hand, every face-up stone, and the other
player's face-down stone only as the mean of that player's stones not face up and not removed
(its hand, its supply and the face-down stone itself), rounded as Python's ``round`` does, which
is what ``surge_tips.Position`` computes from an observation.

Columns surge independently, so a placement changes only its own column's look-ahead: the
figures are kept per column (the engine's cached surge, ``surge_columns``) instead of surging the
whole board for each placement. The tests check the choices against ``SurgeTipsBot`` itself.
"""

from __future__ import annotations

from collections.abc import Sequence

from arbiter_games.surge import EMPTY_COLUMN, SKIP, Column, PlaceStone, SurgeAction, SurgeState, surge_columns

from .surge_tips import Weights

FILES = "abcdefgh"
_WHERE = {f"{f}{r}": (c, r - 1) for c, f in enumerate(FILES) for r in range(1, 9)}
_W = Weights()
#: Two scores closer than this tie (``surge_tips`` uses the same tolerance).
TIE = 1e-9


#: Columns' look-ahead figures at ``Weights().horizon`` surges, kept across calls (a playout meets
#: the same columns again and again); emptied when it holds ``CACHE_LIMIT`` columns.
_CACHE: dict[Column, tuple[int, int]] = {}
CACHE_LIMIT = 200_000


def _forecast(col: Column, horizon: int) -> tuple[int, int]:
    """(Blue's points minus Orange's, stones' values left, Blue's minus Orange's) after ``horizon``
    surges of one column."""
    if horizon == _W.horizon:
        known = _CACHE.get(col)
        if known is None:
            if len(_CACHE) >= CACHE_LIMIT:
                _CACHE.clear()
            known = _CACHE[col] = surged_column(col, horizon)
        return known
    return surged_column(col, horizon)


def surged_column(col: Column, horizon: int) -> tuple[int, int]:
    """One column surged ``horizon`` times with no more placements: (Blue's points minus
    Orange's over those surges, the stones' values left in it)."""
    margin = 0
    cols: Sequence[Column] = (col,)
    for _ in range(horizon):
        cols, blue, orange = surge_columns(cols)
        margin += blue - orange
    return margin, sum(cols[0])


def hidden_guess(state: SurgeState, player: int) -> int:
    """What the other player's face-down stone is worth to ``player``: the rounded mean of the
    other player's stones ``player`` has not seen (hand, supply and the face-down stone)."""
    other = 1 - player
    col, row = state.down >> 3, state.down & 7
    down = abs(state.cols[col][row])
    pool = [*state.hands[other], *state.orders[other][state.pos[other] :], down]
    return round(sum(pool) / len(pool))


def tips_choices(state: SurgeState, legal: Sequence[SurgeAction], w: Weights = _W) -> list[SurgeAction]:
    """The placements of ``legal`` (the engine's list for ``state``) that ``surge_tips`` scores
    best for the player to move, in ``legal``'s order; ``legal`` itself when it is only a skip."""
    if not legal or legal[0] is SKIP:
        return list(legal)
    p = state.mover
    sign = 1 if p == 0 else -1
    front = 1 if p == 0 else 6
    first = p == state.first
    cols = list(state.cols)
    answer_col = -1
    if not first and state.down >= 0:
        # The other player's face-down stone, as the mover sees it.
        answer_col, row = state.down >> 3, state.down & 7
        guessed = list(cols[answer_col])
        guessed[row] = -sign * hidden_guess(state, p)
        cols[answer_col] = tuple(guessed)
    horizon = w.horizon
    base: dict[int, tuple[int, int]] = {}
    mine: dict[int, int] = {}
    best: list[SurgeAction] = []
    best_score = float("-inf")
    for action in legal:
        assert isinstance(action, PlaceStone)
        v = action.value
        c, r = _WHERE[action.square]
        col = cols[c]
        if c not in base:
            base[c] = _forecast(col, horizon)
            mine[c] = 0 if col == EMPTY_COLUMN else sum(1 for x in col if x * sign > 0)
        total = w.value * v
        if r == front:
            total += w.front_row
        own = mine[c]
        total += w.column_stones * own if own else w.new_column
        if first and col[r + sign] * sign > 0:
            total += w.back_up
        if c == answer_col:
            total += w.answer + w.answer_value * v
        placed = list(col)
        placed[r] = sign * v
        after = _forecast(tuple(placed), horizon)
        margin = sign * (after[0] - base[c][0])
        material = sign * (after[1] - base[c][1])
        total += w.forecast * margin
        total += w.material * (material - v)
        if total > best_score + TIE:
            best, best_score = [action], total
        elif abs(total - best_score) <= TIE:
            best.append(action)
    return best
