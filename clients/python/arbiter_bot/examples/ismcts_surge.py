"""An information-set Monte Carlo tree search (ISMCTS) bot for Surge Stones.

    python -m arbiter_bot.examples.ismcts_surge --server localhost:50051 --token TOKEN --game surge --think 1

What the bot does not know (docs/rules/surge-stones.md, "Hidden information"): the opponent's
hand, the order of the opponent's supply, the value of the opponent's face-down stone, and the
order of its own supply. What it knows: each player owns two stones of every value 1..10, every
face-up and every removed stone, its own hand and supply (as a multiset), and how many stones
the opponent holds in hand and in supply. The draw orders come from a seed the bot only sees
committed (SHA-256), so until the seed is revealed every order that fits the facts is possible
and, the seed being uniform, equally likely.

Each playout of the search therefore starts from a *determinization* (:class:`Determinizer`): a
full engine state that agrees with everything the bot saw and uses nothing else. By default
(``MODEL``) the opponent's hidden stones come from the opponent model of
:mod:`arbiter_bot.examples.surge_model`: particles of the opponent's draw history, weighted by how
likely a big-stones-first player was to place the values it placed, so that its hand is mostly
the small stones it kept. Without the model (``model=False``, or a match joined in the middle),
the opponent's unseen stones (their 20 minus those face up and those removed) are shuffled and
dealt to their face-down stone, their hand and their supply, in the sizes the observation gives,
the face-down stone being the biggest of it and the hand dealt (``BIG_DOWN``). The bot's own
supply is shuffled either way.

The root's moves are the ``WIDTH`` placements ``surge_tips`` judges best (:func:`candidates`). By
default (``HALVING``) they are compared by sequential halving with common random numbers: the
budget is cut into phases; in each, every determinization is played out after every surviving
move with the same random numbers, and the worse half is dropped at its end (8, 4, 2 moves). With
``halving=False`` the search is single-observer ISMCTS (UCB with availability counts over one move
per determinization). A playout plays the game to the end; its first placement for each side
(``REPLY`` for the opponent, ``OWN`` for the bot) is the one ``surge_tips`` itself would make in
the determinization, seeing what that side sees (:mod:`arbiter_bot.examples.surge_reply`), and
the rest come from a cheap policy that follows the designer's tips without look-ahead
(:func:`rollout_action`; with ``lookahead=K`` the first K of those add the tips' four-surge
look-ahead, :func:`lookahead_action`, off by default). With ``down_tries`` the opponent's
face-down stone is also fitted to the square ``surge_tips`` chose for it (``Determinizer._fits``).
A playout's value is the result (+1 win, 0 draw, -1 loss) blended with the score margin. Moves are
ranked by mean value less ``RANK_PENALTY`` per place down the tips' ranking. The search stops at
the deadline from :mod:`arbiter_bot.examples.thinking`.
"""

from __future__ import annotations

import math
import random
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from arbiter_games.surge import (
    BLUE,
    EMPTY_COLUMN,
    ORANGE,
    SKIP,
    STONES,
    SURGE,
    Column,
    PlaceStone,
    SurgeAction,
    SurgeObservation,
    SurgeState,
    surge_columns,
)

from ..bot import Bot, TurnContext
from .surge_model import BETA, PARTICLES, HandFilter, OpponentTracker
from .surge_reply import surged_column, tips_choices
from .surge_tips import Position, Weights
from .thinking import DEFAULT_THINK, run_search_cli, think_deadline

