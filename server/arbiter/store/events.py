"""The store's events: events, their entrants, rounds with their pairings, and each game's result.

``EventStore`` is mixed into ``SqlStore`` (each method one transaction). What it keeps is enough
to compute an event's standings and its next round again (``event_history``): the pure event
code (``arbiter.events``) reads it, nothing here pairs or ranks.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from arbiter_games.policy import MatchPolicy
from arbiter_games.timecontrol import TimeControl
from arbiter_wire.text import BadName, check_name
from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from arbiter.events.model import (
    EventConfig,
    EventStatus,
    Format,
    Game,
    GameRef,
    History,
    Pairing,
    ResultKind,
    Round,
)

from .rows import StoreError
from .schema import Bot, Event, EventEntry, EventGame, EventPairing, EventResult, EventRound

#: The moves of an event's status the store allows.
MOVES = {
    EventStatus.SCHEDULED: (EventStatus.RUNNING, EventStatus.CANCELLED),
    EventStatus.RUNNING: (EventStatus.FINISHED, EventStatus.CANCELLED),
    EventStatus.FINISHED: (),
    EventStatus.CANCELLED: (),
}


@dataclass(frozen=True)
class EventRow:
    config: EventConfig
    status: EventStatus
    created_at: float


@dataclass(frozen=True)
class EntryRow:
    """A bot entered in an event: its seed (entry order), and when it left (None: it is in)."""

    bot: str
    seed: int
    entered_at: float
    withdrawn_at: float | None = None


class EventStore:
    """SqlStore's event methods."""

    _clock: Callable[[], float]

    if TYPE_CHECKING:

        def _read(self) -> AbstractContextManager[Session]: ...

        def _write(self) -> AbstractContextManager[Session]: ...

    # --- events -------------------------------------------------------------------------------
    def add_event(self, config: EventConfig) -> None:
        """Create an event (status ``scheduled``); its name must be new."""
        try:
            check_name(config.name, "event")
        except BadName as exc:
            raise StoreError(str(exc)) from None
        with self._write() as session:
            if session.get(Event, config.name) is not None:
                raise StoreError(f"an event named {config.name!r} exists already")
            session.add(_event_model(config, self._clock()))

    def get_event(self, name: str) -> EventRow | None:
        with self._read() as session:
            event = session.get(Event, name)
            return None if event is None else _event_row(event)

    def list_events(self) -> list[EventRow]:
        """Every event, the latest created first."""
        with self._read() as session:
            query = select(Event).order_by(Event.created_at.desc(), Event.name)
            return [_event_row(event) for event in session.scalars(query)]

    def set_event_status(self, name: str, status: EventStatus) -> EventStatus:
        """Move an event to ``status`` (scheduled -> running -> finished; cancelled from either of
        the first two); returns the status it had. Another move is a StoreError."""
        with self._write() as session:
            event = _event(session, name)
            before = EventStatus(event.status)
            if status not in MOVES[before]:
                raise StoreError(f"event {name!r} is {before}: it cannot become {status}")
            event.status = status.value
            return before

    # --- entrants -----------------------------------------------------------------------------
    def add_entrant(self, event_name: str, bot: str) -> EntryRow:
        """Enter a registered bot in a scheduled event (seeded after those already in)."""
        now = self._clock()
        with self._write() as session:
            event = _event(session, event_name)
            if event.status != EventStatus.SCHEDULED:
                raise StoreError(f"event {event_name!r} is {event.status}: entries are closed")
            if session.get(Bot, bot) is None:
                raise StoreError(f"no bot named {bot!r}")
            if session.get(EventEntry, (event_name, bot)) is not None:
                raise StoreError(f"bot {bot!r} is entered in event {event_name!r} already")
            count, last = session.execute(
                select(func.count(), func.max(EventEntry.seed)).where(EventEntry.event == event_name)
            ).one()
            if event.max_entrants is not None and count >= event.max_entrants:
                raise StoreError(f"event {event_name!r} is full ({event.max_entrants} entrants)")
            entry = EventEntry(event=event_name, bot=bot, seed=(last or 0) + 1, entered_at=now)
            session.add(entry)
            return EntryRow(bot, entry.seed, now)

    def remove_entrant(self, event_name: str, bot: str) -> bool:
        """Take a bot out of an event: before it starts the entry goes (True); once it runs the
        bot is withdrawn (False): it keeps its results and is paired no more."""
        with self._write() as session:
            event = _event(session, event_name)
            entry = session.get(EventEntry, (event_name, bot))
            if entry is None:
                raise StoreError(f"bot {bot!r} is not entered in event {event_name!r}")
            if event.status == EventStatus.SCHEDULED:
                session.delete(entry)
                return True
            if event.status != EventStatus.RUNNING:
                raise StoreError(f"event {event_name!r} is {event.status}: its entrants stay")
            if entry.withdrawn_at is not None:
                raise StoreError(f"bot {bot!r} has withdrawn from event {event_name!r} already")
            entry.withdrawn_at = self._clock()
            return False

    def entrants(self, event_name: str) -> list[EntryRow]:
        """The event's entrants in seed order (the withdrawn too)."""
        with self._read() as session:
            _event(session, event_name)
            query = select(EventEntry).where(EventEntry.event == event_name).order_by(EventEntry.seed)
            return [
                EntryRow(entry.bot, entry.seed, entry.entered_at, entry.withdrawn_at)
                for entry in session.scalars(query)
            ]

    # --- rounds and results -------------------------------------------------------------------
    def add_round(self, event_name: str, made: Round) -> bool:
        """Keep a round as it was made, with its pairings (boards 1, 2, ... in order) and byes.
        The same round again changes nothing (False); another round of that number, or a number
        that is not the next, is a StoreError."""
        with self._write() as session:
            event = _event(session, event_name)
            if event.status != EventStatus.RUNNING:
                raise StoreError(f"event {event_name!r} is {event.status}: it plays no round")
            kept = _rounds(session, event_name)
            if made.number <= len(kept):
                if kept[made.number - 1] != made:
                    raise StoreError(f"event {event_name!r} has another round {made.number} already")
                return False
            if made.number != len(kept) + 1:
                raise StoreError(
                    f"event {event_name!r} has {len(kept)} round(s): the next is {len(kept) + 1}"
                )
            session.add(
                EventRound(
                    event=event_name, number=made.number, byes=list(made.byes), started_at=self._clock()
                )
            )
            session.flush()
            for board, pairing in enumerate(made.pairings, start=1):
                session.add(
                    EventPairing(
                        event=event_name,
                        round_number=made.number,
                        board=board,
                        seat_1=pairing.seat_1,
                        seat_2=pairing.seat_2,
                    )
                )
            return True

    def record_game(
        self,
        event_name: str,
        number: int,
        board: int,
        game_number: int,
        game: Game,
        match_id: str | None = None,
    ) -> bool:
        """Keep game ``game_number`` (1, 2, ...) of a pairing. The same result again changes
        nothing (False); another result for that game is a StoreError."""
        with self._write() as session:
            kept = self._kept_result(session, GameRef(event_name, number, board, game_number), game)
            if kept is not None:
                if _game(kept) != game:
                    raise StoreError(
                        f"game {game_number} of board {board}, round {number} has another result"
                    )
                return False
            self._add_result(session, GameRef(event_name, number, board, game_number), game, match_id)
            return True

    def _kept_result(self, session: Session, ref: GameRef, game: Game) -> EventResult | None:
        """The result kept for ``ref`` already (None: none); a StoreError if ``game`` is not
        between the bots of ``ref``'s pairing."""
        pairing = session.get(EventPairing, (ref.event, ref.round, ref.board))
        if pairing is None:
            raise StoreError(f"event {ref.event!r} has no board {ref.board} in round {ref.round}")
        if {game.seat_1, game.seat_2} != {pairing.seat_1, pairing.seat_2}:
            raise StoreError(f"board {ref.board} of round {ref.round} is {pairing.seat_1} - {pairing.seat_2}")
        return session.get(EventResult, (ref.event, ref.round, ref.board, ref.game))

    def _add_result(self, session: Session, ref: GameRef, game: Game, match_id: str | None) -> None:
        session.add(
            EventResult(
                event=ref.event,
                round_number=ref.round,
                board=ref.board,
                game_number=ref.game,
                seat_1=game.seat_1,
                seat_2=game.seat_2,
                winner_seat=game.winner,
                kind=game.kind.value,
                match_id=match_id,
                recorded_at=self._clock(),
            )
        )

    # --- the matches of event games -----------------------------------------------------------
    def _tag_event_game(self, session: Session, match_id: str, ref: GameRef) -> None:
        """Keep which event game a starting match plays (``match_started`` calls it)."""
        session.add(
            EventGame(
                match_id=match_id,
                event=ref.event,
                round_number=ref.round,
                board=ref.board,
                game_number=ref.game,
            )
        )

    def _event_games(self, session: Session, match_ids: list[str]) -> dict[str, GameRef]:
        """The event game of each of ``match_ids`` that plays one."""
        query = select(EventGame).where(EventGame.match_id.in_(match_ids))
        return {
            row.match_id: GameRef(row.event, row.round_number, row.board, row.game_number)
            for row in session.scalars(query)
        }

    def _put_event_game(self, session: Session, match_id: str, game: Game) -> None:
        """Keep the result of the event game match ``match_id`` played (``finish_match`` calls
        it, in the transaction that ends the match). A game has one result: when it has one
        already (the same, or one recorded another way), that one stays."""
        found = self._event_games(session, [match_id]).get(match_id)
        if found is None:
            raise StoreError(f"match {match_id!r} plays no event game")
        if self._kept_result(session, found, game) is None:
            self._add_result(session, found, game, match_id)

    def event_game_of(self, match_id: str) -> GameRef | None:
        """The event game match ``match_id`` plays (None: none)."""
        with self._read() as session:
            return self._event_games(session, [match_id]).get(match_id)

    def event_history(self, event_name: str) -> History:
        """The event's rounds and every game's result: what its standings are computed from."""
        with self._read() as session:
            _event(session, event_name)
            rounds = _rounds(session, event_name)
            games: dict[tuple[int, int], list[Game]] = {}
            query = (
                select(EventResult)
                .where(EventResult.event == event_name)
                .order_by(EventResult.round_number, EventResult.board, EventResult.game_number)
            )
            for result in session.scalars(query):
                games.setdefault((result.round_number, result.board), []).append(_game(result))
            return History(tuple(rounds), {key: tuple(value) for key, value in games.items()})

    def _paired_in(self, session: Session, bot: str) -> list[str]:
        """The events in whose rounds ``bot`` was paired (a bye too)."""
        query = (
            select(EventPairing.event)
            .where(or_(EventPairing.seat_1 == bot, EventPairing.seat_2 == bot))
            .distinct()
            .order_by(EventPairing.event)
        )
        found = set(session.scalars(query))
        for event, byes in session.execute(select(EventRound.event, EventRound.byes)):
            if bot in byes:
                found.add(event)
        return sorted(found)


