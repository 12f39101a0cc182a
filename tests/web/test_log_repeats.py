"""Logging that cannot flood (issue 18 item 3): one record of a kind per 10 s, the rest counted
and told with the next one let through."""

from __future__ import annotations

import logging

from arbiter.log_repeats import RepeatLimit, guard_logging


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def record(
    message: str, name: str = "asyncio", level: int = logging.ERROR, *args: object
) -> logging.LogRecord:
    return logging.LogRecord(name, level, __file__, 1, message, args or None, None)


def test_a_flood_of_one_kind_lets_one_record_through_per_window_and_counts_the_rest() -> None:
    clock = Clock()
    limit = RepeatLimit(window=10.0, clock=clock)
    passed = []
    for fd in range(400_000):  # 400,000 in 40 s
        clock.now = 1000.0 + fd / 10_000
        # asyncio's messages name the socket on their later lines: still one kind.
        one = record(f"socket.accept() out of system resource\nsocket: <socket fd={fd}>")
        if limit.filter(one):
            passed.append(one.getMessage())
    assert len(passed) == 4  # one per 10 s window
    assert passed[0] == "socket.accept() out of system resource\nsocket: <socket fd=0>"
    assert passed[1].endswith("[and 99,999 more like it in the last 10 s]")
    assert sum(len(line) for line in passed) < 1000


def test_other_kinds_pass_on_their_own() -> None:
    clock = Clock()
    limit = RepeatLimit(window=10.0, clock=clock)
    assert limit.filter(record("Invalid HTTP request received.", "uvicorn.error", logging.WARNING))
    assert not limit.filter(record("Invalid HTTP request received.", "uvicorn.error", logging.WARNING))
    assert limit.filter(record("Invalid HTTP request received.", "uvicorn.error", logging.ERROR))  # a level
    assert limit.filter(record("socket.send() raised exception."))  # a message
    assert limit.filter(record("Invalid HTTP request received.", "other", logging.WARNING))  # a logger
    # Arguments are part of the message: "%s" with another value is another kind.
    assert limit.filter(record("peer %s went away", "asyncio", logging.WARNING, "a"))
    assert limit.filter(record("peer %s went away", "asyncio", logging.WARNING, "b"))
    assert not limit.filter(record("peer %s went away", "asyncio", logging.WARNING, "a"))
    clock.now += 10.0
    again = record("Invalid HTTP request received.", "uvicorn.error", logging.WARNING)
    assert limit.filter(again)
    assert again.getMessage() == "Invalid HTTP request received. [and 1 more like it in the last 10 s]"


def test_guard_logging_filters_the_root_handlers_and_uvicorns_once() -> None:
    root = logging.getLogger()
    uvicorn = logging.getLogger("uvicorn")
    mine, theirs = logging.StreamHandler(), logging.StreamHandler()
    root.addHandler(mine)
    uvicorn.addHandler(theirs)
    try:
        guard_logging()
        guard_logging()
        for handler in (mine, theirs):
            assert [type(f) for f in handler.filters] == [RepeatLimit]
    finally:
        root.removeHandler(mine)
        uvicorn.removeHandler(theirs)