FILES = "abcdefgh"
#: UCB's exploration constant (values are in -1..1).
EXPLORATION = 0.7
#: Weight of the squashed score margin in a playout's value (the rest is win/draw/loss).
MARGIN_WEIGHT = 0.5
#: Score margin worth tanh(1) of the margin part.
MARGIN_SCALE = 10.0
#: Root moves searched: the best ones by ``surge_tips``' judgement.
WIDTH = 8
#: What each place further down ``surge_tips``' ranking costs a root move's mean value at the end.
RANK_PENALTY = 0.05
#: Play every root move out from each determinization with common random numbers (see ``_paired``)
#: instead of one UCB-chosen move per determinization.
PAIRED = False
#: Decisions kept in the tree (the root's and the next ones); after them the playout policy plays.
TREE_DEPTH = 1
#: Rounds a playout plays (the current one included) before the evaluation judges the position.
PLAYOUT_ROUNDS = 100
#: Surges looked ahead by the evaluation, and the weight of the stones left on the board.
FORECAST = 4
MATERIAL = 0.3
#: Moves at the start of each playout chosen with the look-ahead policy (``lookahead_action``);
#: the rest of the playout uses the cheap ``rollout_action``.
LOOKAHEAD = 0
#: Model the opponent's face-down stone as the biggest of the stones it chose from (see
#: ``sample_hidden``) instead of any of its unseen stones.
BIG_DOWN = True
#: The most of a turn's decision limit the bot thinks (its time budget and the clock may say less).
LIMIT_SHARE = 0.25
#: Compare the root moves by sequential halving with common random numbers (``_halving``) instead
#: of UCB over one move per determinization.
HALVING = True
#: Guess the opponent's hidden stones with the opponent model of ``surge_model`` (its hand given
#: the values it placed) instead of a uniform deal.
MODEL = True
#: The look-ahead policy's weight per point of score margin won over its ``FORECAST`` surges.
LOOKAHEAD_WEIGHT = 3.0
#: The opponent's placements at the start of each playout that are ``surge_tips``' own choice in
#: the determinization (``surge_reply.tips_choices``) instead of the cheap policy's.
REPLY = 1
#: The bot's own placements at the start of each playout (after the root move) that are
#: ``surge_tips``' choices.
OWN = 1
#: Guesses tried per determinization for one whose opponent's face-down stone is ``surge_tips``'
#: choice from the hand the model dealt (``Determinizer._fits``); 0 keeps the model's first guess.
DOWN_TRIES = 0


@dataclass
class Stats:
    """Search figures of the last decision (for tuning and the docs)."""

    iterations: int = 0
    nodes: int = 0
    seconds: float = 0.0


# --------------------------------------------------------------------------------------------------
# What is hidden, and sampling it
# --------------------------------------------------------------------------------------------------


def unseen_opponent_stones(obs: SurgeObservation) -> list[int]:
    """The opponent's stones the bot has not seen (hand, supply and face-down stone), sorted.

    Their 20 stones minus those face up on the board and those removed from it.
    """
    enemy = ORANGE if obs.colour == BLUE else BLUE
    left = Counter(STONES)
    left.subtract(value for _, colour, value in obs.face_up if colour == enemy)
    left.subtract(obs.removed_orange if enemy == ORANGE else obs.removed_blue)
    if any(count < 0 for count in left.values()):
        raise ValueError("the observation shows more of the opponent's stones than exist")
    return sorted(left.elements())


@dataclass(frozen=True)
class Hidden:
    """One guess at the hidden stones: the opponent's face-down value (None when there is none),
    hand and supply order, and the bot's own supply order."""

    face_down: int | None
    opponent_hand: tuple[int, ...]
    opponent_supply: tuple[int, ...]
    own_supply: tuple[int, ...]
    #: The opponent's hand the face-down stone was chosen from, when the guess says (the model's).
    held: tuple[int, ...] = ()


def sample_hidden(
    obs: SurgeObservation, rng: random.Random, unseen: Sequence[int] | None = None, big_down: bool = False
) -> Hidden:
    """Deal the opponent's unseen stones at random into the places the observation says they are.

    Every assignment that fits the observation is possible (any hand can be completed into an
    order that explains the placements seen so far), so a uniform shuffle is the right guess.
    With ``big_down`` (the bot's default, ``BIG_DOWN``) the guess adds an opponent model: the
    opponent's face-down stone is taken to be the biggest of the hand it was placed from (the
    tips say to play big stones early), i.e. the largest of the face-down stone and the hand dealt.
    ``unseen`` is :func:`unseen_opponent_stones` of ``obs`` when the caller has it already.
    """
    enemy = ORANGE if obs.colour == BLUE else BLUE
    pool = list(unseen) if unseen is not None else unseen_opponent_stones(obs)
    has_down = any(colour == enemy for _, colour, _ in obs.face_down)
    if len(pool) != has_down + obs.opponent_hand_size + obs.opponent_supply_size:
        raise ValueError(
            f"{len(pool)} unseen opponent stones do not fill a face-down stone ({int(has_down)}), "
            f"a hand of {obs.opponent_hand_size} and a supply of {obs.opponent_supply_size}"
        )
    rng.shuffle(pool)
    if has_down and big_down:
        # The opponent model: the face-down stone is the biggest of the hand it was chosen from
        # (the hand now plus that stone); the rest of that hand stays in hand.
        held = pool[: obs.opponent_hand_size + 1]
        held.remove(max(held))
        pool = held + pool[obs.opponent_hand_size + 1 :] + [max(pool[: obs.opponent_hand_size + 1])]
    down = pool.pop() if has_down else None
    hand = tuple(sorted(pool[: obs.opponent_hand_size]))
    supply = tuple(pool[obs.opponent_hand_size :])
    own = list(obs.supply)
    rng.shuffle(own)
    return Hidden(down, hand, supply, tuple(own))


