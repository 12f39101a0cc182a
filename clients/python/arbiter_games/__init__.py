"""The games, standard library only: a registry of game definitions over pure rules engines.

>>> from arbiter_games import get_game
>>> torrent = get_game("torrent")
>>> options = torrent.normalise_options({})
>>> options
{'size': 7}
>>> torrent.to_move(torrent.new_game(options))
1
"""

from __future__ import annotations

from collections.abc import Mapping

from .base import (
    SEAT_1,
    SEAT_2,
    SEATS,
    ActionError,
    IllegalAction,
    MalformedAction,
    OptionsError,
    Outcome,
    Rules,
)
from .fravan import FRAVAN_GAME
from .game import GameDef, GameOptions, IntOption, Observation, SeedCheck
from .surge_game import SURGE_GAME
from .timecontrol import TimeControl
from .torrent import TORRENT_GAME

#: Every game by name, in the order they are listed to people.
REGISTRY: Mapping[str, GameDef] = {game.name: game for game in (TORRENT_GAME, FRAVAN_GAME, SURGE_GAME)}
GAMES = tuple(REGISTRY)


def get_game(name: str) -> GameDef:
    """The definition of a game by name (``torrent``, ``fravan`` or ``surge``)."""
    game = REGISTRY.get(name)
    if game is None:
        raise OptionsError(f"unknown game {name!r}; known games: {', '.join(GAMES)}")
    return game


__all__ = [
    "GAMES",
    "REGISTRY",
    "SEATS",
    "SEAT_1",
    "SEAT_2",
    "ActionError",
    "GameDef",
    "GameOptions",
    "IllegalAction",
    "IntOption",
    "MalformedAction",
    "Observation",
    "OptionsError",
    "Outcome",
    "Rules",
    "SeedCheck",
    "TimeControl",
    "get_game",
]
