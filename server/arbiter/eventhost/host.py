"""The events this node hosts: their rounds, each round's games, no-shows and results.

An event is hosted once it is ``running`` in the store (``arbiter events start``, or its start
time come: ``EventWatch``). Its rounds come from the pure event code (``formats.next_round``); each
round is stored before its games start. A pairing plays its games one at a time (a game and its
duplicate together, with one seed), each through ``MatchHosting`` like any match, tagged with its
event game (``GameRef``). A game starts when both bots are connected; a bot not connected when
its game is due has ``grace`` seconds, then forfeits it (a ``no_show``; both absent: a
``double_no_show``). A withdrawn bot forfeits its games not started yet. A match's result goes to
the store writer, which keeps it in the transaction that ends the match; an aborted match (the
arbiter stopped) is no result: its game is played again. Every write of the host goes through the
writer after the results before it, so a round is stored only after the results it was paired
from, and the event's end only after its last result. After a restart the host reads the event
back from the store and goes on at the same round with the same pairings.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any, Protocol

import structlog

from ..events.formats import games_to_play, next_round, round_decided
from ..events.model import (
    EventConfig,
    EventStatus,
    Finished,
    Format,
    Game,
    GameRef,
    History,
    ResultKind,
    Round,
)
from ..events.standings import standings
from ..hosting import MatchHosting
from ..match.events import MatchEnded, MatchEvent
from ..match.match import MatchSetup
from ..store.events import EntryRow, EventRow
from . import EVENT_GRACE
from .entries import Entered, EntryStore, Over, Spec, enter, withdraw

log = structlog.get_logger("arbiter")


class EventStore(EntryStore, Protocol):
    """What the event host reads from the store (and writes, through the sink, in order)."""

    def event_history(self, event_name: str) -> History: ...

    def list_events(self) -> list[EventRow]: ...

    def set_event_status(self, name: str, status: EventStatus) -> EventStatus: ...

    def add_round(self, event_name: str, made: Round) -> bool: ...

    def record_game(
        self,
        event_name: str,
        number: int,
        board: int,
        game_number: int,
        game: Game,
        match_id: str | None = None,
    ) -> bool: ...


class EventSink(Protocol):
    """The store writer: results with their matches' ends, and other writes in order."""

    def event_result(self, match_id: str, game: Game) -> None: ...

    def call(self, write: Callable[..., Any], *args: Any) -> Future[None]: ...


@dataclass
class _Leg:
    ref: GameRef
    seats: tuple[str, str]
    match_id: str | None = None


@dataclass
class _Unit:
    """The games of a pairing played now: one game, or a game and its duplicate (one seed)."""

    board: int
    legs: list[_Leg]
    seed: bytes | None = None
    timer: asyncio.TimerHandle | None = None

    @property
    def bots(self) -> set[str]:
        return {bot for leg in self.legs for bot in leg.seats}

    @property
    def started(self) -> bool:
        return any(leg.match_id is not None for leg in self.legs)


@dataclass
class _Hosted:
    config: EventConfig
    #: As they stood at the start, in seed order (the withdrawn too).
    entrants: list[str]
    withdrawn: set[str]
    rounds: list[Round]
    #: Each board's decided games by game number: (round, board) -> number -> result.
    games: dict[tuple[int, int], dict[int, Game]]
    #: The current round's units in play, by board.
    units: dict[int, _Unit] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.config.name

    def history(self) -> History:
        games = {key: tuple(kept[n] for n in sorted(kept)) for key, kept in self.games.items()}
        return History(tuple(self.rounds), games)


def _hosted(row: EventRow, entries: Sequence[EntryRow], history: History) -> _Hosted:
    games: dict[tuple[int, int], dict[int, Game]] = {}
    for key, kept in history.games.items():
        games[key] = dict(enumerate(kept, start=1))
    return _Hosted(
        row.config,
        [entry.bot for entry in entries],
        {entry.bot for entry in entries if entry.withdrawn_at is not None},
        list(history.rounds),
        games,
    )


