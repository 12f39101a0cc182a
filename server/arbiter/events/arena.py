"""Arena: the pure part (who meets whom among the free bots, and the arena's points).

Pairing: the free bots are taken by points (highest first, ties in the order given); each is
paired with the free bot whose points are closest to its own (ties: the earlier in that order),
never with the opponent of its latest game, nor with a bot whose latest opponent it was. A bot
left without an allowed partner waits for the next pairing. Seat 1 goes to the bot with more
games in seat 2 (equal: the one with more points).

Points (the arena convention): a win is 2, a draw 1, a loss 0; once a bot has won two games in a
row it is *on a streak* and its games count double (a win 4, a draw 2) until a game it does not
win, which still counts double and ends the streak. A forfeit (no-show) counts as a loss for the
absent bot and a win for the other.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .model import Game, Pairing

WIN_POINTS = 2
DRAW_POINTS = 1
#: Wins in a row that put a bot on a streak (its following games count double).
STREAK_WINS = 2


@dataclass(frozen=True)
class FreeBot:
    """A bot waiting for its next arena game."""

    name: str
    points: int
    #: The opponent of its latest game (None: none yet).
    last_opponent: str | None = None
    #: Games in seat 1 minus games in seat 2.
    seat_balance: int = 0


def pair(free: Sequence[FreeBot]) -> list[Pairing]:
    """The pairings of the free bots now; a bot left out waits."""
    position = {bot.name: index for index, bot in enumerate(free)}
    waiting = sorted(free, key=lambda bot: (-bot.points, position[bot.name]))
    pairings: list[Pairing] = []
    while waiting:
        bot = waiting.pop(0)
        allowed = [
            other for other in waiting if other.name != bot.last_opponent and other.last_opponent != bot.name
        ]
        if not allowed:
            continue
        partner = min(allowed, key=lambda other: abs(other.points - bot.points))
        waiting.remove(partner)
        first, second = sorted(
            (bot, partner), key=lambda one: (one.seat_balance, -one.points, position[one.name])
        )
        pairings.append(Pairing(first.name, second.name))
    return pairings


@dataclass
class ArenaScore:
    """A bot's arena account: its points, games, wins and current run of wins."""

    points: int = 0
    games: int = 0
    wins: int = 0
    draws: int = 0
    #: Wins in a row up to now (on a streak from ``STREAK_WINS``).
    run: int = 0
    #: Its games' points in order (2, 4, 1, 0, ...), for the standings' sheet.
    sheet: tuple[int, ...] = ()

    @property
    def on_streak(self) -> bool:
        return self.run >= STREAK_WINS


def score(games: Sequence[Game]) -> dict[str, ArenaScore]:
    """Every bot's arena account from its games in the order they finished."""
    accounts: dict[str, ArenaScore] = {}
    for game in games:
        for bot in (game.seat_1, game.seat_2):
            account = accounts.setdefault(bot, ArenaScore())
            outcome = game.outcome(bot)
            base = WIN_POINTS if outcome == "win" else DRAW_POINTS if outcome == "draw" else 0
            earned = base * (2 if account.on_streak else 1)
            account.points += earned
            account.sheet = (*account.sheet, earned)
            account.games += 1
            account.wins += outcome == "win"
            account.draws += outcome == "draw"
            account.run = account.run + 1 if outcome == "win" else 0
    return accounts
