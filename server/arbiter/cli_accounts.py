"""The host's commands for bot owners' accounts (docs/accounts.md): ``arbiter invites add``,
``arbiter accounts list|disable|enable|make-admin``, and ``arbiter bots attach``."""

from __future__ import annotations

import time
from datetime import UTC, datetime

import click

from .cli_ladder import bots, database_option, opened
from .cli_text import fail, say


@click.group()
def invites() -> None:
    """Invite codes for signing up on the web pages (with --signup invite, the default)."""


@invites.command("add")
@click.option(
    "--uses", type=click.IntRange(min=1), default=1, show_default=True, help="Sign-ups it is good for."
)
@click.option(
    "--expires", default=None, metavar="ISO-TIME", help="When it stops working (2027-01-31T12:00Z)."
)
@click.option(
    "--expires-in",
    type=click.FloatRange(min=0, min_open=True),
    default=None,
    metavar="SECONDS",
    help="Seconds from now when it stops working.",
)
@database_option
def invites_add(uses: int, expires: str | None, expires_in: float | None, database: str | None) -> None:
    """Make an invite code and print it (shown once: the store keeps only its hash)."""
    if expires is not None and expires_in is not None:
        fail("give --expires or --expires-in, not both", 2)
    expires_at = time.time() + expires_in if expires_in is not None else None
    if expires is not None:
        expires_at = _parse_time(expires)
    with opened(database) as store:
        code = store.add_invite(uses, expires_at)
    until = "no expiry" if expires_at is None else f"expires {_when(expires_at)}"
    say(f"invite code (shown only now; {uses} use{'s' if uses != 1 else ''}, {until}): {code}")


def _parse_time(text: str) -> float:
    """An ISO 8601 time; without a zone it is UTC."""
    try:
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        fail(f"--expires {text!r} is not an ISO 8601 time (2027-01-31T12:00Z)", 2)
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.timestamp()


def _when(epoch: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(epoch))


@click.group()
def accounts() -> None:
    """Bot owners' accounts on the web pages."""


@accounts.command("list")
@database_option
def accounts_list(database: str | None) -> None:
    """Every account: its status, whether it is an admin, its bots, when it was made."""
    with opened(database) as store:
        rows = store.list_accounts()
    if not rows:
        say("no accounts yet: owners sign up on the web pages (arbiter invites add makes a code)")
        return
    say(f"{'account':<24} {'status':<8} {'admin':<5} {'bots':>4}  created")
    for row in rows:
        status = "DISABLED" if row.disabled else "enabled"
        admin = "yes" if row.admin else "no"
        say(f"{row.name:<24} {status:<8} {admin:<5} {row.bots:>4}  {_when(row.created_at)}")


@accounts.command("disable")
@click.argument("name")
@database_option
def accounts_disable(name: str, database: str | None) -> None:
    """Disable account NAME: it cannot log in, its sessions end, its bots are refused."""
    with opened(database) as store:
        store.set_account_disabled(name, True)
    say(f"account {name} disabled")


@accounts.command("enable")
@click.argument("name")
@database_option
def accounts_enable(name: str, database: str | None) -> None:
    """Enable account NAME again."""
    with opened(database) as store:
        store.set_account_disabled(name, False)
    say(f"account {name} enabled")


@accounts.command("make-admin")
@click.argument("name")
@database_option
def accounts_make_admin(name: str, database: str | None) -> None:
    """Make account NAME an admin."""
    with opened(database) as store:
        store.set_account_admin(name, True)
    say(f"account {name} is an admin")


@bots.command("attach")
@click.argument("bot")
@click.option("--account", "account", required=True, metavar="NAME", help="The account that will own it.")
@database_option
def bots_attach(bot: str, account: str, database: str | None) -> None:
    """Give bot BOT (added with `arbiter bots add`) to an account: its owner sees and manages it."""
    with opened(database) as store:
        store.attach_bot(bot, account)
    say(f"bot {bot} belongs to account {account}")


def register(main: click.Group) -> None:
    for group in (invites, accounts):
        main.add_command(group)
