"""Live spectating: the public views of running matches, frame by frame, to server-sent events.

``LiveHub`` keeps, for each running match, one ``Frame`` per position: the move that led to it and
the game's public view (``GameDef.public_view``) with its SVG. Nothing else of the engine's state
ever goes into a frame, so a spectator never sees a face-down Surge value, a hand or an undrawn
stone before the rules reveal it. A ladder may hold its live view back by N moves (``delays``):
the hub shows a frame only when N more have been played, and everything once the match is over
(after the match the whole record is public).

A match's final frame says ``over``: the move that ended the game by its rules, or, for a match
ended off the rules (aborted, a timeout, a forfeit), its last frame sent again with ``over`` set.

In ``arbiter serve --web`` the hub listens on the arbiter's event bus. In ``arbiter web`` (a
separate process on the store) a ``StorePoller`` feeds it: it polls the store's
running matches and their moves and replays them through the engine, and hands the hub every
move of a match, up to its last, before the match's end; both processes send the same frames.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from arbiter_games import GameDef, get_game

from ..match.events import ActionApplied, MatchEnded, MatchEvent, MatchStarted
from ..security.connections import MAX_SPECTATORS, MAX_SPECTATORS_PER_ADDRESS
from .status import board_status
from .svg import board_svg

#: Seconds an ended match stays in the hub (its page switches to the stored replay meanwhile).
KEEP_ENDED = 120.0
#: Frames a subscriber may fall behind before it is dropped.
QUEUE_LIMIT = 1000
#: Spectator streams open at once, in all and from one address; more are refused.
MAX_SUBSCRIBERS = MAX_SPECTATORS
MAX_SUBSCRIBERS_PER_ADDRESS = MAX_SPECTATORS_PER_ADDRESS


class TooManySpectators(Exception):
    """A spectator stream past a cap: ``per_address`` tells which."""

    def __init__(self, message: str, per_address: bool) -> None:
        super().__init__(message)
        self.per_address = per_address


def public_dict(view: object) -> dict[str, Any]:
    """A public view as JSON-ready values."""
    if dataclasses.is_dataclass(view) and not isinstance(view, type):
        return dataclasses.asdict(view)
    raise TypeError(f"not a public view: {type(view).__name__}")


@dataclass(frozen=True, eq=False)
class Frame:
    """One position of a match as a spectator sees it (``ply`` 0: the start).

    ``public`` is the game's public view, the only thing a frame holds of the engine's state; its
    JSON form and its SVG are made from it when asked (a running match keeps one frame per move).
    """

    match_id: str
    ply: int
    seat: int | None
    action: str | None
    charged: float | None
    clocks: Mapping[str, float | None]
    auto: str | None
    public: object
    over: bool = False
    #: Earlier moves whose text the rules have just made public, by ply (Surge: the moves of a
    #: round, once its stones are turned face up); their frames left the text out.
    revealed: Mapping[int, str] = field(default_factory=dict)

    @property
    def view(self) -> dict[str, Any]:
        return public_dict(self.public)

    @property
    def svg(self) -> str:
        return _svg_of(self)

    def as_dict(self) -> dict[str, Any]:
        return {
            "match_id": self.match_id,
            "ply": self.ply,
            "seat": self.seat,
            "action": self.action,
            "charged": self.charged,
            "clocks": dict(self.clocks),
            "auto": self.auto,
            "view": dict(self.view),
            "status": board_status(self.view),
            "revealed": {str(ply): text for ply, text in self.revealed.items()},
            "svg": self.svg,
            "over": self.over,
        }

    @property
    def event(self) -> str:
        """The frame as one server-sent event, encoded the first time it is asked for and then
        the same text for every spectator (a frame never changes)."""
        cached: str | None = self.__dict__.get("_event")
        if cached is None:
            data = json.dumps(self.as_dict(), separators=(",", ":"))
            cached = f"event: frame\ndata: {data}\n\n"
            object.__setattr__(self, "_event", cached)
        return cached


def end_event(match_id: str) -> str:
    """The server-sent event that says a match is over."""
    return f"event: end\ndata: {json.dumps({'match_id': match_id})}\n\n"


@dataclass
class LiveMatch:
    match_id: str
    game: str
    title: str
    ladder: str | None
    bots: dict[int, str]
    started_at: float
    frames: list[Frame] = field(default_factory=list)
    delay: int = 0
    ended_at: float | None = None
    #: How many frames spectators have been shown.
    shown: int = 0
    #: Moves whose text a frame left out (hidden information), until the rules reveal them.
    withheld: dict[int, str] = field(default_factory=dict)

    def visible(self) -> list[Frame]:
        return self.frames[: self.shown]


#: What a subscriber receives: the match's id and a frame, or None when the match is over.
Update = tuple[str, Frame | None]


class LiveHub:
    """Running matches' public frames, and their subscribers (one asyncio queue each)."""

    def __init__(
        self,
        delays: Mapping[str, int] | None = None,
        default_delay: int = 0,
        max_subscribers: int = MAX_SUBSCRIBERS,
        max_per_address: int = MAX_SUBSCRIBERS_PER_ADDRESS,
    ) -> None:
        self.delays = dict(delays or {})
        self.default_delay = default_delay
        self.matches: dict[str, LiveMatch] = {}
        self._subscribers: dict[str | None, set[asyncio.Queue[Update]]] = {}
        self.max_subscribers = max_subscribers
        self.max_per_address = max_per_address
        #: Open spectator streams, in all and per address.
        self.subscribed = 0
        self.per_address: dict[str, int] = {}
        #: Streams waiting for a match the store knows and the hub has not seen yet.
        self._awaited: dict[str, set[asyncio.Event]] = {}

    # --- feeding ------------------------------------------------------------------------------
    def __call__(self, event: MatchEvent) -> None:
        """A bus listener: follows every match of the arbiter."""
        if isinstance(event, MatchStarted):
            facts = event.facts
            state = facts.game.new_game(facts.options, event.seed)
            self.start(
                facts.match_id, facts.game, facts.ladder, dict(facts.bots), event.started_at, state,
                {str(seat): left for seat, left in event.clocks.items()},
            )  # fmt: skip
        elif isinstance(event, ActionApplied):
            facts = event.facts
            if facts.match_id not in self.matches:  # a match restored after a restart
                self.start(facts.match_id, facts.game, facts.ladder, dict(facts.bots), time.time(), None, {})
            self.applied(
                facts.match_id, event.seat, event.text, event.charged,
                {str(seat): left for seat, left in event.clocks.items()},
                event.auto.value if event.auto is not None else None, event.state,
            )  # fmt: skip
        elif isinstance(event, MatchEnded):
            self.ended(event.facts.match_id)

    def delay_of(self, ladder: str | None) -> int:
        return self.delays.get(ladder, self.default_delay) if ladder is not None else self.default_delay

    def start(
        self,
        match_id: str,
        game: GameDef,
        ladder: str | None,
        bots: dict[int, str],
        started_at: float,
        state: object | None,
        clocks: Mapping[str, float | None],
    ) -> None:
        self._forget_old()
        match = LiveMatch(
            match_id, game.name, game.title, ladder, bots, started_at, delay=self.delay_of(ladder)
        )
        self.matches[match_id] = match
        if state is not None:
            self._add(match, self._frame(match_id, game, 0, None, None, None, clocks, None, state))
        self._arrived(match_id)

    def applied(
        self,
        match_id: str,
        seat: int,
        action: str,
        charged: float | None,
        clocks: Mapping[str, float | None],
        auto: str | None,
        state: object,
    ) -> None:
        match = self.matches.get(match_id)
        if match is None or match.ended_at is not None:
            return
        game = get_game(match.game)
        ply = match.frames[-1].ply + 1 if match.frames else _ply_of(game, state)
        frame = self._frame(match_id, game, ply, seat, action, charged, clocks, auto, state)
        if frame.action is None and action:
            match.withheld[ply] = action
        if match.withheld and _round_ended(match, frame):
            # Surge: the round's stones are face up now (the rules reveal them right after its
            # second placement), so its moves' texts are public: this frame tells them.
            frame = dataclasses.replace(frame, revealed=dict(match.withheld))
            match.withheld.clear()
        if game.outcome(state) is not None:  # the move that ended the game: its final frame
            frame = dataclasses.replace(frame, over=True)
        self._add(match, frame)

    def ended(self, match_id: str) -> None:
        match = self.matches.get(match_id)
        if match is None or match.ended_at is not None:
            return
        match.ended_at = time.monotonic()
        if match.frames and not match.frames[-1].over:
            # Ended off the rules (aborted, a timeout, a forfeit): the last position is the final
            # frame, sent again if spectators have seen it already (else it comes with the rest).
            match.frames[-1] = final = dataclasses.replace(match.frames[-1], over=True)
            if match.shown == len(match.frames):
                self._send(match, final)
        self._release(match, len(match.frames))
        self._send(match, None)

    @staticmethod
    def _frame(
        match_id: str,
        game: GameDef,
        ply: int,
        seat: int | None,
        action: str | None,
        charged: float | None,
        clocks: Mapping[str, float | None],
        auto: str | None,
        state: object,
    ) -> Frame:
        # The only thing taken from the engine's state: the public view. In a game with hidden
        # information the action's text may tell what the view hides (Surge's ``7@c2`` is a
        # face-down value): it is left out until the match is over (the record has it then).
        view = game.public_view(state)
        if game.hidden_information:
            action = None
        return Frame(match_id, ply, seat, action, charged, dict(clocks), auto, view)

    def _add(self, match: LiveMatch, frame: Frame) -> None:
        match.frames.append(frame)
        self._release(match, max(1, len(match.frames) - match.delay))

    def _release(self, match: LiveMatch, upto: int) -> None:
        while match.shown < min(upto, len(match.frames)):
            frame = match.frames[match.shown]
            match.shown += 1
            self._send(match, frame)

    def _send(self, match: LiveMatch, frame: Frame | None) -> None:
        for key in (match.match_id, None):
            for queue in list(self._subscribers.get(key, ())):
                try:
                    queue.put_nowait((match.match_id, frame))
                except asyncio.QueueFull:
                    self._subscribers[key].discard(queue)

    def _forget_old(self) -> None:
        now = time.monotonic()
        for match_id, match in list(self.matches.items()):
            if match.ended_at is not None and now - match.ended_at > KEEP_ENDED:
                del self.matches[match_id]

    # --- reading ------------------------------------------------------------------------------
    def running(self) -> list[LiveMatch]:
        """The matches being played now, oldest first."""
        self._forget_old()
        live = [match for match in self.matches.values() if match.ended_at is None]
        return sorted(live, key=lambda match: (match.started_at, match.match_id))

    def get(self, match_id: str) -> LiveMatch | None:
        return self.matches.get(match_id)

    async def arrival(self, match_id: str, within: float) -> LiveMatch | None:
        """The match once the hub has it, waiting at most ``within`` seconds (a match that has
        just started may be in the store before it is here: ``arbiter web`` sees it at its next
        poll); None if it did not come."""
        found = self.matches.get(match_id)
        if found is not None:
            return found
        waiter = asyncio.Event()
        waiters = self._awaited.setdefault(match_id, set())
        waiters.add(waiter)
        try:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(waiter.wait(), within)
        finally:
            waiters.discard(waiter)
            if not waiters and self._awaited.get(match_id) is waiters:
                del self._awaited[match_id]
        return self.matches.get(match_id)

    def _arrived(self, match_id: str) -> None:
        for waiter in self._awaited.pop(match_id, set()):
            waiter.set()

    def subscribe(self, match_id: str | None, address: str = "") -> asyncio.Queue[Update]:
        """A queue of updates of one match (``None``: of every match) for a spectator at
        ``address``; raises TooManySpectators past a cap."""
        if self.per_address.get(address, 0) >= self.max_per_address:
            raise TooManySpectators(
                f"{self.max_per_address} spectator streams are open from your address", per_address=True
            )
        if self.subscribed >= self.max_subscribers:
            raise TooManySpectators(f"{self.max_subscribers} spectator streams are open", per_address=False)
        queue: asyncio.Queue[Update] = asyncio.Queue(QUEUE_LIMIT)
        self._subscribers.setdefault(match_id, set()).add(queue)
        self.subscribed += 1
        self.per_address[address] = self.per_address.get(address, 0) + 1
        return queue

    def unsubscribe(self, match_id: str | None, queue: asyncio.Queue[Update], address: str = "") -> None:
        self._subscribers.get(match_id, set()).discard(queue)
        self.subscribed -= 1
        left = self.per_address.get(address, 0) - 1
        if left > 0:
            self.per_address[address] = left
        else:
            self.per_address.pop(address, None)


def _round_ended(match: LiveMatch, frame: Frame) -> bool:
    """Whether ``frame`` is the first of a new round (its public view counts one more round
    played than the frame before): the moves withheld so far are public from it on."""
    played = getattr(frame.public, "rounds_played", None)
    before = getattr(match.frames[-1].public, "rounds_played", None) if match.frames else None
    return played is not None and before is not None and played > before


@functools.lru_cache(maxsize=512)
def _svg_of(frame: Frame) -> str:
    """A frame's board (the latest frames are drawn once for all their spectators)."""
    return board_svg(frame.public)


def _ply_of(game: GameDef, state: object) -> int:
    count = public_dict(game.public_view(state)).get("action_count")
    return int(count) if isinstance(count, int) else 0


async def cancel(task: asyncio.Task[Any] | None) -> None:
    if task is not None:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


Connected = Callable[[str], bool]
