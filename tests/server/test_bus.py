"""The event bus: a failing listener is logged and the others still hear every event."""

from __future__ import annotations

from arbiter.hosting.bus import EventBus


def test_a_failing_listener_does_not_stop_the_others():
    bus = EventBus()
    heard: list[object] = []

    def broken(event):
        raise RuntimeError("listener bug")

    bus.subscribe(broken)
    bus.subscribe(heard.append)
    bus.publish("first")  # type: ignore[arg-type]
    bus.publish("second")  # type: ignore[arg-type]
    assert heard == ["first", "second"]
