"""``StorePoller``: feeds a ``LiveHub`` from the store, for ``arbiter web`` (which runs apart from
the arbiter, on its store).

Each poll is two steps. ``look`` runs in a worker thread: it reads the store's running matches and
their new moves, replays the moves through the engine, and returns what happened as a list of
``News`` (a match started, a move was played, a match ended). ``feed`` runs on the event loop and
hands that news to the hub, which alone touches the spectators' queues (asyncio queues are not
thread-safe). A match that is no longer running has its remaining moves read (the store keeps a
match's moves after its end) and fed before its end, so a spectator gets every ply's frame, the
final one with ``over`` set, before ``end``: the same frames as ``arbiter serve --web``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import structlog
from arbiter_games import GameDef, get_game

from ..store import MoveRow, SqlStore
from .live import LiveHub

log = structlog.get_logger("arbiter.web")

#: Running matches looked at per poll.
RUNNING_LIMIT = 500


@dataclass(frozen=True)
class Started:
    match_id: str
    game: GameDef
    ladder: str | None
    bots: dict[int, str]
    started_at: float
    state: object
    clocks: Mapping[str, float | None]


@dataclass(frozen=True)
class Played:
    match_id: str
    move: MoveRow
    state: object


@dataclass(frozen=True)
class Ended:
    match_id: str


News = Started | Played | Ended


@dataclass
class _Followed:
    """A match the poller follows: its engine state after ``done`` moves."""

    game: GameDef
    state: object
    done: int


class StorePoller:
    """Feeds ``hub`` from ``store`` every ``interval`` seconds (see the module's docstring)."""

    def __init__(self, store: SqlStore, hub: LiveHub, interval: float = 0.5) -> None:
        self.store = store
        self.hub = hub
        self.interval = interval
        #: Only ``look`` (one call at a time, in a worker thread) touches this.
        self._followed: dict[str, _Followed] = {}
        #: Polls done (looked and fed).
        self.polls = 0

    async def run(self) -> None:
        while True:
            await self.poll()
            await asyncio.sleep(self.interval)

    async def poll(self) -> None:
        """One look at the store (in a thread), its news fed to the hub (here, on the loop)."""
        try:
            news = await asyncio.to_thread(self.look)
        except Exception as exc:  # noqa: BLE001 - the store unreachable, or else: the next poll retries
            log.warning("live_poll_failed", error=str(exc) or type(exc).__name__)
            return
        self.feed(news)
        self.polls += 1

    def look(self) -> list[News]:
        """What happened since the last look: new matches, new moves, ended matches (in order)."""
        news: list[News] = []
        running = {row.match_id for row in self.store.match_rows(status="running", limit=RUNNING_LIMIT)}
        for match_id in sorted(set(self._followed) - running):
            # Ended (or gone) since the last look: its last moves first, then its end.
            self._replay(match_id, self.store.moves_of(match_id), news)
            del self._followed[match_id]
            news.append(Ended(match_id))
        for match_id in sorted(running):
            found = self.store.running_match(match_id)
            if found is None:  # it ended between the two reads: the next look ends it
                continue
            if match_id not in self._followed:
                start = found.start
                game = get_game(start.game)
                state = game.new_game(dict(start.options), bytes.fromhex(start.seed))
                self._followed[match_id] = _Followed(game, state, 0)
                base = start.control.base  # both clocks at the start, as the arbiter tells them
                news.append(
                    Started(match_id, game, start.ladder, {1: start.seat_1.bot, 2: start.seat_2.bot},
                            start.started_at, state, {"1": base, "2": base})
                )  # fmt: skip
            self._replay(match_id, found.moves, news)
        return news

    def _replay(self, match_id: str, moves: Sequence[MoveRow], news: list[News]) -> None:
        followed = self._followed.get(match_id)
        if followed is None:
            return
        for move in moves[followed.done :]:
            followed.state = followed.game.apply(followed.state, followed.game.parse_action(move.action))
            followed.done += 1
            news.append(Played(match_id, move, followed.state))

    def feed(self, news: Sequence[News]) -> None:
        """Hand ``news`` to the hub, in order (on the event loop)."""
        hub = self.hub
        for item in news:
            if isinstance(item, Started):
                hub.start(
                    item.match_id, item.game, item.ladder, item.bots, item.started_at, item.state, item.clocks
                )
            elif isinstance(item, Played):
                move = item.move
                hub.applied(
                    item.match_id,
                    move.seat,
                    move.action,
                    move.charged,
                    dict(move.clocks),
                    move.auto,
                    item.state,
                )
            else:
                hub.ended(item.match_id)


__all__ = ["StorePoller"]
