"""structlog configuration: JSON lines on stderr (or readable lines for people)."""

from __future__ import annotations

import logging
import sys

import structlog
from arbiter_wire.text import visible_fields


def configure_logging(level: str = "info", json: bool = True) -> None:
    """Log events at ``level`` and above; per-move events are debug."""
    numeric = logging.getLevelName(level.upper())
    if not isinstance(numeric, int):
        raise ValueError(f"unknown log level {level!r}")
    # JSON escapes control characters itself; readable lines get them made visible.
    rendering: list[structlog.types.Processor] = (
        [structlog.processors.JSONRenderer()]
        if json
        else [visible_fields, structlog.dev.ConsoleRenderer(colors=False)]
    )
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            *rendering,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(numeric),
        # One write() per line (a PrintLogger writes the line and its newline apart): the workers
        # of `arbiter serve --processes N` share standard error, and two writes let another
        # process's line in between, which spoils both JSON lines.
        logger_factory=structlog.WriteLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=False,
    )
