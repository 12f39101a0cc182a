"""Torrent: the flank game where a doubly flanked stone follows the most recent flanking."""

from .flank_game import FlankGame
from .hexflank import FlankRules

TORRENT = FlankRules("torrent", sizes=(5, 6, 7, 8, 9), default_size=7, locks=False)
TORRENT_GAME = FlankGame(TORRENT, "Torrent")
