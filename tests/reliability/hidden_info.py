"""Hidden information on the wire: Surge matches played twice, the opponent's hidden stones changed.

For each pair, a seed ``S`` and the viewer's seat (Blue in even pairs, Orange in odd ones). Twin A
is the genuine match of ``S``: both draw orders come from the seed (``surge.draw_order``). Twin B
is the same match except for the opponent's draw order: its first ``k`` stones are kept (``k``
random, 0 to 17) and the rest is put in another order, with a different stone at ``k``. Both twins
are started through the arbiter's own ``start_match`` with the same seed (so the same
``seed_commitment``) and twin B's initial state (the only test hook: the orders a seed gives cannot
differ for one player only), untimed (so no clock reading differs with the machine's speed).

Both seats play over real connections: the viewer picks among its legal actions with a generator
seeded by the pair, so it plays the same as long as it receives the same; the opponent picks its
square the same way and its value from its own hand (which may differ between the twins). The
cutoff is the first round in which the opponent's placements differ between the twins (from its
own log of what it sent): before that round's reveal nothing the viewer may know differs, so every
message the viewer receives with ``rounds_played`` below that round (its MatchStarted and its
Turns, including the turns where the opponent's differing stone lies face down) must be
byte-identical between the twins, once the match id (random per match) is blanked.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from arbiter.match.match import MatchSetup
from arbiter.node import Arbiter
from arbiter_games.surge import BLUE, ORANGE, SURGE, draw_order
from arbiter_games.timecontrol import TimeControl
from arbiter_wire import convert
from arbiter_wire.v1 import bot_service_pb2 as pb

from tests.server.raw_client import RawBot

from .live import live_server, token_of


@dataclass
class HiddenFigures:
    pairs: int = 0
    matches: int = 0
    #: Messages compared byte for byte (viewer's MatchStarted and Turns before the cutoff).
    compared: int = 0
    #: Of them, Turns where an opponent stone lay face down (its value hidden).
    face_down_turns: int = 0
    #: Pairs whose opponent placements differed at some round (the rest: identical all through).
    pairs_diverging: int = 0
    #: Pairs whose viewer streams did differ after the cutoff (the comparison can see a change).
    differ_after_cutoff: int = 0
    leaks: int = 0
    problems: list[str] = field(default_factory=list)
    seconds: float = 0.0


def twin_order(order: list[int], rng: random.Random) -> tuple[list[int], int]:
    """``order`` with its stones from a random ``k`` on put in another order (stone ``k`` differs)."""
    while True:
        k = rng.randint(0, 17)
        rest = order[k:]
        if len(set(rest)) < 2:
            continue
        while True:
            shuffled = rest[:]
            rng.shuffle(shuffled)
            if shuffled[0] != rest[0]:
                return order[:k] + shuffled, k


@dataclass
class Played:
    """What one seat of one match saw and sent."""

    received: list[pb.PlayResponse] = field(default_factory=list)
    #: (round, value, square) of each placement the seat sent.
    placements: list[tuple[int, int, str]] = field(default_factory=list)


async def play_one(bot: RawBot, rng: random.Random, viewer: bool) -> Played:
    """Play one match on ``bot``'s connection until its MatchEnded."""
    out = Played()
    while True:
        message = await bot.next(timeout=60.0)
        out.received.append(message)
        kind = message.WhichOneof("kind")
        if kind == "match_ended":
            return out
        if kind != "turn":
            continue
        turn = message.turn
        legal = turn.legal.surge
        square = rng.choice(list(legal.squares))
        if viewer:
            value = rng.choice(list(legal.values))
        else:
            rng.random()  # the same draws in both twins, whatever the hand holds
            value = max(legal.values) if rng.random() < 0.5 else min(legal.values)
        out.placements.append((turn.observation.surge.round, value, square))
        action = pb.Action()
        action.surge.place.value = value
        action.surge.place.square = square
        await bot.move(turn.match_id, turn.turn_id, action)


def _blanked(message: pb.PlayResponse) -> bytes:
    copy = pb.PlayResponse()
    copy.CopyFrom(message)
    body = getattr(copy, copy.WhichOneof("kind"))
    body.match_id = ""
    return copy.SerializeToString(deterministic=True)


def _rounds_played(message: pb.PlayResponse) -> int:
    kind = message.WhichOneof("kind")
    if kind == "turn":
        return int(message.turn.observation.surge.rounds_played)
    if kind == "match_started":
        return int(message.match_started.observation.surge.rounds_played)
    return 1 << 30  # MatchEnded and anything else: after every reveal


