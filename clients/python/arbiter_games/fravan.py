"""Fravan: Torrent's board, but a stone flips by double flank at most once per game (then it is locked)."""

from .flank_game import FlankGame
from .hexflank import FlankRules

FRAVAN = FlankRules("fravan", sizes=(5, 7), default_size=7, locks=True)
FRAVAN_GAME = FlankGame(FRAVAN, "Fravan")
