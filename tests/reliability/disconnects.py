"""Disconnect injection: matches played over real connections, broken at random points.

Each match has its own two bots (raw protocol clients, one gRPC channel per connection, as real
bots connect). While they play, the harness breaks connections (it cancels the call and closes the
channel) at random moments, then reconnects after up to 30 ms, far within the clock:

- ``turn``: the seat got a Turn and breaks before answering it;
- ``answered``: the seat sends its Move and breaks at once;
- ``sending``: the seat breaks while its Move is being written (it may or may not get there);
- ``idle``: the seat breaks while its opponent thinks;
- ``reveal`` (Surge): the second placer of a round sends the Move that reveals both stones, and
  at that moment the first placer's connection breaks;
- ``both``: both seats break at once (counts as two disconnects).

After each reconnect a bot does what docs/protocol.md asks: it checks ``Welcome`` lists the match
(running, or ended while it was away), resends its last Move (a duplicate gets
``MoveAcknowledged``), and answers the turns it gets. Invariants, counted in ``Figures.problems``:

- a reconnect after a ``turn`` break gets that same turn again first: same turn id, byte-identical
  observation and legal actions; any turn that comes again (after a ``sending`` break that lost
  the Move, say) is byte-identical to its first sending;
- no ``MoveRejected`` at all (the bots only ever send legal answers and exact duplicates);
- every match ends, by the game's own rules (no timeout, no abort), within ``match_timeout``;
- every result equals an engine replay of its actions; the actions are the answers the bots sent,
  turn by turn; every Turn's observation and legal actions are the engine's at that decision.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

import grpc
from arbiter.match.match import MatchSetup
from arbiter.node import Arbiter
from arbiter_games import get_game
from arbiter_games.timecontrol import TimeControl
from arbiter_wire import convert
from arbiter_wire.common import END_REASON_TO_PB
from arbiter_wire.v1 import bot_service_pb2 as pb
from arbiter_wire.v1 import common_pb2 as cpb

from tests.server.raw_client import RawBot

from .engine_check import check_result, check_turns
from .live import live_server, token_of

GAMES: tuple[tuple[str, dict[str, int]], ...] = (
    ("torrent", {"size": 5}),
    ("fravan", {"size": 5}),
    ("surge", {}),
)
#: The clock of every match: reconnects (at most 30 ms away) are far within it.
CONTROL = TimeControl(base=60.0, increment=1.0)
#: How likely a decision is to come with a disconnect, while a match still has some to spend.
DISCONNECT_CHANCE = 0.35


@dataclass
class Figures:
    matches: int = 0
    disconnects: Counter[str] = field(default_factory=Counter)
    reconnects: int = 0
    #: Reconnects after a ``turn`` break that got the same pending turn back (id and bytes).
    same_turn_resumed: int = 0
    #: Answers lost in a break (the turn came again and was answered again).
    moves_lost: int = 0
    acknowledged: int = 0
    ended_while_away: int = 0
    #: Results sent to a connection that had just broken (in neither list of the Welcome).
    ended_unseen: int = 0
    turns_checked: int = 0
    wrong_results: int = 0
    stuck: int = 0
    problems: list[str] = field(default_factory=list)
    seconds: float = 0.0
    #: Disconnects a match asked for but could not make (its match ended first): the next match makes them.
    carry: int = 0

    @property
    def total_disconnects(self) -> int:
        return sum(self.disconnects.values())


def _turn_bytes(turn: pb.Turn) -> bytes:
    return turn.observation.SerializeToString(deterministic=True) + turn.legal.SerializeToString(
        deterministic=True
    )


class MatchPlan:
    """One match: its game, its two seats and its budget of disconnects."""

    def __init__(self, index: int, address: str, budget: int, rng: random.Random, figures: Figures) -> None:
        self.index = index
        self.game, self.options = GAMES[index % len(GAMES)]
        self.budget = budget
        #: Connections broken so far (counted when they break, by the phase that broke them).
        self.breaks = 0
        self.rng = rng
        self.figures = figures
        self.seats = [SeatBot(self, f"f{index}a", address), SeatBot(self, f"f{index}b", address)]

    async def play(self, arbiter: Arbiter) -> None:
        """Connect both bots, start their match (seats drawn at random), play it out."""
        tasks = [asyncio.ensure_future(seat.run()) for seat in self.seats]
        try:
            await asyncio.gather(*(seat.welcomed.wait() for seat in self.seats))
            first, second = self.seats if self.rng.random() < 0.5 else self.seats[::-1]
            bots = {1: first.name, 2: second.name}
            arbiter.start_match(MatchSetup(self.game, self.options, bots, control=CONTROL))
            await asyncio.gather(*tasks)
        finally:
            for task in tasks:
                task.cancel()

    def opponent(self, seat: SeatBot) -> SeatBot:
        return self.seats[1] if seat is self.seats[0] else self.seats[0]

    def pick(self, turn: pb.Turn) -> str | None:
        """The disconnect that comes with this decision, if any."""
        if self.breaks >= self.budget or self.rng.random() > DISCONNECT_CHANCE:
            return None
        phases = ["turn", "answered", "sending", "idle"]
        if self.budget - self.breaks >= 2:
            phases.append("both")
        surge = turn.observation.surge
        if self.game == "surge" and any(stone.colour != surge.colour for stone in surge.face_down):
            phases += ["reveal"] * 3  # this move reveals the round: break the other seat now
        return self.rng.choice(phases)


class SeatBot:
    """One bot of one match: plays random legal actions and survives its broken connections."""

    def __init__(self, plan: MatchPlan, name: str, address: str) -> None:
        self.plan = plan
        self.name = name
        self.address = address
        self.drop = asyncio.Event()
        self.drop_phase = ""
        self.welcomed = asyncio.Event()
        self.match_id = ""
        self.turns: list[pb.Turn] = []
        self.answered: dict[int, pb.Move] = {}
        #: Observation and legal actions of every turn received, by turn id (a turn sent again
        #: after a reconnect must be byte-identical).
        self.seen: dict[int, bytes] = {}
        self.last_move: pb.Move | None = None
        #: After a ``turn`` break: the turn id and bytes the reconnect must bring back first.
        self.awaiting: tuple[int, bytes] | None = None
        self.pending_write: asyncio.Future[None] | None = None
        self.ended: pb.MatchEnded | None = None
        self.unseen_end = False

    @property
    def figures(self) -> Figures:
        return self.plan.figures

    async def run(self) -> None:
        first = True
        while True:
            bot = RawBot(self.address, token_of(self.name))
            try:
                welcome = await bot.expect("welcome")
                if first:
                    self.welcomed.set()
                elif not self._welcomed_back(welcome):
                    return
                first = False
                self.drop.clear()
                if self.last_move is not None:
                    await bot.call.write(pb.PlayRequest(move=self.last_move))
                if await self._session(bot):
                    return
            finally:
                await bot.close()
                if self.pending_write is not None:
                    with contextlib.suppress(Exception, asyncio.CancelledError):
                        await self.pending_write
                    self.pending_write = None
            self.plan.breaks += 1
            self.figures.disconnects[self.drop_phase] += 1
            await asyncio.sleep(self.plan.rng.uniform(0.0, 0.03))

    def _welcomed_back(self, welcome: pb.Welcome) -> bool:
        self.figures.reconnects += 1
        if self.match_id in welcome.resumed_match_ids:
            return True
        if self.match_id in welcome.ended_match_ids:
            self.figures.ended_while_away += 1
            return True
        self.unseen_end = True
        self.figures.ended_unseen += 1
        return False

    async def _read(self, bot: RawBot) -> pb.PlayResponse | None:
        """The next message, or None when this seat's connection is to break now."""
        if self.drop.is_set():
            return None
        read = asyncio.ensure_future(bot.call.read())
        drop = asyncio.ensure_future(self.drop.wait())
        done, _ = await asyncio.wait({read, drop}, return_when=asyncio.FIRST_COMPLETED)
        if read not in done:
            read.cancel()
            return None
        drop.cancel()
        message = read.result()
        if message is grpc.aio.EOF:
            raise EOFError(f"{self.name}: the stream ended")
        assert isinstance(message, pb.PlayResponse)
        return message

    async def _session(self, bot: RawBot) -> bool:
        """Play on this connection; True once the match ended, False when it broke."""
        while True:
            message = await self._read(bot)
            if message is None:
                return False
            kind = message.WhichOneof("kind")
            if kind == "match_started":
                self.match_id = message.match_started.match_id
            elif kind == "turn":
                await self._on_turn(bot, message.turn)
            elif kind == "move_acknowledged":
                self.figures.acknowledged += 1
            elif kind == "move_rejected":
                rejected = message.move_rejected
                self.figures.problems.append(
                    f"{self.name}: MoveRejected for turn {rejected.turn_id}: {rejected.status.message}"
                )
            elif kind == "match_ended":
                self.ended = message.match_ended
                return True

    async def _on_turn(self, bot: RawBot, turn: pb.Turn) -> None:
        self.turns.append(turn)
        seen = self.seen.setdefault(turn.turn_id, _turn_bytes(turn))
        if seen != _turn_bytes(turn):
            self.figures.problems.append(f"{self.name}: turn {turn.turn_id} came again with other bytes")
        if self.awaiting is not None:
            turn_id, seen = self.awaiting
            self.awaiting = None
            if turn.turn_id != turn_id or _turn_bytes(turn) != seen:
                self.figures.problems.append(
                    f"{self.name}: broke during turn {turn_id}, resumed with turn {turn.turn_id}"
                    + ("" if turn.turn_id != turn_id else " with a different observation or legal set")
                )
            else:
                self.figures.same_turn_resumed += 1
        if turn.turn_id in self.answered:
            self.figures.moves_lost += 1  # answered before a break, and the answer was lost
            await bot.call.write(pb.PlayRequest(move=self.answered[turn.turn_id]))
            return
        opponent = self.plan.opponent(self)
        phase = self.plan.pick(turn)
        if phase == "turn":
            self.awaiting = (turn.turn_id, _turn_bytes(turn))
            self.break_now(phase)
            return
        if phase == "idle":
            opponent.break_now(phase)
            await asyncio.sleep(self.plan.rng.uniform(0.0, 0.02))
        legal = convert.legal_from_pb(turn.legal)
        action = self.plan.rng.choice(legal)
        move = pb.Move(match_id=turn.match_id, turn_id=turn.turn_id, action=convert.action_to_pb(action))
        self.answered[turn.turn_id] = move
        self.last_move = move
        if phase == "sending":
            # Break while the Move is being written: the call is cancelled before the write is done.
            self.pending_write = asyncio.ensure_future(bot.call.write(pb.PlayRequest(move=move)))
            self.break_now(phase)
            return
        await bot.call.write(pb.PlayRequest(move=move))
        if phase in ("answered", "both"):
            self.break_now(phase)
        if phase in ("reveal", "both"):
            opponent.break_now(phase)

    def break_now(self, phase: str) -> None:
        if not self.drop.is_set():
            self.drop_phase = phase
            self.drop.set()


