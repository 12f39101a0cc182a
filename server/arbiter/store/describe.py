"""How a stored match ended, in words, by bot name (and colour where known): the CLI's
``matches list`` and the web pages' match tables say the same."""

from __future__ import annotations

from collections.abc import Mapping

from ..ladder.model import Termination
from .rows import MatchRow


def result_text(row: MatchRow, colours: Mapping[int, str] | None = None) -> str:
    """``alice won 39-22``, ``bob lost on time``, ``draw 20-20``; with the seats' final
    ``colours``: ``alice (Black) won 39-22``."""
    if row.status == "running":
        return "running"
    if row.status == "aborted":
        return "aborted" + (f" ({row.detail})" if row.detail else "")
    names = {
        seat: _named(bot, (colours or {}).get(seat))
        for seat, bot in ((1, row.seat_1.bot), (2, row.seat_2.bot))
    }
    scores = dict(row.scores or {})
    faulty = names.get(row.faulty_seat or 0)
    if row.termination is Termination.TIMEOUT and faulty is not None:
        return f"{faulty} lost on time"
    if row.termination is Termination.DISCONNECTED and faulty is not None:
        return f"{faulty} lost on time, disconnected"
    if row.termination is Termination.ILLEGAL_ACTION and faulty is not None:
        return f"{faulty} forfeited (illegal action)"
    if row.winner_seat in names:
        winner, loser = row.winner_seat, 3 - row.winner_seat
        score = f" {scores[winner]}-{scores[loser]}" if winner in scores and loser in scores else ""
        return f"{names[winner]} won{score}"
    score = f" {scores[1]}-{scores[2]}" if 1 in scores and 2 in scores else ""
    return f"draw{score}"


def _named(bot: str, colour: str | None) -> str:
    return f"{bot} ({colour.capitalize()})" if colour else bot
