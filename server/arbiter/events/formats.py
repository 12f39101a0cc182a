"""The next round of an event, whatever its format: one entry point for the hosting."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from . import knockout, round_robin, swiss
from .model import EventConfig, Finished, Format, Game, History, Pairing, Round, schedule


def total_rounds(config: EventConfig, entrants: int) -> int | None:
    """How many rounds the event has for ``entrants`` (a knockout: without tie-break games;
    an arena: None, it runs for its window)."""
    if config.format is Format.ROUND_ROBIN:
        return round_robin.cycle_length(entrants) if entrants >= 2 else 0
    if config.format is Format.DOUBLE_ROUND_ROBIN:
        return 2 * round_robin.cycle_length(entrants) if entrants >= 2 else 0
    if config.format is Format.SWISS:
        return config.rounds or swiss.default_rounds(entrants)
    if config.format is Format.KNOCKOUT:
        return knockout.rounds_of(entrants)
    return None


def next_round(
    config: EventConfig, entrants: Sequence[str], history: History, withdrawn: Collection[str] = ()
) -> Round | Finished:
    """The round after ``history``'s, or FINISHED. ``entrants``: as they stood at the start, in
    seed order; ``withdrawn``: those that left since (a Swiss event pairs them no more; a round
    robin or a knockout keeps their place, and the hosting forfeits their games)."""
    if config.format in (Format.ROUND_ROBIN, Format.DOUBLE_ROUND_ROBIN):
        return round_robin.next_round(entrants, history, config.format is Format.DOUBLE_ROUND_ROBIN)
    if config.format is Format.SWISS:
        rounds = total_rounds(config, len(entrants))
        assert rounds is not None
        return swiss.next_round(
            entrants, history, rounds, config.games_per_pairing, config.duplicate_pairs, withdrawn
        )
    if config.format is Format.KNOCKOUT:
        return knockout.next_round(entrants, history, config.games_per_pairing, config.duplicate_pairs)
    raise ValueError("an arena has no rounds: its free bots are paired as they come (arena.pair)")


def games_to_play(config: EventConfig, pairing: Pairing, games: Sequence[Game]) -> list[tuple[str, str]]:
    """The seats of the games ``pairing`` still has to play after ``games`` (its games so far, in
    order), ``(seat 1, seat 2)`` each; none: the pairing is decided. A knockout pairing that is
    level after its scheduled games plays its tie-break games (``knockout.next_games``)."""
    if config.format is Format.KNOCKOUT:
        return knockout.next_games(pairing, games, config.games_per_pairing, config.duplicate_pairs)
    return schedule(pairing, config.games_per_pairing, config.duplicate_pairs)[len(games) :]


def round_decided(config: EventConfig, played: Round, history: History) -> bool:
    """Whether every pairing of round ``played`` has all its games' results in ``history``."""
    return all(
        not games_to_play(config, pairing, history.games_of(played.number, board))
        for board, pairing in enumerate(played.pairings, start=1)
    )
