"""The host's commands for the store: ``arbiter db``, ``bots``, ``ladders`` and ``matches``.

Every command takes ``--database URL`` (default: the SQLite file ``arbiter.db`` in the working
directory; ``postgresql://user:password@host/db`` for PostgreSQL) and changes take effect in a
running arbiter at once (it reads bots and ladders from the same store).
"""

from __future__ import annotations

import contextlib
import json
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, TypeVar

import click
from arbiter_games import GAMES, OptionsError, get_game
from arbiter_games.policy import (
    ILLEGAL_FORFEIT,
    ILLEGAL_REJECT,
    TIMEOUT_DEFAULT_ACTION,
    TIMEOUT_LOSS,
    MatchPolicy,
)
from arbiter_games.timecontrol import TimeControl

from .cli_text import fail, say
from .ladder.model import SAME_OWNER_RULES, LadderConfig
from .ladder.ratings import PROVISIONAL_GAMES, is_provisional, recompute
from .ladder.standings import standings, whole_history_standings
from .store import OutdatedSchema, SqlStore, StoreError, default_url
from .store.describe import result_text

F = TypeVar("F", bound=Callable[..., Any])


def database_option(function: F) -> F:
    return click.option(
        "--database",
        default=None,
        envvar="ARBITER_DATABASE",
        metavar="URL",
        help="sqlite:///FILE or postgresql://... ($ARBITER_DATABASE) [default: sqlite:///arbiter.db]",
    )(function)


@contextmanager
def opened(url: str | None, check: bool = True, create: bool = False) -> Iterator[SqlStore]:
    """The store at ``url``; errors become one line on standard error and exit status 1.

    Only ``create``: a SQLite file that does not exist is created (else refused, and left so).
    """
    store: SqlStore | None = None
    try:
        store = SqlStore(url or default_url(), create=create)
        if check:
            store.check_schema()
        yield store
    except (StoreError, OutdatedSchema) as exc:
        fail(str(exc))
    finally:
        if store is not None:
            store.close()


def store_for_serve(url: str | None) -> SqlStore:
    """The store ``arbiter serve`` runs on: a new (empty) database gets the schema; a database at
    another revision is refused with a one-line message (``arbiter db upgrade`` migrates it)."""
    store = SqlStore(url or default_url())
    try:
        if store.schema_revision() is None:
            store.upgrade()
        store.check_schema()
    except StoreError:
        store.close()
        raise
    return store


# --- db ----------------------------------------------------------------------------------------
@click.group()
def db() -> None:
    """The database's schema."""


@db.command("upgrade")
@database_option
def db_upgrade(database: str | None) -> None:
    """Create or migrate the schema to this arbiter's version."""
    with opened(database, check=False, create=True) as store:
        before = store.schema_revision()
        store.upgrade()
        after = store.schema_revision()
        if before is None:
            say(f"created the schema (revision {after}) in {store.url}")
        elif before != after:
            say(f"migrated {store.url} from revision {before} to {after}")
        else:
            say(f"database {store.url} is up to date (revision {after})")


# --- bots --------------------------------------------------------------------------------------
@click.group()
def bots() -> None:
    """Registered bots and their tokens (only a hash of each token is stored)."""


@bots.command("add")
@click.argument("name")
@click.option("--owner", default="", help="Who runs the bot (shown in listings).")
@database_option
def bots_add(name: str, owner: str, database: str | None) -> None:
    """Register bot NAME and print its token (shown once: give it to the bot)."""
    with opened(database) as store:
        token = store.add_bot(name, owner)
    say(f"bot {name} added; its token (shown only now): {token}")


@bots.command("rotate")
@click.argument("name")
@database_option
def bots_rotate(name: str, database: str | None) -> None:
    """Give bot NAME a new token (the old one stops working at once)."""
    with opened(database) as store:
        token = store.rotate_token(name)
    say(f"bot {name} has a new token (shown only now): {token}")


@bots.command("disable")
@click.argument("name")
@database_option
def bots_disable(name: str, database: str | None) -> None:
    """Refuse bot NAME's connections (PERMISSION_DENIED) until it is enabled again."""
    with opened(database) as store:
        store.set_bot_enabled(name, False)
    say(f"bot {name} disabled")


@bots.command("enable")
@click.argument("name")
@database_option
def bots_enable(name: str, database: str | None) -> None:
    """Let bot NAME connect again."""
    with opened(database) as store:
        store.set_bot_enabled(name, True)
    say(f"bot {name} enabled")


