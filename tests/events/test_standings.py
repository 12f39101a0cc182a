"""Standings and their tie-breaks on hand-made events (the 3-round Swiss of 6 bots in
docs/events.md), the crosstable, and the same standings again from the history alone."""

from __future__ import annotations

from arbiter.events import knockout, round_robin, swiss
from arbiter.events.model import Format, Game, History, Pairing, ResultKind, Round
from arbiter.events.standings import crosstable, standings

from tests.events.helpers import config, higher_wins, played

SIX = list("ABCDEF")
#: The docs' example: each round's results, table by table (1, 2: that seat won; None: a draw).
RESULTS = ((1, 2, None), (None, 1, 2), (2, 1, None))


def _swiss_of_six() -> History:
    history = History()
    for winners in RESULTS:
        made = swiss.next_round(SIX, history, 3)
        assert isinstance(made, Round)
        outcome = {pairing.bots: winner for pairing, winner in zip(made.pairings, winners, strict=True)}
        history = played(history, made, lambda a, b: outcome[(a, b)])  # noqa: B023 - called at once
    return history


def _table(rows):
    return [(row.place, row.bot, row.score, row.buchholz, row.sonneborn_berger, row.direct) for row in rows]


def test_the_swiss_of_six_in_the_docs():
    history = _swiss_of_six()
    assert [[(p.seat_1, p.seat_2) for p in made.pairings] for made in history.rounds] == [
        [("A", "D"), ("B", "E"), ("C", "F")],
        [("E", "A"), ("D", "C"), ("F", "B")],
        [("A", "B"), ("C", "E"), ("D", "F")],
    ]
    assert _table(standings(config(Format.SWISS, rounds=3), SIX, history)) == [
        (1, "B", 2.0, 4.0, 2.5, 0.0),
        (2, "E", 1.5, 5.0, 2.75, 0.0),  # E and A: Buchholz 5, Sonneborn-Berger puts E first
        (3, "A", 1.5, 5.0, 2.25, 0.0),
        (4, "D", 1.5, 4.0, 2.0, 1.0),  # D and C level on both: D beat C
        (5, "C", 1.5, 4.0, 2.0, 0.0),
        (6, "F", 1.0, 5.0, 1.5, 0.0),
    ]
    table = crosstable(SIX, history)
    assert table["D"] == {"A": 0.0, "C": 1.0, "F": 0.5}
    assert "E" not in table["D"]


def test_standings_are_the_same_computed_again_from_the_history_alone():
    history = _swiss_of_six()
    rebuilt = History(
        tuple(Round(r.number, tuple(Pairing(*p.bots) for p in r.pairings), r.byes) for r in history.rounds),
        {
            key: tuple(Game(g.seat_1, g.seat_2, g.winner, g.kind) for g in games)
            for key, games in history.games.items()
        },
    )
    event = config(Format.SWISS, rounds=3)
    assert standings(event, SIX, rebuilt) == standings(event, SIX, history)


def test_bots_level_on_everything_share_a_place():
    history = played(History(), Round(1, (Pairing("A", "B"), Pairing("C", "D"))), lambda a, b: None)
    rows = standings(config(Format.SWISS, rounds=3), list("ABCD"), history)
    assert [(row.place, row.bot) for row in rows] == [(1, "A"), (1, "B"), (1, "C"), (1, "D")]


def test_a_bye_is_a_won_pairing_and_adds_nothing_to_the_tie_breaks():
    history = played(History(), Round(1, (Pairing("A", "B"),), ("C",)), lambda a, b: 1)
    rows = {row.bot: row for row in standings(config(Format.SWISS, rounds=2), list("ABC"), history)}
    assert (rows["C"].score, rows["C"].buchholz, rows["C"].byes, rows["C"].games) == (1.0, 0.0, 1, 0)
    assert rows["B"].buchholz == 1.0  # its opponent A's point
    # Two games a pairing: the bye is worth 2.
    two = config(Format.SWISS, rounds=2, games_per_pairing=2)
    history = played(History(), Round(1, (Pairing("A", "B"),), ("C",)), lambda a, b: 1, games_per_pairing=2)
    rows = {row.bot: row for row in standings(two, list("ABC"), history)}
    assert (rows["A"].score, rows["B"].score, rows["C"].score) == (1.0, 1.0, 2.0)


