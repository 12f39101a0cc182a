"""The Python SDK shows text from the arbiter (an opponent's name, a detail) with its control
characters made visible, in its log lines on standard error and in the line per finished match
(docs/reliability.md, "Names and text from outside"): a name with ESC cannot clear the screen or
set the terminal's title."""

from __future__ import annotations

import io

import structlog
from arbiter_bot.bot import MatchSummary
from arbiter_bot.cli import summary_line
from arbiter_bot.client import configure_logging

EVIL = "evil\x1b]0;pwned\x07\u202e"


def test_the_line_per_match_escapes_the_opponents_name():
    summary = MatchSummary("m1", "torrent", {}, 1, EVIL, "win", scores={1: 3, 2: 1}, reason="two_passes")
    line = summary_line(summary)
    assert not any(ord(c) < 0x20 or ord(c) == 0x7F for c in line) and "\u202e" not in line
    assert "vs evil\\x1b]0;pwned\\x07\\u202e " in line


def test_the_sdk_log_escapes_text_from_the_arbiter(monkeypatch):
    err = io.StringIO()
    monkeypatch.setattr("sys.stderr", err)
    try:
        configure_logging("info")
        structlog.get_logger("arbiter_bot").info("match started", opponent=EVIL, detail="a\x1b[2Jb")
    finally:
        structlog.reset_defaults()
    text = err.getvalue()
    assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text
    assert "evil\\x1b]0;pwned\\x07\\u202e" in text and "a\\x1b[2Jb" in text