@bots.command("remove")
@click.argument("name")
@database_option
def bots_remove(name: str, database: str | None) -> None:
    """Remove bot NAME, added by mistake; only a bot that never played (otherwise: disable)."""
    with opened(database) as store:
        store.remove_bot(name)
    say(f"bot {name} removed")


@bots.command("list")
@database_option
def bots_list(database: str | None) -> None:
    """The registered bots."""
    with opened(database) as store:
        rows = store.list_bots()
    if not rows:
        say("no bots yet: arbiter bots add NAME")
        return
    say(f"{'bot':<24} {'status':<8}  owner")
    for row in rows:
        say(f"{row.name:<24} {'enabled ' if row.enabled else 'DISABLED'}  {row.owner}")


# --- ladders -----------------------------------------------------------------------------------
@click.group()
def ladders() -> None:
    """Ladders: a game with fixed options, clocks and policies, played continuously and rated."""


@ladders.command("add")
@click.argument("name")
@click.option("--game", type=click.Choice(list(GAMES)), required=True, help="The ladder's game.")
@click.option("--size", type=int, default=None, help="Board size (Torrent, Fravan).")
@click.option("--base", type=float, default=60.0, show_default=True, help="Game clock per seat, seconds.")
@click.option("--increment", type=float, default=1.0, show_default=True, help="Fischer increment, seconds.")
@click.option("--per-decision", type=float, default=None, help="Cap on one decision, seconds.")
@click.option(
    "--on-timeout",
    type=click.Choice([TIMEOUT_LOSS, TIMEOUT_DEFAULT_ACTION]),
    default=TIMEOUT_LOSS,
    show_default=True,
    help="A timeout loses, or the arbiter plays a default action (pass, else a random legal one).",
)
@click.option(
    "--on-illegal",
    type=click.Choice([ILLEGAL_FORFEIT, ILLEGAL_REJECT]),
    default=ILLEGAL_FORFEIT,
    show_default=True,
    help="An illegal or malformed action loses (forfeit) or may be answered again (reject).",
)
@click.option("--unrated", is_flag=True, help="Results change no rating.")
@click.option("--duplicate-pairs", is_flag=True, help="Surge: each pairing twice, same seed, seats swapped.")
@click.option(
    "--same-owner",
    type=click.Choice(list(SAME_OWNER_RULES)),
    default="unrated",
    show_default=True,
    help="Matches between two bots of one owner (or two versions of one bot): unrated, or rated "
    "and flagged on the match.",
)
@database_option
def ladders_add(
    name: str,
    game: str,
    size: int | None,
    base: float,
    increment: float,
    per_decision: float | None,
    on_timeout: str,
    on_illegal: str,
    unrated: bool,
    duplicate_pairs: bool,
    same_owner: str,
    database: str | None,
) -> None:
    """Create ladder NAME."""
    definition = get_game(game)
    takes_size = any(option.name == "size" for option in definition.options)
    if size is not None and not takes_size:
        raise click.BadParameter(f"{game} has no board size", param_hint="--size")
    if duplicate_pairs and not definition.has_chance:
        raise click.BadParameter(
            f"{game} has no chance: duplicate pairs would replay the same game",
            param_hint="--duplicate-pairs",
        )
    try:
        options = definition.normalise_options({"size": size} if size is not None else {})
        control = TimeControl(
            base=base or None, increment=increment if base else 0.0, per_decision=per_decision
        )
    except (OptionsError, ValueError) as exc:
        raise click.BadParameter(str(exc)) from exc
    if not control.timed:
        raise click.BadParameter("a ladder needs a game clock (--base) or a cap (--per-decision)")
    config = LadderConfig(
        name=name,
        game=game,
        options=options,
        control=control,
        policy=MatchPolicy(on_timeout=on_timeout, on_illegal=on_illegal),
        rated=not unrated,
        duplicate_pairs=duplicate_pairs,
        same_owner=same_owner,
    )
    with opened(database) as store:
        store.add_ladder(config)
    say(
        f"ladder {name}: {definition.describe(options)}, {control.describe()}{', unrated' if unrated else ''}"
    )


@ladders.command("archive")
@click.argument("name")
@database_option
def ladders_archive(name: str, database: str | None) -> None:
    """Close ladder NAME to new matches; its standings and matches stay (reopen: ladders reopen)."""
    with opened(database) as store:
        store.set_ladder_enabled(name, False)
    say(f"ladder {name} archived: no new matches; running ones finish")


