"""Arbiter: a game server for bots playing Torrent, Fravan and Surge Stones."""

__version__ = "0.1.0"
