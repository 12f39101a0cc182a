"""What each entrant has so far, counted from an event's history alone: points, games, byes,
opponents met, points scored against each, and the balance of its seats."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from .model import History


@dataclass
class Tally:
    """One entrant's account. ``seat_balance``: games in seat 1 minus games in seat 2."""

    score: float = 0.0
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    byes: int = 0
    #: Each pairing's opponent, round by round (a rematch appears twice).
    opponents: list[str] = field(default_factory=list)
    #: Points scored against each opponent, over all games with it.
    against: dict[str, float] = field(default_factory=dict)
    seat_balance: int = 0
    #: The seat of its latest game (1 or 2), None before its first.
    last_seat: int | None = None


def tally(entrants: Sequence[str], history: History, bye_points: float) -> dict[str, Tally]:
    """Every entrant's account (a bot in the history that is not an entrant is counted too)."""
    accounts: dict[str, Tally] = {bot: Tally() for bot in entrants}
    for played in history.rounds:
        for bot in played.byes:
            account = accounts.setdefault(bot, Tally())
            account.byes += 1
            account.score += bye_points
    for played, table, pairing in history.pairings():
        for bot in pairing.bots:
            accounts.setdefault(bot, Tally()).opponents.append(pairing.other(bot))
        for game in history.games_of(played.number, table):
            for seat, bot in ((1, game.seat_1), (2, game.seat_2)):
                account = accounts.setdefault(bot, Tally())
                other = game.seat_2 if seat == 1 else game.seat_1
                scored = game.points(bot)
                account.score += scored
                account.games += 1
                account.against[other] = account.against.get(other, 0.0) + scored
                outcome = game.outcome(bot)
                account.wins += outcome == "win"
                account.draws += outcome == "draw"
                account.losses += outcome == "loss"
                account.seat_balance += 1 if seat == 1 else -1
                account.last_seat = seat
    return accounts