@ladders.command("reopen")
@click.argument("name")
@database_option
def ladders_reopen(name: str, database: str | None) -> None:
    """Let an archived ladder NAME take matches again."""
    with opened(database) as store:
        store.set_ladder_enabled(name, True)
    say(f"ladder {name} reopened")


@ladders.command("remove")
@click.argument("name")
@database_option
def ladders_remove(name: str, database: str | None) -> None:
    """Remove ladder NAME, added by mistake; only a ladder that never had a match (otherwise: archive)."""
    with opened(database) as store:
        store.remove_ladder(name)
    say(f"ladder {name} removed")


@ladders.command("edit")
@click.argument("name")
@click.option("--description", required=True, help="What the ladder is for, shown on its page ('' for none).")
@database_option
def ladders_edit(name: str, description: str, database: str | None) -> None:
    """Change what ladder NAME's page says about it."""
    with opened(database) as store:
        store.set_ladder_description(name, description)
    say(f"ladder {name}: description {'set' if description else 'removed'}")


@ladders.command("list")
@database_option
def ladders_list(database: str | None) -> None:
    """The ladders."""
    with opened(database) as store:
        rows = store.list_ladders()
    if not rows:
        say("no ladders yet: arbiter ladders add NAME --game torrent")
        return
    say(f"{'ladder':<20} {'game':<12} {'clock':<24} rated")
    for config in rows:
        game = get_game(config.game)
        extra = ", duplicate pairs" if config.duplicate_pairs else ""
        if config.same_owner != "unrated":
            extra += f", same-owner matches {config.same_owner}"
        if not config.enabled:
            extra += ", archived"
        say(
            f"{config.name:<20} {game.describe(config.options):<12} {config.control.describe():<24}"
            f" {'rated' if config.rated else 'unrated'}{extra}"
        )


