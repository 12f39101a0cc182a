"""Logging that cannot flood: ``RepeatLimit`` lets one record of a kind through per window
(10 s) and counts the others, told with the next one let through ("... [and 41,207 more like it
in the last 10 s]").

A kind is the logger, the level, the first line of the message and the exception's type: asyncio
puts a socket's descriptor and addresses in the later lines of its error messages, so the first
line alone keeps, say, 400,000 "socket.accept() out of system resource" records of one attack
one kind. ``guard_logging()`` puts the filter on every handler of Python's logging that the
process writes to (and gives the root logger one, for the records that would otherwise go to
logging's last-resort handler, unfiltered); structlog's own lines go around it and are few.
"""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Callable

#: Seconds in which one record of a kind is let through.
WINDOW = 10.0
#: Kinds remembered at once (the oldest are forgotten first).
MAX_KINDS = 1000

Kind = tuple[str, int, str, str]


class RepeatLimit(logging.Filter):
    """At most one record of a kind per ``window`` seconds."""

    def __init__(self, window: float = WINDOW, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self.window = window
        self.clock = clock
        #: Per kind: when its window opened, and how many of it were held back since.
        self.kinds: dict[Kind, tuple[float, int]] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        kind = _kind_of(record)
        now = self.clock()
        seen = self.kinds.get(kind)
        if seen is not None and now - seen[0] < self.window:
            self.kinds[kind] = (seen[0], seen[1] + 1)
            return False
        held = seen[1] if seen is not None else 0
        self.kinds.pop(kind, None)
        self.kinds[kind] = (now, 0)  # last in the order: forgotten last
        if len(self.kinds) > MAX_KINDS:
            del self.kinds[next(iter(self.kinds))]
        if held:
            record.msg = f"{record.getMessage()} [and {held:,} more like it in the last {self.window:g} s]"
            record.args = None
        return True


def _kind_of(record: logging.LogRecord) -> Kind:
    try:
        message = record.getMessage()
    except (TypeError, ValueError):  # arguments that do not fit the message: it is its own kind
        message = str(record.msg)
    first = message.split("\n", 1)[0]
    error = record.exc_info[0].__name__ if record.exc_info and record.exc_info[0] is not None else ""
    return (record.name, record.levelno, first, error)


def guard_logging(loggers: tuple[str, ...] = ("uvicorn", "uvicorn.error", "uvicorn.access")) -> None:
    """``RepeatLimit`` on the root logger's handlers (given one on standard error, warnings and
    up, if it has none) and on those of ``loggers`` (uvicorn's, which do not reach the root);
    twice is as once."""
    root = logging.getLogger()
    if not root.handlers:
        to_stderr = logging.StreamHandler(sys.stderr)
        to_stderr.setLevel(logging.WARNING)
        to_stderr.setFormatter(logging.Formatter("%(name)s: %(levelname)s: %(message)s"))
        root.addHandler(to_stderr)
    handlers = list(root.handlers)
    for name in loggers:
        handlers += logging.getLogger(name).handlers
    for handler in handlers:
        if not any(isinstance(existing, RepeatLimit) for existing in handler.filters):
            handler.addFilter(RepeatLimit())


__all__ = ["WINDOW", "RepeatLimit", "guard_logging"]