def determinize(obs: SurgeObservation, hidden: Hidden) -> SurgeState:
    """A full engine state from the observation and one guess at the hidden stones."""
    me = obs.colour
    enemy = ORANGE if me == BLUE else BLUE
    cols = [[0] * 8 for _ in range(8)]
    down_index = -1
    for square, colour, value in obs.face_up:
        c, r = _cr(square)
        cols[c][r] = value if colour == BLUE else -value
    for square, colour, shown in obs.face_down:
        c, r = _cr(square)
        down = shown if colour == me else hidden.face_down
        if down is None:
            raise ValueError("the guess has no value for the opponent's face-down stone")
        cols[c][r] = down if colour == BLUE else -down
        down_index = c * 8 + r
    hands = {me: obs.hand, enemy: hidden.opponent_hand}
    supplies = {me: hidden.own_supply, enemy: hidden.opponent_supply}
    state = SURGE.position(
        [tuple(col) for col in cols],
        hands[BLUE],
        hands[ORANGE],
        supplies[BLUE],
        supplies[ORANGE],
        round=obs.round,
        scores=(obs.blue_score, obs.orange_score),
    )
    if obs.to_move is not None and obs.to_move != obs.first_placer:
        # The second placement of the round: the first placer has placed (face down) or skipped.
        state.mover = 0 if obs.to_move == BLUE else 1
        state.down = down_index
        state.placed = 1 if down_index >= 0 else 0
    return state


class Determinizer:
    """Samples full states for one observation quickly: the slow parts are done once.

    ``sample(rng)`` gives the same states as ``determinize(obs, sample_hidden(obs, rng))`` (the
    tests check it) by copying a template state and dealing the hidden stones into it.
    """

    def __init__(
        self,
        obs: SurgeObservation,
        big_down: bool = False,
        model: HandFilter | None = None,
        down_tries: int = 0,
    ) -> None:
        self.obs = obs
        self.down_tries = down_tries
        self.big_down = big_down
        self.model = model
        first = sample_hidden(obs, random.Random(0))
        self.template = determinize(obs, first)
        self.me = 0 if obs.colour == BLUE else 1
        self.down_col = -1
        self.down_row = -1
        enemy = ORANGE if obs.colour == BLUE else BLUE
        for square, colour, _ in obs.face_down:
            if colour == enemy:
                self.down_col, self.down_row = _cr(square)
        self.sign = 1 if enemy == BLUE else -1
        self.unseen = unseen_opponent_stones(obs)
        self.has_down = self.down_col >= 0
        if model is not None:
            check = self.modelled(model, random.Random(0))
            if check is None or sorted(_dealt(check)) != self.unseen:
                self.model = None  # the model's stones are not the unseen ones: do not use it
        self.before = self._before() if self.has_down else None

    def _before(self) -> SurgeState:
        """The template as it was before the opponent placed its face-down stone (its hand is
        dealt by ``_fits``)."""
        before = self.template.copy()
        them = 1 - self.me
        col = list(before.cols[self.down_col])
        col[self.down_row] = 0
        before.cols[self.down_col] = EMPTY_COLUMN if not any(col) else tuple(col)
        row = self.down_row if them == 0 else self.down_row - 6
        before.empty |= 1 << (16 * them + 2 * self.down_col + row)
        before.mover = them
        before.down = -1
        before.placed = 0
        return before

    def sample(self, rng: random.Random) -> SurgeState:
        if self.model is not None:
            hidden = self.modelled(self.model, rng)
            if hidden is not None:
                for _ in range(self.down_tries if hidden.held else 0):
                    fitting = self._fits(hidden, rng)
                    if fitting is not None:
                        return self.state(fitting)
                    hidden = self.modelled(self.model, rng) or hidden
                return self.state(hidden)
        return self.state(sample_hidden(self.obs, rng, self.unseen, self.big_down))

    def _fits(self, hidden: Hidden, rng: random.Random) -> Hidden | None:
        """The guess with its face-down stone made ``surge_tips``' choice from the hand it was
        chosen from, or None when that choice is not the face-down stone's square.

        Rejection sampling: a placement is drawn from ``surge_tips``' best ones for that hand (all
        equally likely, as the bot breaks ties), and the guess is kept only if the placement is
        on the observed square; then the face-down value is the placement's.
        """
        before = self.before
        assert before is not None
        state = before.copy()
        state.hands[1 - self.me] = list(hidden.held)
        choices = tips_choices(state, SURGE.legal_actions(state))
        pick = choices[0] if len(choices) == 1 else rng.choice(choices)
        if not isinstance(pick, PlaceStone) or _WHERE[pick.square] != (self.down_col, self.down_row):
            return None
        if pick.value == hidden.face_down:
            return hidden
        assert hidden.face_down is not None
        hand = [*hidden.opponent_hand, hidden.face_down]
        hand.remove(pick.value)
        return Hidden(pick.value, tuple(sorted(hand)), hidden.opponent_supply, hidden.own_supply, hidden.held)

    def modelled(self, model: HandFilter, rng: random.Random) -> Hidden | None:
        """A guess from the opponent model, or None when it does not fit the observation (then the
        caller falls back to the uniform guess)."""
        guess = model.guess(rng, self.has_down)
        obs = self.obs
        if len(guess.hand) != obs.opponent_hand_size or len(guess.supply) != obs.opponent_supply_size:
            return None
        if (guess.face_down is not None) != self.has_down:
            return None
        own = list(obs.supply)
        rng.shuffle(own)
        return Hidden(guess.face_down, guess.hand, guess.supply, tuple(own), guess.held)

    def state(self, hidden: Hidden) -> SurgeState:
        state = self.template.copy()
        them = 1 - self.me
        state.hands[them] = list(hidden.opponent_hand)
        orders = (
            [hidden.own_supply, hidden.opponent_supply]
            if self.me == 0
            else [
                hidden.opponent_supply,
                hidden.own_supply,
            ]
        )
        state.orders = (orders[0], orders[1])
        state.pos = [0, 0]
        if self.down_col >= 0 and hidden.face_down is not None:
            col = list(state.cols[self.down_col])
            col[self.down_row] = self.sign * hidden.face_down
            state.cols[self.down_col] = tuple(col)
        return state


