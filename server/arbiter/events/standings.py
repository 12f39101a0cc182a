"""An event's standings with their tie-breaks, and its crosstable, from its history alone.

Points: 1 a win, ½ a draw, 0 a loss or a forfeit; a bye is worth a won pairing (one point per
scheduled game) and adds nothing to the tie-breaks. Tie-breaks:

- **Buchholz**: the sum of the points of the bot's opponents, one term per pairing;
- **Sonneborn-Berger**: the sum, over the bot's opponents, of the points it scored against
  each times that opponent's points;
- **direct encounter**: among the bots still level, the points each scored in the games between
  them.

Swiss ranks by points, Buchholz, Sonneborn-Berger, then direct encounter; a round robin by points,
Sonneborn-Berger, then direct encounter (Buchholz, everyone's total less one's own there, is
shown but not used); a knockout by how far a bot went (each round's losers share a place), then
seed; an arena by arena points, then wins. Bots level on all of them share a place (1, 2, 2, 4)
and are listed in seed order.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, replace

from . import arena, knockout
from .model import EventConfig, Format, History
from .tally import Tally, tally

#: What each format ranks by after its points (a knockout: rounds won only), in order.
TIE_BREAKS: dict[Format, tuple[str, ...]] = {
    Format.SWISS: ("buchholz", "sonneborn_berger", "direct"),
    Format.ROUND_ROBIN: ("sonneborn_berger", "direct"),
    Format.DOUBLE_ROUND_ROBIN: ("sonneborn_berger", "direct"),
    Format.KNOCKOUT: (),
    Format.ARENA: ("wins",),
}


@dataclass(frozen=True)
class Standing:
    place: int
    bot: str
    #: Points (arena points in an arena).
    score: float
    buchholz: float
    sonneborn_berger: float
    #: Points against the bots level with it on everything before (0 when none is).
    direct: float
    games: int
    wins: int
    draws: int
    losses: int
    byes: int
    withdrawn: bool = False
    #: Knockout: the rounds it won or passed with a bye (the winner: all of them).
    rounds_won: int = 0


def standings(
    config: EventConfig, entrants: Sequence[str], history: History, withdrawn: Collection[str] = ()
) -> list[Standing]:
    """The standings of ``config``'s event; ``entrants`` in seed order."""
    accounts = tally(entrants, history, config.scheduled_games)
    bots = list(accounts)
    seed = {bot: index for index, bot in enumerate(bots)}
    points = {bot: accounts[bot].score for bot in bots}
    if config.format is Format.ARENA:
        arena_points = arena.score([game for _, games in sorted(history.games.items()) for game in games])
        points = {bot: float(arena_points[bot].points) if bot in arena_points else 0.0 for bot in bots}
    won = _rounds_won(config, entrants, history) if config.format is Format.KNOCKOUT else {}
    rows = {
        bot: _row(bot, accounts, points, bot in withdrawn, won.get(bot, 0), config.format) for bot in bots
    }
    keys = ("rounds_won",) if config.format is Format.KNOCKOUT else ("score", *TIE_BREAKS[config.format])

    def before_direct(row: Standing) -> tuple[float, ...]:
        return tuple(_key(row, name) for name in keys if name != "direct")

    ranked = sorted(rows.values(), key=lambda row: (before_direct(row), seed[row.bot]))
    if "direct" in keys:
        ranked = _direct_encounters(ranked, before_direct, accounts, seed)
    return _placed(ranked, lambda row: (*before_direct(row), -row.direct))


def _row(
    bot: str, accounts: dict[str, Tally], points: dict[str, float], out: bool, won: int, form: Format
) -> Standing:
    account = accounts[bot]
    return Standing(
        place=0,
        bot=bot,
        score=points[bot],
        buchholz=sum(points[other] for other in account.opponents),
        sonneborn_berger=sum(scored * points[other] for other, scored in account.against.items()),
        direct=0.0,
        games=account.games,
        wins=account.wins,
        draws=account.draws,
        losses=account.losses,
        byes=account.byes,
        withdrawn=out,
        rounds_won=won,
    )


def _key(row: Standing, name: str) -> float:
    """A sort key's part: the larger value ranks first, so it is negated."""
    return -float(getattr(row, name))


def _direct_encounters(
    ranked: list[Standing],
    level: Callable[[Standing], tuple[float, ...]],
    accounts: dict[str, Tally],
    seed: dict[str, int],
) -> list[Standing]:
    """Within each run of bots level before the direct encounter, their points against each other."""
    result: list[Standing] = []
    start = 0
    while start < len(ranked):
        end = start
        while end < len(ranked) and level(ranked[end]) == level(ranked[start]):
            end += 1
        group = ranked[start:end]
        if len(group) > 1:
            names = {row.bot for row in group}
            group = [
                replace(row, direct=sum(accounts[row.bot].against.get(other, 0.0) for other in names))
                for row in group
            ]
            group.sort(key=lambda row: (-row.direct, seed[row.bot]))
        result.extend(group)
        start = end
    return result


def _placed(ranked: list[Standing], key: Callable[[Standing], tuple[float, ...]]) -> list[Standing]:
    """Places 1, 2, 2, 4: equal ``key`` shares the place."""
    placed: list[Standing] = []
    for index, row in enumerate(ranked):
        if placed and key(row) == key(ranked[index - 1]):
            placed.append(replace(row, place=placed[-1].place))
        else:
            placed.append(replace(row, place=index + 1))
    return placed


def _rounds_won(config: EventConfig, entrants: Sequence[str], history: History) -> dict[str, int]:
    """Knockout: rounds each bot came through (won, or passed with a bye)."""
    won: dict[str, int] = {}
    for count in range(1, len(history.rounds) + 1):
        partial = History(history.rounds[:count], history.games)
        try:
            alive = knockout.survivors(entrants, partial, config.games_per_pairing, config.duplicate_pairs)
        except ValueError:  # the latest round is not decided yet
            break
        for bot in alive:
            if bot is not None:
                won[bot] = count
    return won


def crosstable(entrants: Sequence[str], history: History) -> dict[str, dict[str, float]]:
    """``table[a][b]``: the points ``a`` scored against ``b`` over all their games (pairs that
    never played are absent)."""
    accounts = tally(entrants, history, 0.0)
    return {bot: dict(account.against) for bot, account in accounts.items()}
