"""Hosting events live: entries over the protocol, rounds paired by the pure event code
(``arbiter.events``), their games played through ``MatchHosting`` and their results kept by the
store writer, as the ladder host does for ladders (docs/events.md, "Hosting")."""

#: Seconds a bot not connected when its event game is due has before it forfeits the game
#: (``arbiter serve --event-grace S``).
EVENT_GRACE = 60.0