def _dealt(hidden: Hidden) -> list[int]:
    """The opponent's stones in a guess: face-down, hand and supply."""
    down = [] if hidden.face_down is None else [hidden.face_down]
    return [*down, *hidden.opponent_hand, *hidden.opponent_supply]


def _cr(square: str) -> tuple[int, int]:
    return FILES.index(square[0]), int(square[1:]) - 1


# --------------------------------------------------------------------------------------------------
# Playouts
# --------------------------------------------------------------------------------------------------


_WHERE = {f"{f}{r}": (c, r - 1) for c, f in enumerate(FILES) for r in range(1, 9)}
#: Chance that a playout move is a random legal placement instead of the policy's.
EPSILON = 0.1


def rollout_action(state: SurgeState, legal: Sequence[SurgeAction], rng: random.Random) -> SurgeAction:
    """A cheap playout move following the designer's tips without look-ahead (see ``surge_tips``).

    A placement is worth its value, +4 on the front home row, +2 per own stone in the column (-3
    for a new column), +6 when placing first right behind an own stone, and +6 plus 0.6 per point
    when placing second in the column of the opponent's face-down stone. The value terms grow
    with the value, so the best placement always uses the biggest stone in hand: only its squares
    (the tail of the engine's ``legal``, which lists values smallest first) are compared. With
    chance ``EPSILON`` the move is a random legal one instead.
    """
    return _tips_action(state, legal, rng, None)


def column_forecast(col: Column, horizon: int = FORECAST) -> tuple[int, int]:
    """One column surged ``horizon`` times with no more placements (the engine's cached surge):
    (Blue's points minus Orange's over those surges, the stones' values left in it, Blue's minus
    Orange's). Columns surge independently, so a placement only changes its own column's figures."""
    return surged_column(col, horizon)


def lookahead_action(
    state: SurgeState, legal: Sequence[SurgeAction], rng: random.Random, weight: float = LOOKAHEAD_WEIGHT
) -> SurgeAction:
    """A playout move with ``surge_tips``' short look-ahead: :func:`rollout_action`'s tips for the
    biggest stone in hand, plus ``weight`` per point of margin the placement wins over
    ``FORECAST`` surges of its column and ``MATERIAL`` per point of stones it keeps on the board
    (both from the mover's side, against the column without it). It reads only the state it is
    given (in the search, a determinization). With chance ``EPSILON`` a random legal move."""
    return _tips_action(state, legal, rng, weight)


