"""The host's commands for events: ``arbiter events add|list|show|start|cancel|entrants``.

Each takes ``--database URL`` as the ladder commands do. They change only the store: a running
arbiter on it notices a start, a cancel or a withdrawal at its next look (``EventWatch``) and
hosts the event's rounds (docs/events.md).
"""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime

import click
from arbiter_games import GAMES, OptionsError, get_game
from arbiter_games.timecontrol import TimeControl

from .cli_ladder import database_option, opened
from .cli_text import fail, say
from .events.model import EventConfig, EventStatus, Format


@click.group()
def events() -> None:
    """Events: competitions played in rounds (round robin, Swiss, knockout, arena) with standings."""


@events.command("add")
@click.argument("name")
@click.option("--game", type=click.Choice(list(GAMES)), required=True, help="The event's game.")
@click.option("--size", type=int, default=None, help="Board size (Torrent, Fravan).")
@click.option(
    "--format", "form", type=click.Choice([f.value for f in Format]), required=True, help="How it pairs."
)
@click.option("--base", type=float, default=60.0, show_default=True, help="Game clock per seat, seconds.")
@click.option("--increment", type=float, default=1.0, show_default=True, help="Fischer increment, seconds.")
@click.option("--per-decision", type=float, default=None, help="Cap on one decision, seconds.")
@click.option("--rounds", type=int, default=None, help="Swiss: rounds [default: ceil(log2(entrants))].")
@click.option("--games-per-pairing", type=int, default=1, show_default=True, help="Games of one pairing.")
@click.option("--duplicate-pairs", is_flag=True, help="Surge: each game twice, same seed, seats swapped.")
@click.option("--starts", default=None, metavar="ISO-TIME", help="When it starts (no zone: UTC).")
@click.option(
    "--starts-in", type=float, default=None, metavar="SECONDS", help="It starts this long from now."
)
@click.option("--entry-closes", default=None, metavar="ISO-TIME", help="No entry after this (no zone: UTC).")
@click.option("--max-entrants", type=int, default=None, help="At most this many entrants.")
@click.option("--invite-only", is_flag=True, help="Only the host enters bots (events entrants --add).")
@click.option("--unrated", is_flag=True, help="Its games change no rating.")
@click.option("--duration", type=float, default=None, metavar="SECONDS", help="Arena: its window.")
@database_option
def events_add(
    name: str,
    game: str,
    size: int | None,
    form: str,
    base: float,
    increment: float,
    per_decision: float | None,
    rounds: int | None,
    games_per_pairing: int,
    duplicate_pairs: bool,
    starts: str | None,
    starts_in: float | None,
    entry_closes: str | None,
    max_entrants: int | None,
    invite_only: bool,
    unrated: bool,
    duration: float | None,
    database: str | None,
) -> None:
    """Create event NAME (scheduled: bots may enter until it starts)."""
    definition = get_game(game)
    if size is not None and not any(option.name == "size" for option in definition.options):
        raise click.BadParameter(f"{game} has no board size", param_hint="--size")
    if duplicate_pairs and not definition.has_chance:
        raise click.BadParameter(
            f"{game} has no chance: duplicate pairs would replay the same game",
            param_hint="--duplicate-pairs",
        )
    if starts is not None and starts_in is not None:
        raise click.UsageError("give --starts or --starts-in, not both")
    if starts_in is not None and starts_in < 0:
        raise click.BadParameter("must not be negative", param_hint="--starts-in")
    starts_at = time.time() + starts_in if starts_in is not None else _instant(starts, "--starts")
    try:
        options = definition.normalise_options({"size": size} if size is not None else {})
        control = TimeControl(
            base=base or None, increment=increment if base else 0.0, per_decision=per_decision
        )
        config = EventConfig(
            name=name,
            game=game,
            options=options,
            control=control,
            format=Format(form),
            rounds=rounds,
            games_per_pairing=games_per_pairing,
            duplicate_pairs=duplicate_pairs,
            starts_at=starts_at,
            entry_closes_at=_instant(entry_closes, "--entry-closes"),
            max_entrants=max_entrants,
            invite_only=invite_only,
            rated=not unrated,
            duration=duration,
        )
    except (OptionsError, ValueError) as exc:
        raise click.UsageError(str(exc)) from exc
    with opened(database) as store:
        store.add_event(config)
    start = f"starts {utc_time(starts_at)}" if starts_at is not None else "starts when the host starts it"
    say(f"event {name}: {form}, {definition.describe(options)}, {control.describe()}; {start}")


