"""This node's matches: starting them, their timers, and the event bus their listeners follow."""

from .bus import EventBus, Listener
from .host import MatchHosting, UnknownMatch

__all__ = ["EventBus", "Listener", "MatchHosting", "UnknownMatch"]
