"""The legs of a Surge duplicate pair share a seed: nothing about it may come out while a leg plays.

The attack, over the real protocol: a prober bot on a duplicate-pairs ladder plays one leg at
once and lets the other wait. When the quick leg is over, the prober (and anyone reading the
store that the web pages and the API serve) looks for what would let it recompute the waiting
leg's hidden stones: the quick leg's seed, its end, its record. None of it may be there, and the
two legs' commitments may not show that they are paired. Once the waiting leg ends too, both ends
arrive with the one seed, each commitment checks out for its own leg, and the seed does predict
the waiting leg's hidden hands (so it was worth hiding).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
from dataclasses import replace
from typing import Any

import grpc
from arbiter_games.surge import BLUE, ORANGE, draw_order
from arbiter_games.surge_seed import check_surge_seed
from arbiter_wire import convert
from arbiter_wire.v1 import bot_service_pb2 as pb

from .harness import SURGE, LadderBot, eventually, ladder_lab

DUPLICATE_SURGE = replace(SURGE, name="surge-dup", duplicate_pairs=True)
#: Pairs the prober may go through before one has a leg that waits for it.
PAIRS_TRIED = 10


class Reader:
    """Every message of one bot's call, in a queue (so that waiting for one never cancels a read)."""

    def __init__(self, bot: LadderBot) -> None:
        self.bot = bot
        self.queue: asyncio.Queue[pb.PlayResponse] = asyncio.Queue()
        self.task = asyncio.create_task(self._read())

    async def _read(self) -> None:
        with contextlib.suppress(EOFError, asyncio.CancelledError, grpc.aio.AioRpcError):
            while True:
                await self.queue.put(await self.bot.next(timeout=120.0))

    async def get(self, timeout: float = 30.0) -> pb.PlayResponse:
        return await asyncio.wait_for(self.queue.get(), timeout)


async def _answer_all(reader: Reader, ended: list[pb.MatchEnded], turns: list[pb.Turn]) -> None:
    """The victim: answers every turn at once with its first legal action."""
    while True:
        message = await reader.get(timeout=120.0)
        kind = message.WhichOneof("kind")
        if kind == "turn":
            turns.append(message.turn)
            legal = convert.legal_from_pb(message.turn.legal)
            await reader.bot.move(message.turn.match_id, message.turn.turn_id, legal[0])
        elif kind == "match_ended":
            ended.append(message.match_ended)


async def _play_one_leg(
    probe: Reader, prober: LadderBot, hosting: Any
) -> tuple[dict[str, pb.MatchStarted], list[pb.Turn], list[pb.PlayResponse], str]:
    """The prober hears of a pair's two legs, answers every turn of the first and holds the
    other's, until the first is over: (the pair's MatchStarted by id, the held turns, every
    message, the first leg's id)."""
    started: dict[str, pb.MatchStarted] = {}
    held: list[pb.Turn] = []
    seen: list[pb.PlayResponse] = []
    quick: str | None = None
    while True:
        with contextlib.suppress(TimeoutError):
            message = await probe.get(timeout=0.2)
            seen.append(message)
            kind = message.WhichOneof("kind")
            if kind == "match_started":
                started[message.match_started.match_id] = message.match_started
                quick = quick or message.match_started.match_id
            elif kind == "turn" and message.turn.match_id == quick:
                legal = convert.legal_from_pb(message.turn.legal)
                await prober.move(message.turn.match_id, message.turn.turn_id, legal[0])
            elif kind == "turn":
                held.append(message.turn)
        if quick is not None and len(started) == 2:
            match = hosting.matches.get(quick)
            if match is None or match.end is not None:
                return started, held, seen, quick


