"""What the commands print when the text is not their own (names and owners from the store, a
record's contents, error messages quoting them): control characters made visible."""

from __future__ import annotations

import sys
from typing import Any, NoReturn

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


class OneLineErrors(click.Group):
    """A command group whose usage errors (a bad choice, a missing argument, an unknown option)
    are one line, ``error: ... (see 'arbiter CMD --help')``, with status 2, as the commands' own
    errors are; click would print a usage block and ``Error:`` on four lines."""

    def main(self, *args: Any, standalone_mode: bool = True, **kwargs: Any) -> Any:
        plain: Any = super().main  # click's overloads do not take *args
        if not standalone_mode:
            return plain(*args, standalone_mode=False, **kwargs)
        try:
            code = plain(*args, standalone_mode=False, **kwargs)
        except click.UsageError as exc:
            say(f"error: {exc.format_message().rstrip('.')} (see '{_command_of(exc.ctx)} --help')", err=True)
            sys.exit(exc.exit_code)
        except click.ClickException as exc:
            say(f"error: {exc.format_message()}", err=True)
            sys.exit(exc.exit_code)
        except click.Abort:
            say("aborted", err=True)
            sys.exit(1)
        sys.exit(code if isinstance(code, int) else 0)


def _command_of(ctx: click.Context | None) -> str:
    """``arbiter bots add``: the command a context is for, however the program was started."""
    names: list[str] = []
    while ctx is not None and ctx.parent is not None:
        names.append(ctx.info_name or "")
        ctx = ctx.parent
    return " ".join(["arbiter", *reversed(names)])
