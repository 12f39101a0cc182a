"""A match of two seeks paired across nodes waits, with no turn and no clock, until both bots are
connected to its node; it is aborted (unrated) if they are not both there in time."""

from __future__ import annotations

from collections.abc import Callable

from arbiter.hosting import EventBus, MatchHosting
from arbiter.match.events import MatchEnded, MatchEvent, MatchStarted, TurnIssued
from arbiter.match.match import MatchSetup
from arbiter_games.timecontrol import TimeControl


class Timers:
    """Timers the test fires by hand."""

    def __init__(self) -> None:
        self.pending: list[tuple[float, Callable[[], None]]] = []

    def call_later(self, delay: float, callback: Callable[[], None]) -> Timers:
        self.pending.append((delay, callback))
        return self

    def cancel(self) -> None:
        return None

    def fire(self, delay: float) -> None:
        for when, callback in list(self.pending):
            if when == delay:
                self.pending.remove((when, callback))
                callback()


def hosting() -> tuple[MatchHosting, list[MatchEvent], Timers]:
    bus = EventBus()
    events: list[MatchEvent] = []
    bus.subscribe(events.append)
    timers = Timers()
    clock = [100.0]
    return MatchHosting(bus, scheduler=timers, now=lambda: clock[0]), events, timers


SETUP = MatchSetup("torrent", {"size": 5}, {1: "ann", 2: "ben"}, TimeControl(base=60.0, increment=1.0))


def test_the_match_is_announced_then_waits_for_both_bots_then_plays():
    host, events, _ = hosting()
    match = host.start(SETUP, match_id="chosen", wait=30.0)
    assert match.id == "chosen" and host.running_ids("ben") == ["chosen"]
    assert [type(e) for e in events] == [MatchStarted]  # no Turn: no clock runs
    assert match.pending is None and match.suspended
    host.wake(lambda bot: bot == "ann")  # ben is still on his way
    assert [type(e) for e in events] == [MatchStarted]
    host.wake(lambda bot: True)
    assert [type(e) for e in events] == [MatchStarted, TurnIssued]
    assert match.clocks.remaining == {1: 60.0, 2: 60.0}


def test_the_match_is_aborted_when_a_bot_does_not_arrive_in_time():
    host, events, timers = hosting()
    host.start(SETUP, match_id="m", wait=30.0)
    timers.fire(30.0)
    ended = [e for e in events if isinstance(e, MatchEnded)]
    assert len(ended) == 1 and ended[0].end.reason == "aborted" and ended[0].end.winner_seat is None
    assert ended[0].end.detail == "the paired bots were not both connected within 30 s"
    assert not ended[0].facts.rated and host.running_ids("ann") == []


def test_a_match_that_started_in_time_is_not_aborted_by_the_timer():
    host, events, timers = hosting()
    host.start(SETUP, match_id="m", wait=30.0)
    host.wake(lambda bot: True)
    timers.fire(30.0)
    assert not any(isinstance(e, MatchEnded) for e in events)