def check_match(plan: MatchPlan, recent: Callable[[str], pb.MatchEnded | None]) -> None:
    """The invariants on a finished match (see the module's docstring)."""
    figures = plan.figures
    ends = [seat.ended for seat in plan.seats if seat.ended is not None]
    match_id = plan.seats[0].match_id or plan.seats[1].match_id
    if not ends:
        fallback = recent(match_id)
        if fallback is None:
            figures.problems.append(f"match {plan.index}: no result anywhere")
            figures.wrong_results += 1
            return
        ends = [fallback]
    problems = []
    results = {end.result.SerializeToString(deterministic=True) for end in ends}
    if len(results) != 1 or len({tuple(end.actions) for end in ends}) != 1:
        problems.append("the two seats got different results")
    ended = ends[0]
    if ended.result.reason in (cpb.END_REASON_TIMEOUT, cpb.END_REASON_ABORTED):
        problems.append(f"ended by {cpb.EndReason.Name(ended.result.reason)}")
    walk, found = check_result(plan.game, plan.options, ended)
    problems += found
    moves = {turn_id: move for seat in plan.seats for turn_id, move in seat.answered.items()}
    rules_moves = [convert.action_from_pb(plan.game, moves[t].action) for t in sorted(moves)]
    rules = get_game(plan.game)
    if [rules.format_action(a) for a in rules_moves] != walk.decided:
        problems.append("the actions played are not the answers the bots sent")
    for seat in plan.seats:
        problems += check_turns(walk, seat.turns)
        figures.turns_checked += len(seat.turns)
    if problems:
        figures.wrong_results += 1
        figures.problems += [f"match {plan.index} ({plan.game}): {p}" for p in problems]


