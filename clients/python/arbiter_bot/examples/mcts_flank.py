"""A Monte Carlo tree search (UCT) bot for Torrent and Fravan.

    python -m arbiter_bot.examples.mcts_flank --server localhost:50051 --token TOKEN --game fravan --think 1

How it searches (docs/bots.md has the longer story and its measured strength):

- The tree's nodes are positions, rebuilt from the observation with the engine
  (``hexflank.state_from_observation``) and played on with ``FlankRules.apply``.
- Expanding a node plays every legal action once and scores the result: the score margin for the
  player who acted, squashed to -1..1 (``tanh(margin / SCALE)``); a pass that ends the game is
  worth exactly +1 or -1. These static values stand for the children until the search visits
  them, and the best of them, seen from the player to move, is the node's own value: a one-ply
  look-ahead (exactly the greedy bot's reply) stands in for a random playout, which in these
  games says little.
- Selection is UCT: the child with the best value (mean of what was backed up through it, or its
  static value while unvisited) plus ``C * sqrt(ln N / (n + 1))``.
- Values are averaged up the path; the move played is the searched child with the best mean.
- The tree is kept between moves: when the opponent's reply is in it, that subtree is the new root.
- It stops at the deadline from :mod:`arbiter_bot.examples.thinking` (``--think``, the clock,
  the per-decision limit, with a margin), before an iteration that would not finish in time.

Random choices (ties only) come from ``--seed``; with a fixed number of iterations the bot is
deterministic (``MctsFlankBot(seed, iterations=N)``).
"""

from __future__ import annotations

import math
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from arbiter_games.fravan import FRAVAN
from arbiter_games.hexflank import (
    BLACK,
    WHITE,
    FlankAction,
    FlankObservation,
    FlankRules,
    FlankState,
    Place,
    _flip_verdict,
    _territory,
    state_from_observation,
)
from arbiter_games.torrent import TORRENT

from ..bot import Bot, MatchSummary, TurnContext
from .thinking import DEFAULT_THINK, hard_deadline, run_search_cli, think_deadline

#: Margin (points) that is worth tanh(1) = 0.76 of a win.
SCALE = 8.0
#: UCT's exploration constant.
EXPLORATION = 0.35


@dataclass
class Stats:
    """Search figures of the last decision (for tuning and the docs)."""

    iterations: int = 0
    nodes: int = 0
    seconds: float = 0.0
    reused: bool = False


class Node:
    """A position and, once expanded, every legal action's child position and statistics."""

    __slots__ = ("actions", "children", "mover", "n", "state", "states", "static", "value", "visits", "w")

    def __init__(self, rules: FlankRules, state: FlankState) -> None:
        self.state = state
        self.mover = rules.to_move(state) or 0  # seat to move; 0 once the game is over
        self.visits = 0
        self.actions: list[FlankAction] = []
        self.states: list[FlankState | None] = []
        self.static: list[float] = []
        self.n: list[int] = []
        self.w: list[float] = []
        self.children: list[Node | None] = []
        #: The node's own value for its mover (the best static child); set by expand.
        self.value = 0.0

    @property
    def expanded(self) -> bool:
        return bool(self.actions)


def margin_value(rules: FlankRules, state: FlankState, seat: int) -> float:
    """``seat``'s position in -1..1: the outcome when the game is over, else its squashed margin."""
    if state.over:
        outcome = rules.outcome(state)
        return 1.0 if outcome is not None and outcome.winner_seat == seat else -1.0
    scores = rules.scores(state)
    me = state.colour_of(seat)
    other = WHITE if me == BLACK else BLACK
    return math.tanh((scores[me] - scores[other]) / SCALE)


def margin_of(state: FlankState, code: int) -> int:
    """Stones plus territory of colour ``code`` (1 Black, 2 White) less the other colour's.

    The same figure as ``rules.scores`` (locked stones count as stones), without its dict: the
    engine's territory cache (``_territory``) carries the territory over from the position before
    the last placement, so after ``rules.apply`` on a scored position only the lines through the
    stones that changed are read again.
    """
    board = state.board
    territory = _territory(state)
    black = board.count(1) + board.count(5) + territory.black
    white = board.count(2) + board.count(6) + territory.white
    return black - white if code == 1 else white - black


