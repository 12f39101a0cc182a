"""Swiss pairing as a maximum-weight matching (networkx's blossom algorithm, no search of ours).

The entrants still in the event are put in *pairing order*: by score (highest first), ties by
seed; inside each score group the top half is interleaved with the bottom half (1, k+1, 2,
k+2, ... for a group of 2k), so that neighbours in the order are the classic top-half against
bottom-half pairs. An odd field adds a bye node after the last entrant. Each possible pairing
(an edge) is weighed on tiers, each worth more than all lower tiers together, so the matching
(of the most edges, every entrant paired) is the best on the first tier, then the second, ...:

1. no rematch (and no second bye for a bot);
2. no seat imbalance past one (a bot's games in seat 1 minus games in seat 2 stays within -1..1);
3. the bye to the lowest score possible;
4. score groups: the least sum, over the pairs, of the squared score difference (in half points)
   times the higher score's level (1 for the lowest score, 2 for half a point more, ...), so that
   bots float between low score groups rather than high ones;
5. neighbours in the pairing order: the least sum of the pairs' distances in it.

Tiers 1 and 2 are kept outright while a pairing of the round allows it: the graph first has only
the edges that keep them, from each entrant to the 8 nearest entrants before it and after it in
the pairing order that it may meet so (then 16, 32, ..., all of them), and only when even the
whole graph has no perfect matching are the other edges added, weighed down.

Seats: the bot with more games in seat 2 takes seat 1 of the pairing's first game; on equal
balance the one that sat in seat 2 last; then the higher in the pairing order.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

import networkx as nx

from .model import FINISHED, Finished, History, Pairing, Round, schedule
from .tally import Tally, tally

#: The first window of the graph: each entrant's edges to this many it may meet on either side.
FIRST_WINDOW = 8


def default_rounds(entrants: int) -> int:
    """Rounds of a Swiss event when the host names none: ceil(log2(entrants)), at least 1."""
    return max(1, math.ceil(math.log2(max(entrants, 2))))


def next_round(
    entrants: Sequence[str],
    history: History,
    rounds: int,
    games_per_pairing: int = 1,
    duplicate_pairs: bool = False,
    withdrawn: Collection[str] = (),
) -> Round | Finished:
    """The next round of a Swiss event of ``rounds`` rounds; ``entrants`` in seed order."""
    players = [bot for bot in entrants if bot not in withdrawn]
    if len(history.rounds) >= rounds or len(players) < 2:
        return FINISHED
    bye_points = games_per_pairing * (2 if duplicate_pairs else 1)
    accounts = tally(entrants, history, bye_points)
    first = schedule(Pairing("a", "b"), games_per_pairing, duplicate_pairs)
    seat_net = abs(sum(1 if seats[0] == "a" else -1 for seats in first))
    return pair_round(len(history.rounds) + 1, pairing_order(players, accounts), accounts, seat_net)


def pairing_order(players: Sequence[str], accounts: Mapping[str, Tally]) -> list[str]:
    """``players`` (in seed order) by score, each score group's halves interleaved."""
    seed = {bot: index for index, bot in enumerate(players)}
    ranked = sorted(players, key=lambda bot: (-accounts[bot].score, seed[bot]))
    order: list[str] = []
    start = 0
    while start < len(ranked):
        end = start
        while end < len(ranked) and accounts[ranked[end]].score == accounts[ranked[start]].score:
            end += 1
        group = ranked[start:end]
        top, bottom = group[: len(group) // 2], group[len(group) // 2 :]
        for index in range(len(bottom)):
            if index < len(top):
                order.append(top[index])
            order.append(bottom[index])
        start = end
    return order


@dataclass(frozen=True)
class _Edge:
    """What pairing two nodes would do, tier by tier."""

    repeat: bool
    seat_break: bool
    bye_goodness: int
    score_goodness: int
    order_goodness: int

    @property
    def clean(self) -> bool:
        return not self.repeat and not self.seat_break


class _Weigher:
    """The edges of one round's graph and their weights."""

    def __init__(self, order: list[str], accounts: Mapping[str, Tally], seat_net: int) -> None:
        self.order = order
        self.accounts = accounts
        self.seat_net = seat_net
        self.bye = len(order) if len(order) % 2 else None
        self.nodes = len(order) + len(order) % 2
        self.doubled = [round(2 * accounts[bot].score) for bot in order]
        self.lowest = min(self.doubled)
        self.spread = max(self.doubled) - self.lowest + 1
        self.met = {bot: set(accounts[bot].opponents) for bot in order}
        # Tier multipliers: each tier outweighs everything below it over a whole matching.
        pairs = self.nodes // 2
        maxima = [1, 1, self.spread, self.spread**3, self.nodes]
        self.multipliers = [1] * len(maxima)
        for tier in range(len(maxima) - 2, -1, -1):
            self.multipliers[tier] = self.multipliers[tier + 1] * (pairs * maxima[tier + 1] + 1)

    def edge(self, i: int, j: int) -> _Edge:
        order_goodness = self.nodes - abs(i - j)
        if j == self.bye:
            bot = self.order[i]
            return _Edge(
                repeat=self.accounts[bot].byes > 0,
                seat_break=False,
                bye_goodness=self.spread - (self.doubled[i] - self.lowest),
                score_goodness=self.spread**3,
                order_goodness=order_goodness,
            )
        a, b = self.order[i], self.order[j]
        return _Edge(
            repeat=b in self.met[a],
            seat_break=self._seat_break(a, b),
            bye_goodness=0,
            score_goodness=self.spread**3 - self._score_cost(i, j),
            order_goodness=order_goodness,
        )

    def _score_cost(self, i: int, j: int) -> int:
        """The squared score difference (in half points), times the higher score's level (1 for
        the lowest score): a pair floating between high groups costs more than one below."""
        high = max(self.doubled[i], self.doubled[j])
        return (self.doubled[i] - self.doubled[j]) ** 2 * (1 + high - self.lowest)

    def _seat_break(self, a: str, b: str) -> bool:
        low, high = sorted((self.accounts[a].seat_balance, self.accounts[b].seat_balance))
        after_low, after_high = low + self.seat_net, high - self.seat_net
        return (abs(after_low) > 1 and abs(after_low) > abs(low)) or (
            abs(after_high) > 1 and abs(after_high) > abs(high)
        )

    def weight(self, edge: _Edge) -> int:
        tiers = (
            not edge.repeat,
            not edge.seat_break,
            edge.bye_goodness,
            edge.score_goodness,
            edge.order_goodness,
        )
        return sum(int(value) * multiplier for value, multiplier in zip(tiers, self.multipliers, strict=True))

    def matching(self, window: int, clean_only: bool) -> set[tuple[int, int]] | None:
        """The best perfect matching (None: none) over each node's edges to the ``window``
        nearest nodes before it and after it in the pairing order that it may meet (all: not
        ``clean_only``)."""
        graph: nx.Graph[int] = nx.Graph()
        graph.add_nodes_from(range(self.nodes))
        for i in range(self.nodes):
            for direction in (range(i + 1, self.nodes), range(i - 1, -1, -1)):
                taken = 0
                for j in direction:
                    edge = self.edge(min(i, j), max(i, j))
                    if edge.clean or not clean_only:
                        graph.add_edge(i, j, weight=self.weight(edge))
                        taken += 1
                        if taken == window:
                            break
        # First whether everyone can be paired at all (a matching of equal weights: quick), and
        # only then the weighed matching.
        if 2 * len(nx.max_weight_matching(graph, maxcardinality=True, weight="none")) < self.nodes:
            return None
        found: set[tuple[int, int]] = nx.max_weight_matching(graph, maxcardinality=True)
        return found


def pair_round(number: int, order: list[str], accounts: Mapping[str, Tally], seat_net: int) -> Round:
    """Round ``number`` for the entrants in pairing ``order``; ``seat_net``: how many more games
    of a pairing its seat-1 bot plays in seat 1 (1 for an odd number of games, else 0)."""
    weigher = _Weigher(order, accounts, seat_net)
    found: set[tuple[int, int]] | None = None
    window = FIRST_WINDOW
    while found is None:
        found = weigher.matching(window, clean_only=True)
        if window >= weigher.nodes:
            break
        window *= 2
    if found is None:
        found = weigher.matching(weigher.nodes, clean_only=False)
    assert found is not None  # a complete graph on an even number of nodes has a perfect matching
    pairs = sorted(tuple(sorted(pair)) for pair in found)
    byes = tuple(order[i] for i, j in pairs if j == weigher.bye)
    pairings = tuple(_seated(order, accounts, i, j) for i, j in pairs if j != weigher.bye)
    return Round(number, pairings, byes)


def _seated(order: list[str], accounts: Mapping[str, Tally], i: int, j: int) -> Pairing:
    """The pairing of positions i < j with seat 1 to the bot due it (see the module's text)."""

    def due(position: int) -> tuple[int, int, int]:
        account = accounts[order[position]]
        sat_second_last = 0 if account.last_seat == 2 else 1
        return (account.seat_balance, sat_second_last, position)

    first, second = sorted((i, j), key=due)
    return Pairing(order[first], order[second])