@ladders.command("standings")
@click.argument("name")
@click.option(
    "--method",
    type=click.Choice(["openskill", "whole-history"]),
    default="openskill",
    show_default=True,
    help="Live openskill ratings, or a whole-history (Bradley-Terry) fit of every result.",
)
@click.option("--all-versions", is_flag=True, help="Older versions of each bot too.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@database_option
def ladders_standings(
    name: str, method: str, all_versions: bool, as_json: bool, database: str | None
) -> None:
    """The standings of ladder NAME (ranked by the conservative rating mu - 3 sigma)."""
    with opened(database) as store:
        known(store, ladder=name)
        rows = (
            standings(store, name, all_versions)
            if method == "openskill"
            else whole_history_standings(store, name)
        )
    if as_json:
        say(json.dumps([row.as_dict() for row in rows], indent=1))
        return
    if not rows:
        say("no rated results yet")
        return
    say(rows[0].header())
    for row in rows:
        say(row.line())
    if method == "openskill":
        say(f"rating: mu - 3 sigma; ? provisional (fewer than {PROVISIONAL_GAMES} rated games)")


@ladders.command("recompute")
@click.argument("name")
@database_option
def ladders_recompute(name: str, database: str | None) -> None:
    """Replay every rated result of ladder NAME in order; the ratings are rebuilt from them."""
    with opened(database) as store:
        known(store, ladder=name)
        results = store.finished_results(name)
        tallies = recompute(results)
        before = {row.version: row.tally for row in store.ratings(name)}
        store.replace_ratings(name, tallies)
    changed = sum(1 for version, tally in tallies.items() if before.get(version) != tally)
    provisional = sum(1 for tally in tallies.values() if is_provisional(tally.games))
    say(
        f"ladder {name}: {len(results)} results replayed, {len(tallies)} ratings "
        f"({provisional} provisional), {changed} differed from the stored ones"
    )


def known(store: SqlStore, ladder: str | None = None, bot: str | None = None) -> None:
    """Exit with an error naming the ladder or bot (when given) that the store does not have."""
    if ladder is not None and store.get_ladder(ladder) is None:
        fail(f"no ladder named {ladder!r}")
    if bot is not None and store.get_bot(bot) is None:
        fail(f"no bot named {bot!r}")


# --- matches -----------------------------------------------------------------------------------
@click.group()
def matches() -> None:
    """Stored matches."""


@matches.command("list")
@click.option("--ladder", default=None, help="Only this ladder's matches.")
@click.option("--bot", default=None, help="Only matches this bot played.")
@click.option("--limit", type=int, default=50, show_default=True, help="At most this many, newest first.")
@database_option
def matches_list(ladder: str | None, bot: str | None, limit: int, database: str | None) -> None:
    """The latest matches, newest first: when, the game, the two bots and how it ended."""
    if limit < 1:
        fail(f"--limit must be at least 1, got {limit}", 2)
    with opened(database) as store:
        known(store, ladder=ladder, bot=bot)
        rows = store.matches(ladder, bot, limit)
    if not rows:
        say("no matches yet" + (f" on ladder {ladder}" if ladder else "") + (f" of bot {bot}" if bot else ""))
        return
    say(f"{'match':<16}  {'started (UTC)':<16}  {'game':<7} {'ladder':<12} bots, seat 1 first: result")
    for row in rows:
        started = time.strftime("%Y-%m-%d %H:%M", time.gmtime(row.started_at))
        say(
            f"{row.match_id:<16}  {started}  {row.game:<7} {row.ladder or '-':<12} "
            f"{row.seat_1.bot}@{row.seat_1.version} vs {row.seat_2.bot}@{row.seat_2.version}: "
            f"{result_text(row)}" + ("  (same owner)" if row.same_owner else "")
        )


@matches.command("export")
@click.argument("ids", nargs=-1)
@click.option("--all", "export_all", is_flag=True, help="Every finished match (of --ladder, if given).")
@click.option(
    "--ladder", default=None, help="Only this ladder's matches (implies --all when no ids are named)."
)
@click.option(
    "--format",
    "form",
    type=click.Choice(["json", "ndjson"]),
    default="json",
    show_default=True,
    help="json: one record file per match in the --out folder; ndjson: one line per finished match of "
    "--ladder, in finishing order, to the --out file ('-': standard output).",
)
@click.option(
    "--after",
    type=click.IntRange(min=0),
    default=0,
    help="ndjson: only matches that finished after this number.",
)
@click.option(
    "--out",
    type=click.Path(),
    required=True,
    help="The folder for the JSON records, or the NDJSON file ('-').",
)
@database_option
def matches_export(
    ids: tuple[str, ...],
    export_all: bool,
    ladder: str | None,
    form: str,
    after: int,
    out: str,
    database: str | None,
) -> None:
    """Write match records (the files `arbiter replay` reads), or a ladder's matches as NDJSON."""
    if form == "ndjson":
        if ladder is None or ids:
            raise click.UsageError("--format ndjson exports a whole ladder: give --ladder NAME and no ids")
        _export_ndjson(ladder, after, out, database)
        return
    if not ids and not export_all and ladder is None:
        raise click.UsageError("name match ids, or --all, or --ladder NAME")
    folder = Path(out)
    written = 0
    with opened(database) as store:
        if ladder is not None:
            known(store, ladder=ladder)
        unknown = next((match_id for match_id in ids if store.match_row(match_id) is None), None)
        if unknown is not None:
            fail(f"no record of match {unknown!r}")
        wanted = list(ids) or [
            row.match_id for row in store.matches(ladder, limit=10**9) if row.status != "running"
        ]
        folder.mkdir(parents=True, exist_ok=True)
        for match_id in wanted:
            record = store.match_record(match_id)
            if record is None:
                say(f"warning: no record of match {match_id}", err=True)
                continue
            path = folder / f"{record['game']}-{match_id}.json"
            path.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
            written += 1
    say(f"{written} record(s) written to {folder}")


def _export_ndjson(ladder: str, after: int, out: str, database: str | None) -> None:
    """Every finished match of ``ladder`` as NDJSON to ``out`` (a file, or ``-``); the count on
    standard error (every 1,000 lines too, for a long ladder)."""
    from .store.export import ndjson_lines

    with opened(database) as store:
        known(store, ladder=ladder)
        written = 0
        with contextlib.ExitStack() as files:
            target: IO[str] = (
                sys.stdout if out == "-" else files.enter_context(Path(out).open("w", encoding="utf-8"))
            )
            for line in ndjson_lines(store, ladder, after):
                target.write(line)
                written += 1
                if written % 1000 == 0:
                    say(f"{written} matches ...", err=True)
            target.flush()
    say(
        f"{written} match(es) of ladder {ladder} written to {'standard output' if out == '-' else out}",
        err=True,
    )


def register(main: click.Group) -> None:
    for group in (db, bots, ladders, matches):
        main.add_command(group)