async def run_disconnects(
    matches: int,
    disconnects: int,
    concurrency: int = 8,
    seed: int = 1,
    match_timeout: float = 120.0,
    progress: Callable[[Figures], None] | None = None,
) -> Figures:
    """Play ``matches`` matches, ``concurrency`` at a time, with ``disconnects`` spread over them."""
    figures = Figures()
    rng = random.Random(seed)
    names = [f"f{i}{side}" for i in range(matches) for side in "ab"]
    budgets = [disconnects // matches + (1 if i < disconnects % matches else 0) for i in range(matches)]
    started = time.monotonic()
    async with live_server(names, control=CONTROL) as server:

        def recent(match_id: str) -> pb.MatchEnded | None:
            return _ended_from_hosting(server.arbiter, match_id)

        gate = asyncio.Semaphore(concurrency)

        async def one(index: int) -> None:
            async with gate:
                budget, figures.carry = budgets[index] + figures.carry, 0
                plan = MatchPlan(index, server.address, budget, random.Random(rng.random()), figures)
                try:
                    await asyncio.wait_for(plan.play(server.arbiter), match_timeout)
                except TimeoutError:
                    figures.stuck += 1
                    figures.problems.append(
                        f"match {index} ({plan.game}): not over after {match_timeout:g} s"
                    )
                    return
                figures.carry += max(0, plan.budget - plan.breaks)
                check_match(plan, recent)
                figures.matches += 1
                if progress is not None:
                    progress(figures)

        await asyncio.gather(*(one(i) for i in range(matches)))
    figures.seconds = time.monotonic() - started
    return figures


def _ended_from_hosting(arbiter: object, match_id: str) -> pb.MatchEnded | None:
    """The MatchEnded of a match no seat heard the end of, rebuilt from the arbiter's own memory."""
    assert isinstance(arbiter, Arbiter)
    match = next((m for m in arbiter.hosting.recent if m.id == match_id), None)
    if match is None or match.end is None:
        return None
    end = match.end
    result = cpb.Result(
        winner_seat=convert.SEAT_TO_PB[end.winner_seat] if end.winner_seat else cpb.SEAT_UNSPECIFIED,
        seat_1_score=end.scores[1],
        seat_2_score=end.scores[2],
        reason=END_REASON_TO_PB[end.reason],
    )
    ended = pb.MatchEnded(
        match_id=match_id, result=result, seat=cpb.SEAT_1, seed=match.game.revealed_seed(match.seed)
    )
    ended.actions.extend(entry["action"] for entry in match.actions)
    ended.final_observation.CopyFrom(convert.observation_to_pb(match.game.observe(match.state, 1)))
    return ended