def _event(session: Session, name: str) -> Event:
    event = session.get(Event, name)
    if event is None:
        raise StoreError(f"no event named {name!r}")
    return event


def _rounds(session: Session, event_name: str) -> list[Round]:
    boards: dict[int, list[Pairing]] = {}
    query = (
        select(EventPairing)
        .where(EventPairing.event == event_name)
        .order_by(EventPairing.round_number, EventPairing.board)
    )
    for pairing in session.scalars(query):
        boards.setdefault(pairing.round_number, []).append(Pairing(pairing.seat_1, pairing.seat_2))
    query_rounds = select(EventRound).where(EventRound.event == event_name).order_by(EventRound.number)
    return [
        Round(kept.number, tuple(boards.get(kept.number, [])), tuple(kept.byes))
        for kept in session.scalars(query_rounds)
    ]


def _game(result: EventResult) -> Game:
    return Game(result.seat_1, result.seat_2, result.winner_seat, ResultKind(result.kind))


def _event_model(config: EventConfig, now: float) -> Event:
    return Event(
        name=config.name,
        game=config.game,
        options=dict(config.options),
        base=config.control.base,
        increment=config.control.increment,
        per_decision=config.control.per_decision,
        on_timeout=config.policy.on_timeout,
        on_illegal=config.policy.on_illegal,
        format=config.format.value,
        rounds=config.rounds,
        games_per_pairing=config.games_per_pairing,
        duplicate_pairs=config.duplicate_pairs,
        starts_at=config.starts_at,
        entry_closes_at=config.entry_closes_at,
        max_entrants=config.max_entrants,
        invite_only=config.invite_only,
        rated=config.rated,
        duration=config.duration,
        status=EventStatus.SCHEDULED.value,
        created_at=now,
    )


def _event_row(event: Event) -> EventRow:
    config = EventConfig(
        name=event.name,
        game=event.game,
        options=dict(event.options),
        control=TimeControl(base=event.base, increment=event.increment, per_decision=event.per_decision),
        format=Format(event.format),
        policy=MatchPolicy(on_timeout=event.on_timeout, on_illegal=event.on_illegal),
        rounds=event.rounds,
        games_per_pairing=event.games_per_pairing,
        duplicate_pairs=event.duplicate_pairs,
        starts_at=event.starts_at,
        entry_closes_at=event.entry_closes_at,
        max_entrants=event.max_entrants,
        invite_only=event.invite_only,
        rated=event.rated,
        duration=event.duration,
    )
    return EventRow(config, EventStatus(event.status), event.created_at)