def test_no_shows_score_nothing_for_the_absent():
    history = History(
        (Round(1, (Pairing("A", "B"), Pairing("C", "D"))),),
        {
            (1, 1): (Game("A", "B", 1, ResultKind.NO_SHOW),),
            (1, 2): (Game("C", "D", None, ResultKind.DOUBLE_NO_SHOW),),
        },
    )
    rows = {row.bot: row for row in standings(config(Format.SWISS, rounds=2), list("ABCD"), history)}
    assert [rows[bot].score for bot in "ABCD"] == [1.0, 0.0, 0.0, 0.0]
    assert (rows["C"].losses, rows["D"].losses) == (1, 1)


def _round_robin(outcomes: dict[str, str | None]) -> History:
    """Four bots' round robin; ``outcomes["AB"]``: the winner of A-B (None: a draw)."""
    history = History()
    for number in (1, 2, 3):
        made = round_robin.round_of(list("ABCD"), number, double=False)
        assert isinstance(made, Round)

        def decide(a, b):
            winner = outcomes["".join(sorted(a + b))]
            return None if winner is None else 1 if winner == a else 2

        history = played(history, made, decide)
    return history


def test_a_round_robin_ranks_by_sonneborn_berger():
    """A and B on 2 points: B beat A (2) and C (1), A beat C (1) and D (1): B first."""
    history = _round_robin({"AB": "B", "AC": "A", "AD": "A", "BC": "B", "BD": "D", "CD": "C"})
    rows = standings(config(Format.ROUND_ROBIN), list("ABCD"), history)
    assert [(row.place, row.bot, row.score, row.sonneborn_berger) for row in rows] == [
        (1, "B", 2.0, 3.0),
        (2, "A", 2.0, 2.0),
        (3, "D", 1.0, 2.0),
        (4, "C", 1.0, 1.0),
    ]


def test_a_round_robin_level_on_sonneborn_berger_goes_by_the_direct_encounter():
    """B and D: 1.5 points and Sonneborn-Berger 1.75 each; B beat D."""
    history = _round_robin({"AB": "A", "AC": "A", "AD": None, "BC": None, "BD": "B", "CD": "D"})
    rows = standings(config(Format.ROUND_ROBIN), list("ABCD"), history)
    assert [(row.place, row.bot, row.score, row.sonneborn_berger, row.direct) for row in rows] == [
        (1, "A", 2.5, 2.75, 0.0),
        (2, "B", 1.5, 1.75, 1.0),
        (3, "D", 1.5, 1.75, 0.0),
        (4, "C", 0.5, 0.75, 0.0),
    ]


def test_a_knockout_ranks_by_the_rounds_won_and_each_rounds_losers_share_a_place():
    seeds = list("ABCDEF")
    history = History()
    while isinstance(made := knockout.next_round(seeds, history), Round):
        history = played(history, made, higher_wins(seeds))
    rows = standings(config(Format.KNOCKOUT), seeds, history)
    # A won the final, B lost it, C and D lost the semi-finals, E and F round 1.
    assert [(row.place, row.bot, row.rounds_won) for row in rows] == [
        (1, "A", 3), (2, "B", 2), (3, "C", 1), (3, "D", 1), (5, "E", 0), (5, "F", 0),
    ]  # fmt: skip


def test_an_arena_ranks_by_arena_points_then_wins():
    """a: win, win, win on a streak = 8; b: 4 draws = 4 and c: 2 wins = 4, c with more wins."""
    games = {
        (1, 1): (Game("a", "x", 1),), (1, 2): (Game("b", "x", None),), (1, 3): (Game("a", "y", 1),),
        (1, 4): (Game("b", "y", None),), (1, 5): (Game("a", "x", 1),), (1, 6): (Game("c", "y", 1),),
        (1, 7): (Game("b", "x", None),), (1, 8): (Game("c", "x", 1),), (1, 9): (Game("b", "y", None),),
    }  # fmt: skip
    pairings = tuple(Pairing(g[0].seat_1, g[0].seat_2) for _, g in sorted(games.items()))
    history = History((Round(1, pairings),), games)
    rows = standings(config(Format.ARENA), ["a", "b", "c", "x", "y"], history)
    assert [(row.place, row.bot, row.score, row.wins) for row in rows][:3] == [
        (1, "a", 8.0, 3), (2, "c", 4.0, 2), (3, "b", 4.0, 0),
    ]  # fmt: skip


def test_withdrawn_bots_stay_in_the_standings_marked():
    history = played(History(), Round(1, (Pairing("A", "B"),)), lambda a, b: 1)
    rows = standings(config(Format.SWISS, rounds=2), list("AB"), history, withdrawn={"B"})
    assert [(row.bot, row.withdrawn) for row in rows] == [("A", False), ("B", True)]
