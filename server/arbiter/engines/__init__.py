"""Pure rules engines, standard library only: one module per game behind ``base.Rules``.

>>> from arbiter.engines import get_rules
>>> rules = get_rules("torrent")
>>> state = rules.new_game({"size": 5})
>>> rules.to_move(state)
1
"""

from __future__ import annotations

from typing import Any

from .base import SEAT_1, SEAT_2, ActionError, IllegalAction, MalformedAction, OptionsError, Outcome, Rules
from .fravan import FRAVAN
from .torrent import TORRENT

GAMES = ("torrent", "fravan", "surge")


def get_rules(name: str) -> Any:
    """The rules object of a game by name (``torrent``, ``fravan`` or ``surge``)."""
    if name == "torrent":
        return TORRENT
    if name == "fravan":
        return FRAVAN
    if name == "surge":
        from .surge import SURGE

        return SURGE
    raise OptionsError(f"unknown game {name!r}; known games: {', '.join(GAMES)}")


__all__ = [
    "GAMES",
    "SEAT_1",
    "SEAT_2",
    "ActionError",
    "IllegalAction",
    "MalformedAction",
    "OptionsError",
    "Outcome",
    "Rules",
    "get_rules",
]