def over_of(row: EventRow, entries: Sequence[EntryRow], history: History, bot: str) -> Over:
    """What ``bot`` is told of its event that is over: its place and points."""
    if row.status is not EventStatus.FINISHED:
        return Over(row.config.name, row.status, 0, 0.0, len(entries))
    withdrawn = [entry.bot for entry in entries if entry.withdrawn_at is not None]
    table = standings(row.config, [entry.bot for entry in entries], history, withdrawn)
    mine = next((standing for standing in table if standing.bot == bot), None)
    place, points = (mine.place, mine.score) if mine is not None else (0, 0.0)
    return Over(row.config.name, row.status, place, points, len(entries))


class EventHost:
    def __init__(
        self,
        store: EventStore,
        sink: EventSink,
        hosting: MatchHosting,
        connected: Callable[[str], bool],
        tell: Callable[[str, Over], None],
        grace: float = EVENT_GRACE,
        wall: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.sink = sink
        self.hosting = hosting
        self.connected = connected
        #: Sends a connected bot an ``Over`` (its event ended).
        self.tell = tell
        self.grace = grace
        self.wall = wall
        self.events: dict[str, _Hosted] = {}
        #: Events this host saw end (finished or cancelled): never hosted again, even while the
        #: store still says ``running`` (the end's write waits behind the results).
        self.ended: set[str] = set()
        #: Set when the arbiter stops: no game starts and no aborted game is played again.
        self.stopping = False

    # --- the bots' requests -------------------------------------------------------------------
    def enter(self, bot: str, name: str, spec: Spec) -> Entered | Over:
        def over(row: EventRow, entries: Sequence[EntryRow], who: str) -> Over:
            return over_of(row, entries, self.store.event_history(row.config.name), who)

        found = enter(self.store, bot, name, spec, over, self.wall)
        if isinstance(found, Entered):
            log.info("event_entered", event_name=name, bot=bot, seed=found.seed)
        return found

    def withdraw(self, bot: str, name: str) -> bool:
        removed = withdraw(self.store, bot, name)
        log.info("event_withdrawn", event_name=name, bot=bot, removed=removed)
        if not removed:
            self.withdrawn(name, {bot})
        return removed

    # --- hosting ------------------------------------------------------------------------------
    def resume(self) -> int:
        """Host every event the store has running (at the start of the arbiter); how many."""
        names = [row.config.name for row in self.store.list_events() if row.status is EventStatus.RUNNING]
        return sum(1 for name in names if self.begin(name))

    def begin(self, name: str) -> bool:
        """Host event ``name`` if it is running (and not hosted yet); whether it is hosted now."""
        if name in self.events:
            return True
        if name in self.ended:
            return False
        row = self.store.get_event(name)
        if row is None or row.status is not EventStatus.RUNNING or self.stopping:
            return False
        if row.config.format is Format.ARENA:
            log.warning("event_not_hosted", event_name=name, why="an arena is not hosted live yet")
            return False
        event = _hosted(row, self.store.entrants(name), self.store.event_history(name))
        self._adopt(event)
        self.events[name] = event
        log.info("event_hosted", event_name=name, format=row.config.format.value, rounds=len(event.rounds))
        asyncio.get_running_loop().call_soon(self.advance, name)
        return True

    def _adopt(self, event: _Hosted) -> None:
        """The current round's matches running here already (rebuilt from the store after a
        restart) are its games in play."""
        number = len(event.rounds)
        for match in list(self.hosting.matches.values()):
            ref = match.facts.event
            if ref is None or ref.event != event.name or ref.round != number:
                continue
            bots = match.facts.bots
            unit = event.units.setdefault(ref.board, _Unit(ref.board, []))
            unit.legs.append(_Leg(ref, (bots[1], bots[2]), match.id))

    def advance(self, name: str) -> None:
        """Start what the event can play now: the current round's next games, or the next round
        once this one is decided, or the event's end."""
        event = self.events.get(name)
        while event is not None and not self.stopping:
            history = event.history()
            current = event.rounds[-1] if event.rounds else None
            if current is not None and not round_decided(event.config, current, history):
                self._play(event, current, history)
                return
            made = next_round(event.config, event.entrants, history, event.withdrawn)
            if isinstance(made, Finished):
                self._finish(event)
                return
            event.rounds.append(made)
            event.units.clear()
            self.sink.call(self.store.add_round, name, made)
            log.info(
                "event_round_paired",
                event_name=name,
                round=made.number,
                pairings=[f"{p.seat_1}-{p.seat_2}" for p in made.pairings],
                byes=list(made.byes),
            )

    def _play(self, event: _Hosted, current: Round, history: History) -> None:
        unit_size = event.config.games_per_unit
        for board, pairing in enumerate(current.pairings, start=1):
            if board in event.units:
                continue
            games = history.games_of(current.number, board)
            todo = games_to_play(event.config, pairing, games)
            if not todo:
                continue
            size = unit_size if len(todo) >= unit_size else 1
            legs = [
                _Leg(GameRef(event.name, current.number, board, len(games) + 1 + k), todo[k])
                for k in range(size)
            ]
            unit = _Unit(board, legs, secrets.token_bytes(32) if size > 1 else None)
            event.units[board] = unit
            self._try_start(event, unit)

    def _try_start(self, event: _Hosted, unit: _Unit) -> None:
        """Start the unit's games if both bots are here; a withdrawn bot forfeits them; else the
        grace starts (once)."""
        if unit.started or self.stopping:
            return
        out = unit.bots & event.withdrawn
        if out:
            self._forfeit(event, unit, out)
            return
        absent = sorted(bot for bot in unit.bots if not self.connected(bot))
        if not absent:
            if unit.timer is not None:
                unit.timer.cancel()
            for leg in unit.legs:
                leg.match_id = self._start(event.config, leg, unit.seed)
            return
        if unit.timer is None:
            loop = asyncio.get_running_loop()
            unit.timer = loop.call_later(self.grace, self._grace_over, event.name, unit)
            log.info(
                "event_game_waiting",
                event_name=event.name,
                round=unit.legs[0].ref.round,
                board=unit.board,
                absent=absent,
                grace=self.grace,
            )

    def _start(self, config: EventConfig, leg: _Leg, seed: bytes | None) -> str:
        setup = MatchSetup(
            config.game,
            dict(config.options),
            {1: leg.seats[0], 2: leg.seats[1]},
            config.control,
            config.policy,
            seed=seed,
            paired=seed is not None,
            event=leg.ref,
        )
        return self.hosting.start(setup).id

    def _grace_over(self, name: str, unit: _Unit) -> None:
        event = self.events.get(name)
        if event is None or event.units.get(unit.board) is not unit or unit.started or self.stopping:
            return
        absent = {bot for bot in unit.bots if not self.connected(bot)}
        if absent:
            self._forfeit(event, unit, absent)
        else:
            self._try_start(event, unit)

    def _forfeit(self, event: _Hosted, unit: _Unit, absent: set[str]) -> None:
        """The unit's games are lost by the ``absent`` bots (both absent: nobody wins)."""
        if unit.timer is not None:
            unit.timer.cancel()
        del event.units[unit.board]
        for leg in unit.legs:
            one, two = leg.seats
            if one in absent and two in absent:
                game = Game(one, two, None, ResultKind.DOUBLE_NO_SHOW)
            else:
                game = Game(one, two, 2 if one in absent else 1, ResultKind.NO_SHOW)
            ref = leg.ref
            event.games.setdefault((ref.round, ref.board), {})[ref.game] = game
            self.sink.call(self.store.record_game, ref.event, ref.round, ref.board, ref.game, game, None)
            log.info(
                "event_forfeit", event_name=ref.event, round=ref.round, board=ref.board, absent=sorted(absent)
            )
        asyncio.get_running_loop().call_soon(self.advance, event.name)

    def _finish(self, event: _Hosted) -> None:
        name = event.name
        del self.events[name]
        self.ended.add(name)
        history = event.history()
        table = standings(event.config, event.entrants, history, event.withdrawn)
        told = {
            row.bot: Over(name, EventStatus.FINISHED, row.place, row.score, len(event.entrants))
            for row in table
        }
        log.info(
            "event_finished",
            event_name=name,
            rounds=len(event.rounds),
            winner=table[0].bot if table else None,
        )
        loop = asyncio.get_running_loop()
        written = self.sink.call(self.store.set_event_status, name, EventStatus.FINISHED)
        # The bots hear of the end once it is written (after every result before it).
        written.add_done_callback(lambda _: loop.call_soon_threadsafe(self._tell_all, told))

    def _tell_all(self, told: dict[str, Over]) -> None:
        for bot, over in told.items():
            if self.connected(bot):
                self.tell(bot, over)

    # --- what happens meanwhile ---------------------------------------------------------------
    def __call__(self, event: MatchEvent) -> None:
        """A listener: an event game's end is its result (kept with the match's end by the
        writer, subscribed after this host), or, aborted, no result: the game is played again."""
        if not isinstance(event, MatchEnded) or event.facts.event is None:
            return
        ref = event.facts.event
        aborted = event.end.reason == "aborted"
        bots = event.facts.bots
        game = Game(bots[1], bots[2], event.end.winner_seat, ResultKind.PLAYED)
        if not aborted:
            self.sink.event_result(event.facts.match_id, game)
        hosted = self.events.get(ref.event)
        if hosted is None:
            return
        unit = hosted.units.get(ref.board)
        leg = next((leg for leg in unit.legs if leg.ref == ref), None) if unit is not None else None
        if not aborted and ref.round == len(hosted.rounds):
            hosted.games.setdefault((ref.round, ref.board), {})[ref.game] = game
        if unit is None or leg is None:
            return
        leg.match_id = None
        if aborted:
            log.info(
                "event_game_aborted", event_name=ref.event, round=ref.round, board=ref.board, game=ref.game
            )
        if not unit.started:
            del hosted.units[ref.board]
            # After the other listeners (the writer first submits this result).
            asyncio.get_running_loop().call_soon(self.advance, ref.event)

    def bot_connected(self, bot: str) -> None:
        """A bot came (back): its games waiting for it start."""
        for event in list(self.events.values()):
            for unit in list(event.units.values()):
                if bot in unit.bots and not unit.started:
                    self._try_start(event, unit)

    def withdrawn(self, name: str, bots: set[str]) -> None:
        """``bots`` left event ``name`` (over the protocol, or ``events entrants --remove``):
        their games not started yet are forfeits; a Swiss event pairs them no more."""
        event = self.events.get(name)
        if event is None or not bots - event.withdrawn:
            return
        event.withdrawn |= bots
        for unit in list(event.units.values()):
            if unit.bots & bots and not unit.started:
                self._try_start(event, unit)
        asyncio.get_running_loop().call_soon(self.advance, name)

    def cancelled(self, name: str) -> None:
        """Event ``name`` was cancelled (``events cancel``): nothing more starts; running games
        finish (their results are kept); the connected entrants are told."""
        event = self.events.pop(name, None)
        self.ended.add(name)
        if event is None:
            return
        for unit in event.units.values():
            if unit.timer is not None:
                unit.timer.cancel()
        log.info("event_cancelled", event_name=name)
        over = Over(name, EventStatus.CANCELLED, 0, 0.0, len(event.entrants))
        self._tell_all(dict.fromkeys(event.entrants, over))

    def stop(self) -> None:
        """The arbiter is stopping: start nothing from now on."""
        self.stopping = True
        for event in self.events.values():
            for unit in event.units.values():
                if unit.timer is not None:
                    unit.timer.cancel()
