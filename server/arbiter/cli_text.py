"""What the commands print when the text is not their own (names and owners from the store, a
record's contents, error messages quoting them): control characters made visible."""

from __future__ import annotations

import sys
from typing import NoReturn

import click
from arbiter_wire.text import visible


def say(text: str, err: bool = False) -> None:
    """``click.echo(text)`` with every control, format or line-break character but ``\\n`` escaped
    (ESC shows as ``\\x1b``), on a terminal or not."""
    click.echo(visible(text, keep="\n"), err=err)


def fail(message: str, status: int = 1) -> NoReturn:
    """Print one line ``error: MESSAGE`` to standard error (made visible) and exit with ``status``."""
    say(f"error: {message}", err=True)
    sys.exit(status)