#: Each column's count of Blue's and of Orange's stones, kept across calls (emptied when full).
_STONES_OF: dict[Column, tuple[int, int]] = {}
STONES_OF_LIMIT = 200_000


def _stones_of(col: Column) -> tuple[int, int]:
    """How many stones Blue and Orange have in ``col``."""
    known = _STONES_OF.get(col)
    if known is None:
        if len(_STONES_OF) >= STONES_OF_LIMIT:
            _STONES_OF.clear()
        known = _STONES_OF[col] = (sum(1 for x in col if x > 0), sum(1 for x in col if x < 0))
    return known


def _tips_action(
    state: SurgeState, legal: Sequence[SurgeAction], rng: random.Random, weight: float | None
) -> SurgeAction:
    """:func:`rollout_action` (``weight`` None) or :func:`lookahead_action` (the tips plus the
    column forecast's terms, ``weight`` per point of margin)."""
    if len(legal) == 1 or rng.random() < EPSILON:
        return legal[0] if len(legal) == 1 else rng.choice(legal)
    p = state.mover
    sign = 1 if p == 0 else -1
    front = 1 if p == 0 else 6
    cols = state.cols
    first = p == state.first
    answer_col = state.down >> 3 if not first and state.down >= 0 else -1
    top = legal[-1].value  # type: ignore[union-attr]
    best: list[SurgeAction] = []
    best_score = -math.inf
    k = len(legal) - 1
    last_c = -1
    column_score = 0.0
    base = (0, 0)
    while k >= 0 and legal[k].value == top:  # type: ignore[union-attr]
        a = legal[k]
        k -= 1
        c, r = _WHERE[a.square]  # type: ignore[union-attr]
        col = cols[c]
        if c != last_c:
            last_c = c
            mine = 0 if col is EMPTY_COLUMN else _stones_of(col)[p]
            column_score = 2.0 * mine if mine else -3.0
            if weight is not None:
                base = column_forecast(col)
        score = column_score
        if r == front:
            score += 4.0
        if first:
            ahead = r + sign
            if 0 <= ahead < 8 and col[ahead] * sign > 0:
                score += 6.0
        elif c == answer_col:
            score += 6.0 + 0.6 * top
        if weight is not None:
            placed = list(col)
            placed[r] = sign * top
            margin, material = column_forecast(tuple(placed))
            score += weight * sign * (margin - base[0]) + MATERIAL * (sign * (material - base[1]) - top)
        if score > best_score:
            best, best_score = [a], score
        elif score == best_score:
            best.append(a)
    return best[0] if len(best) == 1 else rng.choice(best)


def playout_value(
    state: SurgeState,
    rng: random.Random,
    rounds: int = 1,
    lookahead: int = 0,
    reply: int = 0,
    modelled: int = -1,
    own: int = 0,
) -> float:
    """Play ``state`` on to the end of the round, and ``rounds - 1`` rounds more (or to the end of
    the game), then judge it with :func:`evaluate`; Blue's value. The first ``reply`` placements
    of player ``modelled`` (0 Blue, 1 Orange) are ``surge_tips``' own choices
    (:func:`~arbiter_bot.examples.surge_reply.tips_choices`, ties broken at random); of the other
    moves, the first ``own`` placements of the other player are ``surge_tips``' choices too, then
    the first ``lookahead`` come from :func:`lookahead_action`, the rest from
    :func:`rollout_action`."""
    apply = SURGE.apply_in_place
    legal_of = SURGE.legal_actions
    stop = state.done + rounds
    while state.mover >= 0 and state.done < stop:
        legal = legal_of(state)
        if legal[0] is SKIP:
            apply(state, SKIP)
        elif reply > 0 and state.mover == modelled:
            reply -= 1
            choices = tips_choices(state, legal)
            apply(state, choices[0] if len(choices) == 1 else rng.choice(choices))
        elif own > 0 and state.mover != modelled:
            own -= 1
            choices = tips_choices(state, legal)
            apply(state, choices[0] if len(choices) == 1 else rng.choice(choices))
        elif lookahead > 0:
            lookahead -= 1
            apply(state, lookahead_action(state, legal, rng))
        else:
            apply(state, rollout_action(state, legal, rng))
    return evaluate(state)