def test_a_slowed_leg_learns_nothing_of_its_seed_from_the_other(store_url):
    async def scenario() -> None:
        async with ladder_lab(store_url, ["prober", "victim"], [DUPLICATE_SURGE]) as lab:
            prober = await lab.connect("prober")
            victim = await lab.connect("victim")
            probe, watched = Reader(prober), Reader(victim)
            victim_ended: list[pb.MatchEnded] = []
            victim_turns: list[pb.Turn] = []
            victim_task = asyncio.create_task(_answer_all(watched, victim_ended, victim_turns))
            await prober.join(DUPLICATE_SURGE.name, max_concurrent=2)
            await victim.join(DUPLICATE_SURGE.name, max_concurrent=2)

            hosting = lab.arbiter.hosting
            try:
                # The prober answers the first leg it hears of at once and holds the other. Some
                # seeds leave a seat nothing but forced actions (the arbiter plays them), and then
                # the held leg ends on its own: such a pair shows nothing, the next pair is tried.
                for _ in range(PAIRS_TRIED):
                    before = len(victim_ended)
                    started, held, seen, quick = await _play_one_leg(probe, prober, hosting)
                    (slow,) = set(started) - {quick}
                    if slow in hosting.matches and hosting.matches[slow].end is None and held:
                        break
                    # Both legs are over: their two ends come, and the ladder starts a new pair.
                    ended_here = [m for m in seen if m.WhichOneof("kind") == "match_ended"]
                    while len(ended_here) < 2:
                        message = await probe.get()
                        if message.WhichOneof("kind") == "match_ended":
                            ended_here.append(message)

                    def both_told(n: int = before + 2) -> bool:
                        return len(victim_ended) >= n

                    await eventually(both_told, timeout=30.0)
                else:
                    raise AssertionError(f"no pair of {PAIRS_TRIED} waited for the prober")
                del victim_ended[:before]
                seed = hosting.matches[quick].seed
                assert hosting.matches[slow].seed == seed  # a pair indeed

                # What the prober has: no end, no seed, commitments that do not match each other.
                await asyncio.sleep(0.3)  # let anything that would be sent arrive
                while not probe.queue.empty():
                    seen.append(probe.queue.get_nowait())
                assert not [m for m in seen if m.WhichOneof("kind") == "match_ended"]
                assert not victim_ended
                assert seed.hex().encode() not in b"".join(m.SerializeToString() for m in seen)
                assert started[quick].seed_commitment != started[slow].seed_commitment
                for leg in (quick, slow):
                    assert started[leg].seed_commitment != hashlib.sha256(seed).hexdigest()
                # What the store serves (the web pages, the API, `arbiter export`): a running match.
                row = lab.store.match_row(quick)
                assert row is not None and row.status == "running"
                assert lab.store.match_record(quick) is None

                # The prober plays the slow leg to its end.
                for turn in held:
                    legal = convert.legal_from_pb(turn.legal)
                    await prober.move(turn.match_id, turn.turn_id, legal[0])
                ends: list[pb.MatchEnded] = []
                while len(ends) < 2:
                    message = await probe.get()
                    kind = message.WhichOneof("kind")
                    if kind == "turn":
                        legal = convert.legal_from_pb(message.turn.legal)
                        await prober.move(message.turn.match_id, message.turn.turn_id, legal[0])
                    elif kind == "match_ended":
                        ends.append(message.match_ended)
                await eventually(lambda: len(victim_ended) == 2, timeout=30.0)
            finally:
                # The calls first: a read that is cancelled as its message arrives can swallow the
                # cancel (asyncio.wait_for on Python 3.11), and the reader would wait on.
                prober.call.cancel()
                victim.call.cancel()
                victim_task.cancel()
                probe.task.cancel()
                watched.task.cancel()
                await asyncio.gather(victim_task, probe.task, watched.task, return_exceptions=True)

            # Both ends, the quick leg's first, with the one seed; each commitment is its leg's.
            assert [end.match_id for end in ends] == [quick, slow]
            assert [end.match_id for end in victim_ended] == [quick, slow]
            for end in [*ends, *victim_ended]:
                assert end.seed == seed.hex()
                leg = hashlib.sha256(seed + end.match_id.encode("ascii")).hexdigest()
                assert started[end.match_id].seed_commitment == leg
                assert check_surge_seed(end.seed, leg, BLUE, [], end.match_id) == []
                assert check_surge_seed(end.seed, leg, BLUE, [])  # not without the leg's id
            # The seed tells the victim's first hand in the slow leg: what the hold kept hidden.
            first_turn = next(t for t in victim_turns if t.match_id == slow)
            observation: Any = convert.observation_from_pb("surge", first_turn.observation)
            colour = BLUE if observation.seat == 1 else ORANGE
            assert sorted(draw_order(seed, colour)[:3]) == sorted(observation.hand)
            await eventually(lambda: lab.store.match_record(slow) is not None, timeout=10.0)
            assert lab.store.match_record(quick) is not None

    asyncio.run(asyncio.wait_for(scenario(), 240.0))
