"""What is said beside a board: each seat's colour and score, and whose turn it is, from a
game's public view alone (a frame's ``status``; the pages add the bots' names and the clocks)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def board_status(view: Mapping[str, Any]) -> dict[str, Any]:
    """``{"colours": {"1": "black", "2": "white"}, "scores": {"1": 12, "2": 9}, "to_move": 2}``
    (``to_move`` None when nobody is to move: the game is over)."""
    if "black_seat" in view:  # Torrent, Fravan: the seat playing Black moves after a swap
        black = int(view["black_seat"])
        colours = {str(black): "black", str(3 - black): "white"}
        points = dict(view.get("scores") or ())
        scores = {seat: int(points.get(colour, 0)) for seat, colour in colours.items()}
        to_move = view.get("to_move_seat")
        return {"colours": colours, "scores": scores, "to_move": None if view.get("over") else to_move}
    if "blue_score" in view:  # Surge: seat 1 plays Blue
        colours = {"1": "blue", "2": "orange"}
        scores = {"1": int(view["blue_score"]), "2": int(view["orange_score"])}
        mover = view.get("to_move")
        seat = next((int(s) for s, colour in colours.items() if colour == mover), None)
        return {"colours": colours, "scores": scores, "to_move": None if view.get("over") else seat}
    return {"colours": {}, "scores": {}, "to_move": None}