def utc_time(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, tz=UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def _instant(text: str | None, option: str) -> float | None:
    """An ISO 8601 time as epoch seconds (no zone: UTC)."""
    if text is None:
        return None
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise click.BadParameter(f"not an ISO 8601 time: {text!r}", param_hint=option) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


@events.command("list")
@database_option
def events_list(database: str | None) -> None:
    """The events, the latest created first."""
    with opened(database) as store:
        rows = [(row, len(store.entrants(row.config.name))) for row in store.list_events()]
    if not rows:
        say("no events yet: arbiter events add NAME --game torrent --format swiss")
        return
    say(f"{'event':<20} {'format':<19} {'game':<12} {'status':<10} {'entrants':>8}  starts")
    for row, count in rows:
        config = row.config
        starts = utc_time(config.starts_at) if config.starts_at is not None else "when started"
        game = get_game(config.game).describe(config.options)
        say(f"{config.name:<20} {config.format:<19} {game:<12} {row.status:<10} {count:>8}  {starts}")


@events.command("show")
@click.argument("name")
@click.option("--json", "as_json", is_flag=True, help="Everything as one JSON document.")
@database_option
def events_show(name: str, as_json: bool, database: str | None) -> None:
    """Event NAME: status, entrants, rounds with pairings and results, standings, crosstable."""
    # The standings' code (networkx for Swiss) is loaded by this command only.
    from .cli_events_show import event_report, event_text

    with opened(database) as store:
        row = store.get_event(name)
        if row is None:
            fail(f"no event named {name!r} (see 'arbiter events list')")
        report = event_report(row, store.entrants(name), store.event_history(name))
    if as_json:
        click.echo(json.dumps(report, indent=1))
    else:
        say(event_text(report))


@events.command("start")
@click.argument("name")
@database_option
def events_start(name: str, database: str | None) -> None:
    """Start event NAME now (entries close; an arbiter on this store pairs its first round)."""
    with opened(database) as store:
        store.set_event_status(name, EventStatus.RUNNING)
        count = len(store.entrants(name))
    say(f"event {name} started with {count} entrants: a running arbiter on this store pairs round 1")


@events.command("cancel")
@click.argument("name")
@database_option
def events_cancel(name: str, database: str | None) -> None:
    """Cancel event NAME (scheduled or running); what it played stays."""
    with opened(database) as store:
        before = store.set_event_status(name, EventStatus.CANCELLED)
    say(f"event {name} cancelled (it was {before})")


@events.command("entrants")
@click.argument("name")
@click.option("--add", "adds", multiple=True, metavar="BOT", help="Enter a registered bot (repeatable).")
@click.option("--remove", "removes", multiple=True, metavar="BOT", help="Take a bot out (repeatable).")
@database_option
def events_entrants(name: str, adds: tuple[str, ...], removes: tuple[str, ...], database: str | None) -> None:
    """Enter bots in event NAME or take them out (before it starts: the entry goes; once it runs:
    the bot is withdrawn, keeps its results and is paired no more); no option: list them."""
    with opened(database) as store:
        for bot in adds:
            entry = store.add_entrant(name, bot)
            say(f"bot {bot} entered in event {name} (seed {entry.seed})")
        for bot in removes:
            gone = store.remove_entrant(name, bot)
            say(f"bot {bot} {'removed from' if gone else 'withdrawn from'} event {name}")
        if adds or removes:
            return
        entries = store.entrants(name)
    if not entries:
        say(f"no entrants yet: arbiter events entrants {name} --add BOT")
    for entry in entries:
        say(f"{entry.seed:>4} {entry.bot}{' (withdrawn)' if entry.withdrawn_at is not None else ''}")


def register(main: click.Group) -> None:
    main.add_command(events)