def evaluate(state: SurgeState, horizon: int = FORECAST, material: float = MATERIAL) -> float:
    """Blue's value in -1..1 of a position at the start of a round (or of a finished game).

    A finished game is its result blended with the margin. Otherwise the board is surged
    ``horizon`` times with no more placements (the engine's cached surge); the value is the
    squashed score margin after them plus ``material`` times the stones left on the board
    (Blue's values minus Orange's).
    """
    margin = state.score[0] - state.score[1]
    if state.mover < 0:
        return result_value(state)
    cols: Sequence[Column] = state.cols
    for _ in range(horizon):
        cols, blue, orange = surge_columns(cols)
        margin += blue - orange
    on_board = sum(map(sum, cols))
    return math.tanh((margin + material * on_board) / MARGIN_SCALE)


def result_value(state: SurgeState) -> float:
    """Blue's value of a finished game: win/draw/loss blended with the squashed margin."""
    margin = state.score[0] - state.score[1]
    result = (margin > 0) - (margin < 0)
    return (1 - MARGIN_WEIGHT) * result + MARGIN_WEIGHT * math.tanh(margin / MARGIN_SCALE)


# --------------------------------------------------------------------------------------------------
# The search
# --------------------------------------------------------------------------------------------------


class FastPosition(Position):
    """``surge_tips``' judgement of a placement, with the engine's cached surge for its look-ahead."""

    def _forecast(self, cols: list[list[int]]) -> tuple[int, int]:
        board: Sequence[Column] = [tuple(col) for col in cols]
        margin = 0
        for _ in range(self.horizon):
            board, blue, orange = surge_columns(board)
            margin += blue - orange
        material = sum(map(sum, board))
        return margin * self.sign, material * self.sign


def candidates(obs: SurgeObservation, places: Sequence[PlaceStone], count: int) -> list[PlaceStone]:
    """The ``count`` placements ``surge_tips`` likes best, best first (the search's root moves)."""
    weights = Weights()
    position = FastPosition(obs, weights)
    ranked = sorted(places, key=lambda a: -position.score(a, weights))
    return ranked[:count]


def phase_sizes(moves: int) -> list[int]:
    """How many root moves each phase of sequential halving plays: 6 -> [6, 3, 2], 4 -> [4, 2]."""
    sizes = []
    size = moves
    while size > 1:
        sizes.append(size)
        size = (size + 1) // 2 if size > 2 else 1
    return sizes or [moves]


class Node:
    """A node of the information-set tree: statistics per action, with availability counts.

    Actions are the engine's interned ``PlaceStone`` objects, keyed by ``id`` (hashing the
    dataclass is slow, and the same action is always the same object in the engine's lists).
    """

    __slots__ = ("actions", "available", "children", "n", "w")

    def __init__(self) -> None:
        self.actions: dict[int, SurgeAction] = {}
        self.children: dict[int, Node] = {}
        self.n: dict[int, int] = {}
        self.w: dict[int, float] = {}  # summed values for the player who chose the action
        self.available: dict[int, int] = {}


