"""Knockout: a seeded bracket, byes to the top seeds, pairings decided by N games.

The bracket has P places, the smallest power of two at least the number of entrants; seed s
meets seed P+1-s in round 1, laid out so that seeds 1 and 2 can meet only in the final (and 1-4
only from the semi-finals on). The P-n places past the last seed are empty: the top P-n seeds
have a bye in round 1. The higher seed (the smaller number) takes seat 1 of a pairing's first
game. A pairing plays its scheduled games; the side with more points goes through. Level after
them: up to ``TIE_BREAK_GAMES`` more games are played one at a time (seats going on alternating;
with duplicate pairs a game and its duplicate), and the first that leaves one side ahead decides;
still level after the last of them, the higher seed goes through.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .model import FINISHED, Finished, Game, History, Pairing, Round, points_between, schedule

#: Extra games after a level pairing before the higher seed goes through.
TIE_BREAK_GAMES = 3


def seed_order(entrants: Sequence[str], ratings: Mapping[str, float] | None = None) -> list[str]:
    """The seeds: by rating (highest first) when ``ratings`` are given, bots without one after
    those with one; ties, and every bot without ratings, in entry order."""
    if not ratings:
        return list(entrants)
    entry = {bot: index for index, bot in enumerate(entrants)}
    return sorted(entrants, key=lambda bot: (bot not in ratings, -ratings.get(bot, 0.0), entry[bot]))


def bracket_size(entrants: int) -> int:
    size = 1
    while size < entrants:
        size *= 2
    return size


def bracket_seeds(size: int) -> list[int]:
    """Seed numbers in bracket order for ``size`` places: [1, 8, 4, 5, 2, 7, 3, 6] for 8."""
    order = [1]
    while len(order) < size:
        places = 2 * len(order) + 1
        order = [seed for top in order for seed in (top, places - top)]
    return order


def rounds_of(entrants: int) -> int:
    """Rounds of a knockout of ``entrants``: log2 of the bracket's size."""
    return max(0, bracket_size(entrants).bit_length() - 1)


def next_round(
    seeds: Sequence[str], history: History, games_per_pairing: int = 1, duplicate_pairs: bool = False
) -> Round | Finished:
    """The next round of the knockout of ``seeds`` (in seed order); every pairing of
    ``history``'s rounds must be decided (``advancer``)."""
    alive = survivors(seeds, history, games_per_pairing, duplicate_pairs)
    if len([bot for bot in alive if bot is not None]) < 2:
        return FINISHED
    number = len(history.rounds) + 1
    rank = {bot: index for index, bot in enumerate(seeds)}
    pairings: list[Pairing] = []
    byes: list[str] = []
    for index in range(0, len(alive), 2):
        a, b = alive[index], alive[index + 1]
        if a is None or b is None:
            present = a if b is None else b
            if present is not None:
                byes.append(present)
            continue
        high, low = sorted((a, b), key=rank.__getitem__)
        pairings.append(Pairing(high, low))
    return Round(number, tuple(pairings), tuple(byes))


def survivors(
    seeds: Sequence[str], history: History, games_per_pairing: int, duplicate_pairs: bool
) -> list[str | None]:
    """The bracket's places still in play after ``history``, in bracket order (None: empty)."""
    size = bracket_size(len(seeds))
    alive: list[str | None] = [
        seeds[seed - 1] if seed <= len(seeds) else None for seed in bracket_seeds(size)
    ]
    rank = {bot: index for index, bot in enumerate(seeds)}
    for played in history.rounds:
        tables = {pairing.bots: table for table, pairing in enumerate(played.pairings, start=1)}
        following: list[str | None] = []
        for index in range(0, len(alive), 2):
            a, b = alive[index], alive[index + 1]
            if a is None or b is None:
                following.append(a if b is None else b)
                continue
            high, low = sorted((a, b), key=rank.__getitem__)
            table = tables.get((high, low))
            if table is None:
                raise ValueError(f"round {played.number} has no pairing {high} - {low} of the bracket")
            games = history.games_of(played.number, table)
            winner = advancer(Pairing(high, low), games, games_per_pairing, duplicate_pairs)
            if winner is None:
                raise ValueError(f"round {played.number}: {high} - {low} is not decided yet")
            following.append(winner)
        alive = following
    return alive


def next_games(
    pairing: Pairing, games: Sequence[Game], games_per_pairing: int, duplicate_pairs: bool
) -> list[tuple[str, str]]:
    """The seats of the pairing's games still to play (none: it is decided). ``pairing.seat_1``
    is the higher seed."""
    unit = 2 if duplicate_pairs else 1
    extra = -(-max(0, len(games) - games_per_pairing * unit) // unit)  # tie-break units begun
    begun = schedule(pairing, games_per_pairing + extra, duplicate_pairs)
    if len(games) < len(begun):
        return begun[len(games) :]
    if _leader(pairing, games) is not None or extra >= TIE_BREAK_GAMES:
        return []
    # The tie-break games go on alternating seats from where the scheduled ones stopped.
    return schedule(pairing, games_per_pairing + extra + 1, duplicate_pairs)[len(games) :]


def advancer(
    pairing: Pairing, games: Sequence[Game], games_per_pairing: int, duplicate_pairs: bool
) -> str | None:
    """Who goes through (None: games are still to play). ``pairing.seat_1`` is the higher seed."""
    if next_games(pairing, games, games_per_pairing, duplicate_pairs):
        return None
    return _leader(pairing, games) or pairing.seat_1


def _leader(pairing: Pairing, games: Sequence[Game]) -> str | None:
    high, low = points_between(games, pairing.seat_1), points_between(games, pairing.seat_2)
    if high == low:
        return None
    return pairing.seat_1 if high > low else pairing.seat_2
