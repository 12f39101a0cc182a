"""One entry point for every format's next round, the rounds each format has, and the checks
on an event's configuration."""

from __future__ import annotations

import pytest
from arbiter.events.formats import next_round, total_rounds
from arbiter.events.model import FINISHED, Format, History, Round

from tests.events.helpers import bots, config, higher_wins, played


@pytest.mark.parametrize(
    ("form", "count", "rounds"),
    [
        (Format.ROUND_ROBIN, 4, 3),
        (Format.ROUND_ROBIN, 7, 7),
        (Format.ROUND_ROBIN, 16, 15),
        (Format.DOUBLE_ROUND_ROBIN, 7, 14),
        (Format.SWISS, 7, 3),
        (Format.SWISS, 16, 4),
        (Format.KNOCKOUT, 7, 3),
        (Format.KNOCKOUT, 16, 4),
    ],
)
def test_each_format_plays_its_rounds_then_is_finished(form, count, rounds):
    event = config(form)
    entrants = bots(count)
    assert total_rounds(event, count) == rounds
    history = History()
    while isinstance(made := next_round(event, entrants, history), Round):
        history = played(history, made, higher_wins(entrants))
    assert len(history.rounds) == rounds
    assert next_round(event, entrants, history) is FINISHED


def test_an_arena_has_no_rounds():
    event = config(Format.ARENA)
    assert total_rounds(event, 10) is None
    with pytest.raises(ValueError, match="arena"):
        next_round(event, bots(4), History())


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"format": Format.ROUND_ROBIN, "rounds": 3}, "sets its own rounds"),
        ({"rounds": 0}, "at least 1 round"),
        ({"games_per_pairing": 0}, "at least 1 game"),
        ({"format": Format.ARENA, "duration": None}, "needs a window"),
        ({"format": Format.ARENA, "games_per_pairing": 2}, "one game at a time"),
        ({"duration": 60.0}, "only an arena"),
        ({"max_entrants": 1}, "at least 2 entrants"),
        ({"starts_at": 100.0, "entry_closes_at": 200.0}, "close before"),
    ],
)
def test_a_bad_configuration_is_refused(changes, message):
    form = changes.pop("format", Format.SWISS)
    with pytest.raises(ValueError, match=message):
        config(form, **changes)
