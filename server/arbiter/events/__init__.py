"""Events (competitions): their model, each format's pairing and the standings, as pure code.

No I/O, no clock, no logging here: the store keeps an event's history, the commands and the
hosting read it and ask these functions for the next round (``formats.next_round``), an arena's
pairings (``arena.pair``) and the standings (``standings.standings``).
"""
