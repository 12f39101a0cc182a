"""Building an event's history in the tests: rounds played with chosen or random results."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

from arbiter.events.model import EventConfig, Format, Game, History, Pairing, Round, schedule
from arbiter_games.timecontrol import TimeControl


def config(form: Format = Format.SWISS, **changes: Any) -> EventConfig:
    if form is Format.ARENA:
        changes.setdefault("duration", 600.0)
    return EventConfig(
        name="cup",
        game="torrent",
        options={"size": 9},
        control=TimeControl(base=60.0),
        format=form,
        **changes,
    )


def bots(count: int) -> list[str]:
    return [f"b{index:02d}" for index in range(1, count + 1)]


#: Who wins a game: 1, 2 or None (a draw), given its seats.
Decide = Callable[[str, str], int | None]


def played(
    history: History, made: Round, decide: Decide, games_per_pairing: int = 1, duplicate_pairs: bool = False
) -> History:
    """``history`` with round ``made`` added and all its scheduled games decided by ``decide``."""
    games = dict(history.games)
    for table, pairing in enumerate(made.pairings, start=1):
        games[(made.number, table)] = tuple(
            Game(first, second, decide(first, second))
            for first, second in schedule(pairing, games_per_pairing, duplicate_pairs)
        )
    return History((*history.rounds, made), games)


def higher_wins(order: Sequence[str]) -> Decide:
    """The bot earlier in ``order`` wins every game."""
    rank = {bot: index for index, bot in enumerate(order)}
    return lambda first, second: 1 if rank[first] < rank[second] else 2


def perfect_matchings(
    nodes: list[Any], allowed: Callable[[Any, Any], bool]
) -> Iterator[list[tuple[Any, Any]]]:
    """Every perfect matching of ``nodes`` over the allowed pairs (brute force, for small fields)."""
    if not nodes:
        yield []
        return
    first, rest = nodes[0], nodes[1:]
    for index, other in enumerate(rest):
        if allowed(first, other):
            for matching in perfect_matchings(rest[:index] + rest[index + 1 :], allowed):
                yield [(first, other), *matching]


def pairs_of(made: Round) -> set[frozenset[str]]:
    return {frozenset(pairing.bots) for pairing in made.pairings}


def met_pairs(history: History) -> list[frozenset[str]]:
    return [frozenset(pairing.bots) for _, _, pairing in history.pairings()]


def all_pairings(history: History) -> list[Pairing]:
    return [pairing for _, _, pairing in history.pairings()]