class IsmctsSurgeBot(Bot):
    """Single-observer information-set MCTS over determinizations of the hidden stones."""

    name = "ismcts-surge"

    def __init__(
        self,
        seed: int | None = None,
        think: float = DEFAULT_THINK,
        iterations: int | None = None,
        exploration: float = EXPLORATION,
        width: int = WIDTH,
        tree_depth: int = TREE_DEPTH,
        rank_penalty: float = RANK_PENALTY,
        paired: bool = PAIRED,
        playout_rounds: int = PLAYOUT_ROUNDS,
        lookahead: int = LOOKAHEAD,
        big_down: bool = BIG_DOWN,
        halving: bool = HALVING,
        model: bool = MODEL,
        beta: float = BETA,
        reply: int = REPLY,
        own: int = OWN,
        down_tries: int = DOWN_TRIES,
    ) -> None:
        self.rng = random.Random(seed)
        self.think = think
        self.iterations = iterations
        self.exploration = exploration
        self.width = width
        self.rank_penalty = rank_penalty
        self.paired = paired
        self.tree_depth = tree_depth
        self.playout_rounds = playout_rounds
        self.lookahead = lookahead
        self.big_down = big_down
        self.halving = halving
        self.reply = reply
        self.own = own
        self.down_tries = down_tries
        self.tracker = (
            OpponentTracker(random.Random(self.rng.getrandbits(64)), PARTICLES, beta) if model else None
        )
        self.last = Stats()
        #: Every determinization of the last decision's search, when set to a list (for tests).
        self.record: list[SurgeState] | None = None

    def choose(self, observation: Any, legal: Sequence[Any], context: TurnContext) -> Any:
        places = [a for a in legal if isinstance(a, PlaceStone)]
        if not isinstance(observation, SurgeObservation):
            return places[0] if places else self.rng.choice(list(legal))
        # The opponent model follows every observation, also those with nothing to choose.
        model = self.tracker.model(context.match_id, observation) if self.tracker is not None else None
        if len(places) <= 1:
            return places[0] if places else self.rng.choice(list(legal))
        started = time.monotonic()
        rounds_left = max(2, len(observation.hand) + len(observation.supply) + 1)
        deadline = think_deadline(context, self.think, rounds_left)
        if context.decision_limit is not None:
            # Beyond thinking's margin: a loaded machine delays answers by tens of milliseconds
            # (docs/bots.md, "Measured strength"), so think at most a share of a capped decision.
            start = min(context.received_at, started)
            deadline = min(deadline, start + LIMIT_SHARE * context.decision_limit)
        root = Node()
        stats = Stats()
        sampler = Determinizer(observation, self.big_down, model, self.down_tries)
        moves = candidates(observation, places, self.width)
        engine_moves = [SURGE.parse_action(f"{a.value}@{a.square}") for a in moves]
        if self.record is not None:
            self.record.clear()
        if self.halving:
            root_keys = self._halving(root, sampler, engine_moves, started, deadline, stats)
        else:
            root_keys = {id(a) for a in engine_moves}
            self._ucb_search(root, sampler, engine_moves, deadline, stats)
        by_text = {(a.value, a.square): a for a in places}
        scored = []
        for key, action in root.actions.items():
            if key not in root_keys:
                continue
            wire = by_text.get((action.value, action.square)) if isinstance(action, PlaceStone) else None
            if wire is not None:
                n = root.n[key]
                mean = root.w[key] / max(1, n) - self.rank_penalty * moves.index(wire)
                scored.append((round(mean, 9), -moves.index(wire), wire))
        stats.seconds = time.monotonic() - started
        self.last = stats
        if not scored:
            return moves[0]
        return max(scored, key=lambda item: item[:2])[2]

    def _ucb_search(
        self, root: Node, sampler: Determinizer, moves: Sequence[SurgeAction], deadline: float, stats: Stats
    ) -> None:
        """The search without halving: UCB over the root moves (or ``paired`` rounds) to the deadline."""
        root_keys = {id(a) for a in moves}
        while True:
            if self.iterations is not None:
                if stats.iterations >= self.iterations:
                    break
            elif stats.iterations and time.monotonic() >= deadline:
                break
            state = sampler.sample(self.rng)
            if self.record is not None:
                self.record.append(state.copy())
            if self.paired:
                stats.iterations += self._paired(root, state, moves, deadline)
            else:
                stats.nodes += self._iterate(root, state, root_keys)
                stats.iterations += 1

    def _halving(
        self,
        root: Node,
        sampler: Determinizer,
        moves: Sequence[SurgeAction],
        started: float,
        deadline: float,
        stats: Stats,
    ) -> set[int]:
        """Sequential halving over the root moves with common random numbers; the survivors' keys.

        The budget (time, or ``iterations`` playouts) is split evenly into phases; in each phase
        every determinization plays each surviving move out with the same random numbers (see
        :meth:`_play_all`), and at its end the worse half of the survivors (by mean value less the
        rank penalty) is dropped: 6 moves, then 3, then 2. All survivors have seen the same
        determinizations, so their means compare like with like.
        """
        survivors = list(moves)
        sizes = phase_sizes(len(survivors))
        for phase, size in enumerate(sizes):
            survivors = self._best(root, survivors, moves, size)
            if self.iterations is not None:
                stop_playouts = self.iterations * (phase + 1) // len(sizes)
                while stats.iterations < stop_playouts or not stats.iterations:
                    stats.iterations += self._play_all(root, sampler.sample(self.rng), survivors)
            else:
                stop = started + (deadline - started) * (phase + 1) / len(sizes)
                while time.monotonic() < stop:  # none at all when the deadline has passed
                    stats.iterations += self._play_all(root, sampler.sample(self.rng), survivors)
        return {id(a) for a in survivors}

    def _best(
        self, root: Node, survivors: Sequence[SurgeAction], ranked: Sequence[SurgeAction], count: int
    ) -> list[SurgeAction]:
        """The ``count`` best of ``survivors`` by mean value less the rank penalty (unplayed: by rank)."""

        def value(action: SurgeAction) -> tuple[float, int]:
            rank = ranked.index(action)
            n = root.n.get(id(action), 0)
            mean = root.w[id(action)] / n if n else 0.0
            return (round(mean - self.rank_penalty * rank, 9), -rank)

        return sorted(survivors, key=value, reverse=True)[:count]

    def _play_all(self, root: Node, state: SurgeState, moves: Sequence[SurgeAction]) -> int:
        """Each of ``moves`` played out from ``state`` with the same random numbers; playouts made."""
        if self.record is not None:
            self.record.append(state.copy())
        seed = self.rng.getrandbits(64)
        for action in moves:
            self._play_one(root, state, action, seed)
        return len(moves)

    def _play_one(self, root: Node, state: SurgeState, action: SurgeAction, seed: int) -> None:
        """One playout of ``action`` from ``state`` with the random numbers of ``seed``, booked at
        the root."""
        key = id(action)
        after = state.copy()
        mover = after.mover
        SURGE.apply_in_place(after, action)
        value_blue = playout_value(
            after, random.Random(seed), self.playout_rounds, self.lookahead, self.reply, 1 - mover, self.own
        )
        if key not in root.n:
            root.actions[key] = action
            root.n[key] = 0
            root.w[key] = 0.0
        root.n[key] += 1
        root.w[key] += value_blue if mover == 0 else -value_blue

    def _paired(self, root: Node, state: SurgeState, moves: Sequence[SurgeAction], deadline: float) -> int:
        """Every root move played out from the same determinization with the same random numbers.

        Common random numbers: the moves' playouts differ only where the moves make them differ,
        so comparing their means needs far fewer determinizations. The number of playouts made.
        """
        seed = self.rng.getrandbits(64)
        done = 0
        for action in moves:
            if done and self.iterations is None and time.monotonic() >= deadline:
                break
            self._play_one(root, state, action, seed)
            done += 1
        return done

    def _iterate(self, root: Node, state: SurgeState, root_keys: set[int]) -> int:
        """One pass: select and expand in ``state`` (a determinization), play out, back up.

        At the root only the actions in ``root_keys`` (ids of the engine's actions) are searched.
        """
        path: list[tuple[Node, int, int]] = []
        node = root
        expanded = 0
        rng = self.rng
        apply = SURGE.apply_in_place
        while state.mover >= 0 and len(path) < self.tree_depth:
            legal = SURGE.legal_actions(state)
            if legal[0] is SKIP:
                apply(state, SKIP)  # the arbiter plays skips itself
                continue
            if node is root:
                legal = [a for a in legal if id(a) in root_keys]
            mover = state.mover
            n = node.n
            available = node.available
            untried = []
            for a in legal:
                key = id(a)
                available[key] = available.get(key, 0) + 1
                if key not in n:
                    untried.append(a)
            if untried:
                action = rng.choice(untried)
                key = id(action)
                node.actions[key] = action
                n[key] = 0
                node.w[key] = 0.0
                node.children[key] = Node()
                path.append((node, key, mover))
                apply(state, action)
                expanded = 1
                break
            key = self._select(node, legal)
            path.append((node, key, mover))
            apply(state, node.actions[key])
            node = node.children[key]
        value_blue = playout_value(state, rng, self.playout_rounds, self.lookahead)
        for parent, key, mover in path:
            parent.n[key] += 1
            parent.w[key] += value_blue if mover == 0 else -value_blue
        return expanded

    def _select(self, node: Node, legal: Sequence[SurgeAction]) -> int:
        c = self.exploration
        best = id(legal[0])
        best_score = -math.inf
        n, w, available = node.n, node.w, node.available
        log = math.log
        sqrt = math.sqrt
        for a in legal:
            key = id(a)
            visits = n[key]
            score = w[key] / visits + c * sqrt(log(available[key]) / visits)
            if score > best_score:
                best, best_score = key, score
        return best


def make_bot(seed: int | None = None) -> Bot:
    return IsmctsSurgeBot(seed)


def main(argv: Sequence[str] | None = None) -> int:
    return run_search_cli(
        lambda options, think: IsmctsSurgeBot(options.seed, think=think), argv, __doc__, ("surge",)
    )


if __name__ == "__main__":
    sys.exit(main())
