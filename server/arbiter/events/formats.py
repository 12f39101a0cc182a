"""The next round of an event, whatever its format: one entry point for the hosting."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from . import knockout, round_robin, swiss
from .model import EventConfig, Finished, Format, History, Round


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
