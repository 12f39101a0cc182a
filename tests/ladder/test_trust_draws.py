"""A drawn ladder match (issue 20, property 3): a draw for both bots' records, and the live
ratings are what ``recompute`` gives from the store's results.

Torrent has no draws and a Surge draw is luck, so the test ends real ladder matches (started by
the scheduler on an in-process arbiter, tests/ladder/inprocess.py) as a game's rules do, with
the result it chooses: the counting after that, the host's, the store's, the standings', is the
arbiter's own.
"""

from __future__ import annotations

import asyncio

from arbiter.ladder.model import BotVersion, LadderConfig, Termination
from arbiter.ladder.ratings import INITIAL_MU, RatingTally, recompute
from arbiter.ladder.standings import standings
from arbiter.match.events import MatchEnd
from arbiter_games.timecontrol import TimeControl

from .inprocess import Node, in_process

SURGE = LadderConfig("surge-draws", "surge", {}, TimeControl(base=30.0, per_decision=1.0))
ANN, BEN = BotVersion("ann", "v1"), BotVersion("ben", "v1")


async def end_next(node: Node, winner: int | None) -> str:
    """End the running match as its rules would (seat ``winner`` won, None: a draw); its id."""
    (match,) = node.running()
    scores = {1: 30, 2: 30} if winner is None else {winner: 31, 3 - winner: 29}
    match._finish(MatchEnd("round_limit", winner, scores))
    await node.settle()
    return match.id


def live(node: Node) -> dict[BotVersion, RatingTally]:
    return dict(sorted(node.ladders.ladders[SURGE.name].tallies.items()))


def stored(node: Node) -> dict[BotVersion, RatingTally]:
    return {row.version: row.tally for row in node.store.ratings(SURGE.name)}


def check_counts(node: Node) -> dict[BotVersion, RatingTally]:
    """The host's live tallies, the store's and a replay of the store's results are one."""
    tallies = live(node)
    assert stored(node) == tallies
    assert recompute(node.store.finished_results(SURGE.name)) == tallies
    return tallies


def test_a_draw_counts_for_both_and_the_live_ratings_equal_recompute(store_url):
    async def scenario() -> None:
        async with in_process(store_url, ["ann", "ben"], [SURGE]) as node:
            for bot in (node.connect("ann"), node.connect("ben")):
                bot.join(SURGE.name)
            await node.settle()

            draw = await end_next(node, None)
            tallies = check_counts(node)
            for version in (ANN, BEN):
                tally = tallies[version]
                assert (tally.games, tally.wins, tally.losses, tally.draws) == (1, 0, 0, 1), version
                # A draw between two equal ratings moves neither mean (it is not a win for one).
                assert tally.rating.mu == INITIAL_MU
            row = node.store.match_row(draw)
            assert row is not None and row.status == "finished" and row.rated
            assert row.winner_seat is None and row.termination is Termination.GAME_END

            won = await end_next(node, 1)
            await end_next(node, None)
            tallies = check_counts(node)
            winner = node.store.match_row(won)
            assert winner is not None
            first = winner.seat_1
            second = BEN if first == ANN else ANN
            assert (tallies[first].wins, tallies[first].losses, tallies[first].draws) == (1, 0, 2)
            assert (tallies[second].wins, tallies[second].losses, tallies[second].draws) == (0, 1, 2)
            assert tallies[first].rating.mu > tallies[second].rating.mu
            rows = {row.bot: row for row in standings(node.store, SURGE.name)}
            assert {name: (r.games, r.draws) for name, r in rows.items()} == {"ann": (3, 2), "ben": (3, 2)}
            assert rows[first.bot].line().count("1-0-2") == 1

    asyncio.run(scenario())
