"""Round robin and double round robin on Berger tables.

The entrants are numbered 1..n in seed order; an odd field gets a dummy n+1 whose opponent has
the round's bye. With m the (even) table size, round 1 is ``1-m, 2-(m-1), ..., m/2-(m/2+1)``;
each later round adds m/2 to every number but m (counting 1..m-1 round and round), and m sits
in seat 2 in odd rounds and in seat 1 in even rounds. These are the FIDE Berger tables. A
double round robin plays the m-1 rounds again with the seats of every pairing swapped.
"""

from __future__ import annotations

from collections.abc import Sequence

from .model import FINISHED, Finished, History, Pairing, Round


def cycle_length(entrants: int) -> int:
    """Rounds in one cycle: n-1 for an even field, n for an odd one."""
    return entrants - 1 if entrants % 2 == 0 else entrants


def berger_table(entrants: int) -> list[list[tuple[int, int]]]:
    """One cycle's rounds as pairs of seed numbers 1..m (m = ``entrants`` rounded up to even;
    m itself is the bye when ``entrants`` is odd), seat 1 first."""
    size = entrants + entrants % 2
    if size < 2:
        return []
    half = size // 2
    # Round 1's tables, then each round from the one before.
    tables = [(table, size + 1 - table) for table in range(1, half + 1)]
    rounds: list[list[tuple[int, int]]] = []
    for number in range(1, size):
        if number > 1:
            tables = [(_turn(a, half, size), _turn(b, half, size)) for a, b in tables]
        seated = []
        for a, b in tables:
            if size in (a, b):
                other = a if b == size else b
                seated.append((other, size) if number % 2 == 1 else (size, other))
            else:
                seated.append((a, b))
        rounds.append(seated)
    return rounds


def _turn(number: int, half: int, size: int) -> int:
    """``number`` + m/2, counting 1..m-1 round and round; m stays."""
    if number == size:
        return size
    return (number - 1 + half) % (size - 1) + 1


def round_of(entrants: Sequence[str], number: int, double: bool) -> Round | Finished:
    """Round ``number`` (1, 2, ...) of the (double) round robin of ``entrants`` in seed order."""
    count = len(entrants)
    length = cycle_length(count)
    total = length * (2 if double else 1)
    if count < 2 or number > total:
        return FINISHED
    if number < 1:
        raise ValueError(f"rounds count from 1, got {number}")
    second_cycle = number > length
    pairings: list[Pairing] = []
    byes: list[str] = []
    for a, b in berger_table(count)[(number - 1) % length]:
        if a > count or b > count:
            byes.append(entrants[min(a, b) - 1])
            continue
        first, second = entrants[a - 1], entrants[b - 1]
        pairings.append(Pairing(second, first) if second_cycle else Pairing(first, second))
    return Round(number, tuple(pairings), tuple(byes))


def next_round(entrants: Sequence[str], history: History, double: bool) -> Round | Finished:
    """The round after ``history``'s (the table is fixed by ``entrants`` as they were at the
    start: a bot that withdrew keeps its place and forfeits its games)."""
    return round_of(entrants, len(history.rounds) + 1, double)
