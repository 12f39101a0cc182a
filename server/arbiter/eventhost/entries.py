"""A bot's requests about an event, checked against the store: entering and withdrawing.

What a bot is told: ``Entered`` (the event and its entry), ``Over`` (it was entered and the event
is finished or cancelled), or an ``EventRefused`` with its machine-readable reason.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from arbiter_games import OptionsError, get_game
from arbiter_wire import reasons
from arbiter_wire.text import BadName, check_name

from ..events.model import EventConfig, EventStatus
from ..store import StoreError
from ..store.events import EntryRow, EventRow


class EventRefused(Exception):
    """An event request the arbiter does not take, with its machine-readable reason."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message


class EntryStore(Protocol):
    """What entering and withdrawing read and write in the store."""

    def get_event(self, name: str) -> EventRow | None: ...

    def entrants(self, event_name: str) -> list[EntryRow]: ...

    def add_entrant(self, event_name: str, bot: str) -> EntryRow: ...

    def remove_entrant(self, event_name: str, bot: str) -> bool: ...

    def get_bot(self, name: str) -> object | None: ...


@dataclass(frozen=True)
class Entered:
    """An entry taken (or found): the event, the bot's seed and how many are entered."""

    config: EventConfig
    status: EventStatus
    seed: int
    entrants: int


@dataclass(frozen=True)
class Over:
    """The bot's event is over: its place (0 when cancelled) and points."""

    event: str
    status: EventStatus
    place: int
    points: float
    entrants: int


#: Whether the game a bot says it plays (game, options) is the event's; None: it did not say.
Spec = tuple[str, Mapping[str, int]] | None


def plays(config: EventConfig, spec: Spec) -> bool:
    if spec is None:
        return True
    game, options = spec
    if game != config.game:
        return False
    try:
        return dict(get_game(game).normalise_options(dict(options))) == dict(config.options)
    except OptionsError:
        return False


def event_of(store: EntryStore, name: str) -> EventRow:
    try:
        check_name(name, "event")
    except BadName as exc:
        raise EventRefused(reasons.BAD_REQUEST, str(exc)) from None
    row = store.get_event(name)
    if row is None:
        raise EventRefused(reasons.EVENT_NOT_FOUND, f"no event named {name[:40]!r} on this arbiter")
    return row


def enter(
    store: EntryStore,
    bot: str,
    name: str,
    spec: Spec,
    over: Callable[[EventRow, Sequence[EntryRow], str], Over],
    wall: Callable[[], float] = time.time,
) -> Entered | Over:
    """Enter ``bot`` in event ``name`` (or find its entry). ``over`` gives the bot's standing
    in an event that is over."""
    row = event_of(store, name)
    config = row.config
    entries = store.entrants(name)
    mine = next((entry for entry in entries if entry.bot == bot), None)
    if mine is not None and mine.withdrawn_at is not None:
        raise EventRefused(reasons.EVENT_CLOSED, f"bot {bot} withdrew from event {name}")
    if not plays(config, spec):
        described = get_game(config.game).describe(config.options)
        raise EventRefused(
            reasons.GAME_NOT_ACCEPTED, f"event {name} plays {described}, not the game this bot plays"
        )
    if mine is not None:
        if row.status in (EventStatus.FINISHED, EventStatus.CANCELLED):
            return over(row, entries, bot)
        return Entered(config, row.status, mine.seed, len(entries))
    _check_open(row, wall())
    if store.get_bot(bot) is None:
        raise EventRefused(
            reasons.BAD_REQUEST,
            f"bot {bot} is not registered in the arbiter's store (arbiter bots add): "
            "only registered bots enter events",
        )
    if config.max_entrants is not None and len(entries) >= config.max_entrants:
        raise EventRefused(reasons.EVENT_FULL, f"event {name} is full ({config.max_entrants} entrants)")
    try:
        entry = store.add_entrant(name, bot)
    except StoreError as exc:  # it started or filled up in between
        raise EventRefused(reasons.EVENT_CLOSED, str(exc)) from None
    return Entered(config, EventStatus.SCHEDULED, entry.seed, len(entries) + 1)


def _check_open(row: EventRow, now: float) -> None:
    """Whether a bot not entered yet may enter (an EventRefused if not)."""
    config = row.config
    name = config.name
    if row.status is not EventStatus.SCHEDULED:
        raise EventRefused(reasons.EVENT_CLOSED, f"event {name} is {row.status}: entries are closed")
    if config.invite_only:
        raise EventRefused(reasons.INVITE_ONLY, f"event {name} is invite-only: its host enters the bots")
    if config.entry_closes_at is not None and now >= config.entry_closes_at:
        raise EventRefused(reasons.EVENT_CLOSED, f"entries to event {name} have closed")
    if config.starts_at is not None and now >= config.starts_at:
        raise EventRefused(reasons.EVENT_CLOSED, f"event {name} has started: entries are closed")


def withdraw(store: EntryStore, bot: str, name: str) -> bool:
    """Take ``bot`` out of event ``name``: True when the entry was deleted (before the start),
    False when the bot is withdrawn from the running event."""
    row = event_of(store, name)
    if row.status in (EventStatus.FINISHED, EventStatus.CANCELLED):
        raise EventRefused(reasons.EVENT_CLOSED, f"event {name} is {row.status}")
    entries = {entry.bot: entry for entry in store.entrants(name)}
    if bot not in entries:
        raise EventRefused(reasons.BAD_REQUEST, f"bot {bot} is not entered in event {name}")
    if entries[bot].withdrawn_at is not None:
        raise EventRefused(reasons.EVENT_CLOSED, f"bot {bot} has withdrawn from event {name} already")
    try:
        return store.remove_entrant(name, bot)
    except StoreError as exc:  # it finished or was cancelled in between
        raise EventRefused(reasons.EVENT_CLOSED, str(exc)) from None