def compare_pair(a: Played, b: Played, opponent_a: Played, opponent_b: Played) -> dict[str, int]:
    """Counts for one pair; ``leak`` is 1 when a message before the cutoff differs."""
    rounds = {r for r, _, _ in opponent_a.placements + opponent_b.placements}
    cutoff = min(
        (r for r in sorted(rounds) if _in_round(opponent_a, r) != _in_round(opponent_b, r)),
        default=1 << 30,
    )
    early_a = [m for m in a.received if _rounds_played(m) < cutoff]
    early_b = [m for m in b.received if _rounds_played(m) < cutoff]
    leak = int([_blanked(m) for m in early_a] != [_blanked(m) for m in early_b])
    later = [_blanked(m) for m in a.received if m.WhichOneof("kind") == "turn"]
    later_b = [_blanked(m) for m in b.received if m.WhichOneof("kind") == "turn"]
    face_down = sum(
        1
        for m in early_a
        if m.WhichOneof("kind") == "turn"
        and any(
            stone.colour != m.turn.observation.surge.colour for stone in m.turn.observation.surge.face_down
        )
    )
    return {
        "compared": len(early_a),
        "face_down": face_down,
        "diverging": int(cutoff < 1 << 30),
        "differ_after": int(later != later_b),
        "leak": leak,
    }


def _in_round(played: Played, round_number: int) -> list[tuple[int, int, str]]:
    return [p for p in played.placements if p[0] == round_number]


async def run_hidden(
    pairs: int, concurrency: int = 8, seed: int = 1, progress: Callable[[HiddenFigures], None] | None = None
) -> HiddenFigures:
    """Play ``pairs`` twin pairs (2 matches each), ``concurrency`` pairs at a time."""
    figures = HiddenFigures()
    workers = max(1, min(concurrency, pairs))
    names = [f"h{w}{role}" for w in range(workers) for role in ("v", "o")]
    started = time.monotonic()
    async with live_server(names) as server:
        queue: asyncio.Queue[int] = asyncio.Queue()
        for index in range(pairs):
            queue.put_nowait(index)

        async def worker(w: int) -> None:
            bots = {}
            for role in ("v", "o"):
                bots[role] = RawBot(server.address, token_of(f"h{w}{role}"))
                await bots[role].expect("welcome")
            try:
                while not queue.empty():
                    index = queue.get_nowait()
                    await _one_pair(server.arbiter, index, seed, w, bots, figures)
                    if progress is not None:
                        progress(figures)
            finally:
                for bot in bots.values():
                    await bot.close()

        await asyncio.gather(*(worker(w) for w in range(workers)))
    figures.seconds = time.monotonic() - started
    return figures


async def _one_pair(
    arbiter: Arbiter, index: int, seed: int, w: int, bots: dict[str, RawBot], figures: HiddenFigures
) -> None:
    rng = random.Random(f"{seed}:{index}")
    match_seed = rng.randbytes(32)
    viewer_seat = 1 if index % 2 == 0 else 2
    blue, orange = draw_order(match_seed, BLUE), draw_order(match_seed, ORANGE)
    if viewer_seat == 1:
        twin_b = SURGE.new_game_from_orders(blue, twin_order(orange, rng)[0])
    else:
        twin_b = SURGE.new_game_from_orders(twin_order(blue, rng)[0], orange)
    twin_a = SURGE.new_game(None, match_seed)
    played: dict[str, Played] = {}

    async def twin(side: str, state: object) -> None:
        viewer, opponent = bots["v"], bots["o"]
        seats = {viewer_seat: f"h{w}v", 3 - viewer_seat: f"h{w}o"}
        setup = MatchSetup("surge", {}, seats, control=TimeControl(), seed=match_seed)
        arbiter.start_match(setup, initial_state=state)
        got = await asyncio.gather(
            play_one(viewer, random.Random(f"viewer:{seed}:{index}"), viewer=True),
            play_one(opponent, random.Random(f"opponent:{seed}:{index}"), viewer=False),
        )
        played[f"v{side}"], played[f"o{side}"] = got

    # One after the other, by the same two bots: the opponent's name is part of what the viewer sees.
    await twin("a", twin_a)
    await twin("b", twin_b)
    counts = compare_pair(played["va"], played["vb"], played["oa"], played["ob"])
    figures.pairs += 1
    figures.matches += 2
    figures.compared += counts["compared"]
    figures.face_down_turns += counts["face_down"]
    figures.pairs_diverging += counts["diverging"]
    figures.differ_after_cutoff += counts["differ_after"]
    if counts["leak"]:
        figures.leaks += 1
        figures.problems.append(
            f"pair {index} (seed {match_seed.hex()}, viewer seat {viewer_seat}): a message differs"
        )
    if convert.SEAT_FROM_PB[played["va"].received[0].match_started.seat] != viewer_seat:
        figures.problems.append(f"pair {index}: the viewer did not get seat {viewer_seat}")