def settle(state: FlankState) -> None:
    """Clear ``unsettled`` when no stone could flip now (then the engine's fast cascade is exact).

    ``state_from_observation`` cannot know whether the last cascade was cut by the guard, so it
    marks the state unsettled, which makes the next placement re-examine every stone. When no
    stone has a flip verdict the local re-examination finds the same flips, much faster.
    """
    board, events, pairs = state.board, state.events, state.geo.axis_pairs
    if all(not board[p] or not _flip_verdict(board, events, pairs[p], board[p]) for p in range(len(board))):
        state.unsettled = False


class MctsFlankBot(Bot):
    """UCT with one-ply evaluation at the leaves, for Torrent and Fravan."""

    name = "mcts-flank"

    def __init__(
        self,
        seed: int | None = None,
        think: float = DEFAULT_THINK,
        iterations: int | None = None,
        exploration: float = EXPLORATION,
        prior_weight: float = 0.0,
    ) -> None:
        self.rng = random.Random(seed)
        self.prior_weight = prior_weight
        self.think = think
        self.iterations = iterations
        self.exploration = exploration
        self.trees: dict[str, Node] = {}  # match id -> the root after our last move
        self.last = Stats()

    # --- the decision -------------------------------------------------------------------------
    def choose(self, observation: Any, legal: Sequence[Any], context: TurnContext) -> Any:
        if not isinstance(observation, FlankObservation):
            return self.rng.choice(list(legal))
        started = time.monotonic()
        rules: FlankRules = FRAVAN if observation.game == FRAVAN.name else TORRENT
        root, reused = self._root(rules, observation, context.match_id)
        empties = observation.board.count(".")
        deadline = think_deadline(context, self.think, max(4, empties // 2 + 2))
        stats = Stats(reused=reused)
        self._search(rules, root, deadline, hard_deadline(context), stats)
        index = self._best(root)
        action = root.actions[index]
        if action not in legal:  # cannot happen with a faithful engine; never answer illegally
            action = self.rng.choice(list(legal))
        else:
            child = root.children[index]
            state = root.states[index]
            if child is None and state is not None:
                child = Node(rules, state)
            if child is not None:
                self.trees[context.match_id] = child
        stats.seconds = time.monotonic() - started
        self.last = stats
        return action

    def on_match_end(self, summary: MatchSummary) -> None:
        self.trees.pop(summary.match_id, None)

    def _root(self, rules: FlankRules, obs: FlankObservation, match_id: str) -> tuple[Node, bool]:
        """The kept subtree for this position when the opponent's reply is in it, else a new root."""
        kept = self.trees.pop(match_id, None)
        if kept is not None and obs.last_action is not None and kept.expanded:
            reply = rules.parse_action(obs.last_action)
            for i, action in enumerate(kept.actions):
                state = kept.states[i]
                if action == reply and state is not None and _same(rules, state, obs):
                    node = kept.children[i] or Node(rules, state)
                    return node, True
        state = state_from_observation(rules, obs)
        settle(state)
        return Node(rules, state), False

    def _search(self, rules: FlankRules, root: Node, deadline: float, hard: float, stats: Stats) -> None:
        """Iterate until the deadline (or ``self.iterations``); an expansion that would end late stops.

        The root's expansion (the one-ply values of every move) only stops at ``hard``, the
        decision limit less its margin: the move is never chosen among part of the moves because
        the bot's own budget is short on a slow machine.
        """
        limit = math.inf if self.iterations is not None else deadline
        if not root.expanded and not root.state.over:
            self._expand(rules, root, math.inf if self.iterations is not None else hard)
            stats.nodes += 1
        cost = 0.0
        while root.expanded:
            if self.iterations is not None:
                if stats.iterations >= self.iterations:
                    return
            elif time.monotonic() + cost > deadline:
                return
            began = time.monotonic()
            expanded = self._iterate(rules, root, limit)
            if expanded < 0:
                return  # out of time in the middle of an expansion
            stats.nodes += expanded
            stats.iterations += 1
            spent = time.monotonic() - began
            cost = spent if cost == 0.0 else 0.7 * cost + 0.3 * spent

    def _iterate(self, rules: FlankRules, root: Node, deadline: float) -> int:
        """One selection, expansion and backup: 1 when it expanded a node, 0 when not, -1 when out of time."""
        path: list[tuple[Node, int]] = []
        node = root
        expanded = 0
        while True:
            if not node.actions:  # a finished game
                value1 = 0.0
                break
            i = self._select(node)
            path.append((node, i))
            state = node.states[i]
            assert state is not None
            if state.over:
                value1 = margin_value(rules, state, 1)
                break
            child = node.children[i]
            if child is None:
                child = Node(rules, state)
                if not self._expand(rules, child, deadline):
                    return -1
                node.children[i] = child
                expanded = 1
                value1 = child.value if child.mover == 1 else -child.value
                break
            node = child
        for parent, i in path:
            mine = value1 if parent.mover == 1 else -value1
            parent.n[i] += 1
            parent.w[i] += mine
            parent.visits += 1
        return expanded

    def _select(self, node: Node) -> int:
        log_n = math.log(node.visits + 1)
        c = self.exploration
        best = 0
        best_score = -math.inf
        n, w, static = node.n, node.w, node.static
        k = self.prior_weight
        sqrt = math.sqrt
        for i in range(len(n)):
            visits = n[i]
            mean = (w[i] + k * static[i]) / (visits + k) if visits else static[i]  # as in _mean
            score = mean + c * sqrt(log_n / (visits + 1))
            if score > best_score:
                best, best_score = i, score
        return best

    def _expand(self, rules: FlankRules, node: Node, deadline: float = math.inf) -> bool:
        """Play every legal action once: the children's static values and the node's value.

        Stops at ``deadline`` (checked every few actions): then a root keeps the actions valued so
        far (False is returned), any other node stays unexpanded.
        """
        seat = node.mover
        state = node.state
        # Score the position itself first: its territory, cached with it, is where each child's
        # territory is derived from (a root rebuilt from an observation has none yet).
        _territory(state)
        actions = rules.legal_actions(state)
        states: list[FlankState | None] = []
        static: list[float] = []
        complete = True
        apply = rules.apply
        tanh = math.tanh
        for k, action in enumerate(actions):
            if k % 8 == 7 and time.monotonic() > deadline:
                complete = False
                actions = actions[:k]
                break
            after = apply(state, action)
            states.append(after)
            if after.over:
                static.append(margin_value(rules, after, seat))
            else:
                code = 1 if (seat == 2) == after.swapped else 2  # the mover's colour after the action
                static.append(tanh(margin_of(after, code) / SCALE))
        node.actions = actions
        node.states = states
        node.static = static
        node.n = [0] * len(actions)
        node.w = [0.0] * len(actions)
        node.children = [None] * len(actions)
        node.value = max(static) if static else 0.0
        return complete

    def _mean(self, node: Node, i: int) -> float:
        """Child ``i``'s value for the node's mover: the mean of what the search backed up through
        it (with its static value as ``prior_weight`` extra visits), else its static value."""
        n = node.n[i]
        k = self.prior_weight
        return (node.w[i] + k * node.static[i]) / (n + k) if n else node.static[i]

    def _best(self, root: Node) -> int:
        """The searched child with the best mean value (by static value when none was searched)."""

        def key(i: int) -> tuple[int, float]:
            return (1 if root.n[i] else 0), round(self._mean(root, i), 9)

        top = max(key(i) for i in range(len(root.actions)))
        best = [i for i in range(len(root.actions)) if key(i) == top]
        places = [i for i in best if isinstance(root.actions[i], Place)]
        return self.rng.choice(places or best)


def _same(rules: FlankRules, state: FlankState, obs: FlankObservation) -> bool:
    """Whether a tree's state is the observed position (board, events and history facts)."""
    return (
        rules.board_text(state) == obs.board
        and tuple(state.events) == obs.events
        and state.action_count == obs.action_count
        and state.swapped == obs.swapped
    )


def make_bot(seed: int | None = None) -> Bot:
    return MctsFlankBot(seed)


def main(argv: Sequence[str] | None = None) -> int:
    return run_search_cli(
        lambda options, think: MctsFlankBot(options.seed, think=think), argv, __doc__, ("torrent", "fravan")
    )


if __name__ == "__main__":
    sys.exit(main())
