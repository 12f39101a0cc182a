"""Arena: each free bot paired with the closest free score, never the same opponent twice in a
row; the points (2 a win, 1 a draw, doubled on a streak of two wins or more)."""

from __future__ import annotations

import itertools
import random

import pytest
from arbiter.events import arena
from arbiter.events.arena import FreeBot
from arbiter.events.model import Game, Pairing, ResultKind

from tests.events.helpers import bots


def test_free_bots_meet_the_closest_score():
    free = [FreeBot("a", 10), FreeBot("b", 0), FreeBot("c", 9), FreeBot("d", 1)]
    assert arena.pair(free) == [Pairing("a", "c"), Pairing("d", "b")]


def test_never_the_same_opponent_twice_in_a_row():
    free = [FreeBot("a", 10, last_opponent="c"), FreeBot("c", 9, last_opponent="a"), FreeBot("d", 1)]
    pairings = arena.pair(free)
    assert pairings == [Pairing("a", "d")]  # c waits rather than meet a again
    # Two free bots that just met wait, even alone.
    assert arena.pair([FreeBot("a", 0, "b"), FreeBot("b", 0, "a")]) == []
    # The rule holds either way: a's last opponent is b, b's last is someone else.
    assert arena.pair([FreeBot("a", 0, "b"), FreeBot("b", 0, "x")]) == []


def test_seat_one_goes_to_the_bot_with_more_games_in_seat_two():
    assert arena.pair([FreeBot("a", 5, seat_balance=1), FreeBot("b", 5, seat_balance=-1)]) == [
        Pairing("b", "a")
    ]


@pytest.mark.parametrize("count", [4, 7, 16])
def test_a_simulated_arena_never_repeats_an_opponent_back_to_back(count):
    """Games finish in a random order and the free bots are paired again each time."""
    chance = random.Random(count)
    names = bots(count)
    last: dict[str, str | None] = dict.fromkeys(names)
    balance = dict.fromkeys(names, 0)
    finished: list[Game] = []
    playing: list[Pairing] = []
    free = set(names)
    for _ in range(200):
        points = arena.score(finished)
        offer = [
            FreeBot(bot, points[bot].points if bot in points else 0, last[bot], balance[bot])
            for bot in names
            if bot in free
        ]
        for pairing in arena.pair(offer):
            assert last[pairing.seat_1] != pairing.seat_2 and last[pairing.seat_2] != pairing.seat_1
            free -= set(pairing.bots)
            playing.append(pairing)
        if not playing:
            break
        done = playing.pop(chance.randrange(len(playing)))
        finished.append(Game(done.seat_1, done.seat_2, chance.choice([1, 2, None])))
        last[done.seat_1], last[done.seat_2] = done.seat_2, done.seat_1
        balance[done.seat_1] += 1
        balance[done.seat_2] -= 1
        free |= set(done.bots)
    assert len(finished) > 50
    for bot in names:
        mine = [game for game in finished if bot in (game.seat_1, game.seat_2)]
        opponents = [game.seat_2 if game.seat_1 == bot else game.seat_1 for game in mine]
        assert all(a != b for a, b in itertools.pairwise(opponents))


def test_streak_scoring():
    """a wins, wins (on a streak now), wins (4), draws (2, the streak ends), wins (2), loses (0)."""
    results = [1, 1, 1, None, 1, 2]
    games = [Game("a", f"x{index}", winner) for index, winner in enumerate(results)]
    account = arena.score(games)["a"]
    assert account.sheet == (2, 2, 4, 2, 2, 0)
    assert account.points == 12 and account.wins == 4 and account.draws == 1 and account.games == 6
    assert not account.on_streak


def test_a_streak_doubles_a_loss_to_zero_and_a_no_show_win_counts():
    games = [
        Game("a", "b", 1, ResultKind.NO_SHOW),
        Game("c", "a", 2),
        Game("a", "d", 1),
        Game("a", "e", 2),
    ]
    accounts = arena.score(games)
    assert accounts["a"].sheet == (2, 2, 4, 0)
    assert accounts["b"].sheet == (0,) and accounts["c"].sheet == (0,)
