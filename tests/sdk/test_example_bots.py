"""The example bots always answer with a legal action, and play sensibly."""

from __future__ import annotations

from typing import Any

import pytest
from arbiter_bot.bot import Bot, TurnContext
from arbiter_bot.examples.greedy_flank import GreedyFlankBot
from arbiter_bot.examples.random_bot import RandomBot
from arbiter_bot.examples.surge_tips import SurgeTipsBot
from arbiter_bot.local import BotLoadError, compare, load_bot, play_local
from arbiter_games.hexflank import PASS, SWAP, Place
from arbiter_games.torrent import TORRENT
from arbiter_wire import convert

from .helpers import FLANK_GAMES, decision_points


def context(game: str, state: Any, rules: Any) -> TurnContext:
    seat = rules.to_move(state)
    return TurnContext(
        match_id="t",
        turn_id=1,
        game=game,
        options={},
        seat=seat,
        colour=rules.observe(state, seat).colour,
        opponent_name="x",
        clocks={1: None, 2: None},
        decision_limit=None,
    )


def ask(bot: Bot, game: str, rules: Any, state: Any, legal: list[Any]) -> Any:
    """The bot's answer to the position as it would come over the wire."""
    seat = rules.to_move(state)
    obs = convert.observation_from_pb(game, convert.observation_to_pb(rules.observe(state, seat)))
    wire_legal = convert.legal_from_pb(convert.legal_to_pb(game, legal))
    return bot.choose(obs, wire_legal, context(game, state, rules))


@pytest.mark.parametrize(("game", "size"), FLANK_GAMES)
@pytest.mark.parametrize("make", [RandomBot, GreedyFlankBot])
def test_flank_bots_answer_legally(game: str, size: int, make: Any) -> None:
    bot = make(0)
    games = 2 if size >= 7 else 4
    every = 4 if size >= 9 else 1  # greedy tries every point: sample the big board
    for seed in range(games):
        for i, (rules, state, legal) in enumerate(decision_points(game, {"size": size}, seed)):
            if i % every == 0:
                assert ask(bot, game, rules, state, legal) in legal


@pytest.mark.parametrize("make", [RandomBot, SurgeTipsBot])
def test_surge_bots_answer_legally(make: Any) -> None:
    bot = make(0)
    for seed in range(25):
        for rules, state, legal in decision_points("surge", {}, seed):
            assert ask(bot, "surge", rules, state, legal) in legal


def test_random_bot_places_rather_than_passing() -> None:
    rules = TORRENT
    state = rules.apply(rules.new_game({"size": 5}), Place("e5"))
    legal = list(rules.legal_actions(state))
    assert PASS in legal and SWAP in legal
    bot = RandomBot(1)
    for _ in range(50):
        assert isinstance(ask(bot, "torrent", rules, state, legal), Place)


def test_greedy_flank_passes_to_win_and_never_to_lose() -> None:
    rules = TORRENT
    state = rules.new_game({"size": 5})
    for action in (Place("e5"), Place("a5"), Place("e1")):
        state = rules.apply(state, action)
    state = rules.apply(state, PASS)  # White passes; Black (seat 1) is ahead
    legal = list(rules.legal_actions(state))
    assert ask(GreedyFlankBot(0), "torrent", rules, state, legal) == PASS
    # Equal scores after Black's pass: a White pass would end the game and lose on the tie-break
    # (Black passed first), so White places.
    state = rules.new_game({"size": 5})
    for step in (Place("e5"), Place("a5"), PASS):
        state = rules.apply(state, step)
    assert rules.scores(state) == {"black": 1, "white": 1}
    legal = list(rules.legal_actions(state))
    assert ask(GreedyFlankBot(0), "torrent", rules, state, legal) != PASS


def test_example_bots_beat_random_offline() -> None:
    surge = compare(lambda i: SurgeTipsBot(i), lambda i: RandomBot(100 + i), "surge", games=20, seed=1)
    assert surge.score >= 0.8, surge
    flank = compare(
        lambda i: GreedyFlankBot(i), lambda i: RandomBot(100 + i), "torrent", {"size": 5}, games=6, seed=1
    )
    assert flank.score >= 0.8, flank


def test_local_play_and_loading() -> None:
    bot = load_bot("surge_tips", 3)
    assert isinstance(bot, SurgeTipsBot)
    result = play_local(bot, load_bot("random_bot", 4), "surge", seed=bytes(32), wire=True)
    assert result.actions and set(result.scores) == {1, 2}
    with pytest.raises(BotLoadError, match="unknown bot 'no_such_bot'"):
        load_bot("no_such_bot")
