"""One scripted bot of a scenario (tests/scenarios/), played with the Python SDK, and the checks of
its seat. tests/sdk/test_scenarios.py plays both seats with it; the TypeScript runner starts

    python -m tests.sdk.scenario_bot FILE ADDRESS NAME

(from the repository root, with server/ and clients/python/ on PYTHONPATH) to play one seat of a
match whose other seat is a TypeScript bot. It plays one match as bot NAME (token ``token-NAME``),
checks its seat and prints one JSON line: what both seats must agree on, or the failed check.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import sys
import threading
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arbiter_bot import (
    Backoff,
    Bot,
    MatchInfo,
    MatchSummary,
    Rejection,
    Session,
    TurnContext,
    check_surge_seed,
)
from arbiter_games import get_game
from arbiter_wire import convert
from arbiter_wire.v1 import bot_service_pb2 as pb

from tests.sdk.scenarios import MALFORMED, Scenario, Seen, load

#: Reconnects come after a second: by then the dropped turn's answer has long been found unsendable
#: (choose answers as soon as the old stream is closed).
BACKOFF = Backoff(initial=1.0, factor=2.0, maximum=2.0, jitter=0.1)
MATCH_TIMEOUT = 120.0


def token(name: str) -> str:
    return f"token-{name}"


# --- a scripted bot and the session that lets it drop its connection ------------------------
@dataclass
class Call:
    turn_id: int
    asked_again: bool
    answer: str


@dataclass
class Player(Bot):
    """Plays whichever seat it gets by that seat's script."""

    scenario: Scenario
    closed: threading.Event = field(default_factory=threading.Event)
    calls: list[Call] = field(default_factory=list)
    rejections: list[Rejection] = field(default_factory=list)
    observations: dict[int, Any] = field(default_factory=dict)
    summary: MatchSummary | None = None
    turns: int = 0
    seen: Seen = field(default_factory=Seen)
    last_turn: int = -1
    commitment: str = ""
    #: What went wrong inside choose (the SDK would hide it behind a random legal action).
    errors: list[str] = field(default_factory=list)

    def choose(self, observation: Any, legal: Sequence[Any], context: TurnContext) -> Any:
        try:
            return self._choose(observation, legal, context)
        except Exception as err:
            self.errors.append(f"turn {context.turn_id}: {type(err).__name__}: {err}")
            raise

    def _choose(self, observation: Any, legal: Sequence[Any], context: TurnContext) -> Any:
        game = get_game(self.scenario.game)
        texts = [game.format_action(a) for a in legal]
        script = self.scenario.seats[context.seat]
        again = bool(context.rejections)
        if context.turn_id != self.last_turn:  # a new turn (not a re-ask after a refusal)
            self.last_turn = context.turn_id
            self.turns += 1
            self.observations[context.turn_id] = observation
        n = self.turns - 1
        event = script.events.get(self.turns)
        answer: Any = script.pick(texts, n)
        if event is not None and not again:
            if event.do == "illegal":
                taken = self.seen.illegal(texts)
                assert taken is not None, f"seat {context.seat} has no illegal action at turn {self.turns}"
                answer = taken
            elif event.do == "malformed":
                other, text = MALFORMED[self.scenario.game]
                answer = get_game(other).parse_action(text)
            elif event.do == "sleep":
                time.sleep(event.seconds)
            elif event.do == "disconnect":
                assert self.closed.wait(30), "the connection was not dropped"
        if not again:
            self.seen.add(texts)
        self.calls.append(Call(context.turn_id, again, answer if isinstance(answer, str) else repr(answer)))
        return answer

    def on_match_start(self, info: MatchInfo) -> None:
        self.commitment = info.seed_commitment

    def on_move_rejected(self, rejection: Rejection) -> None:
        self.rejections.append(rejection)

    def on_match_end(self, summary: MatchSummary) -> None:
        self.summary = summary


class ScenarioSession(Session):
    """The SDK's Session, watched: Welcomes counted, Turns recorded, and the scripted drop made
    when the disconnect turn arrives (before the bot answers it)."""

    def __init__(self, player: Player, address: str, name: str, scenario: Scenario) -> None:
        super().__init__(
            player,
            address,
            token(name),
            (scenario.game, dict(scenario.options)),
            games=1,
            backoff=BACKOFF,
            max_reconnects=5,
        )
        self.player = player
        self.welcomes = 0
        #: (turn id, Welcomes so far) for every Turn received, re-sent ones included.
        self.turns_received: list[tuple[int, int]] = []
        self.new_turns: set[int] = set()
        self.dropped_turn: int | None = None
        #: (turn id, Welcomes so far, whether it went out) for every move the SDK tried to send.
        self.moves_sent: list[tuple[int, int, bool]] = []

    def _send(self, request: pb.PlayRequest) -> bool:
        sent = super()._send(request)
        if request.WhichOneof("kind") == "move":
            self.moves_sent.append((request.move.turn_id, self.welcomes, sent))
        return sent

    async def _on_welcome(self, welcome: pb.Welcome) -> None:
        self.welcomes += 1
        await super()._on_welcome(welcome)

    def _on_turn(self, turn: pb.Turn) -> None:
        self.turns_received.append((turn.turn_id, self.welcomes))
        if turn.turn_id not in self.new_turns:
            self.new_turns.add(turn.turn_id)
            seat = convert.SEAT_FROM_PB[turn.seat]
            event = self.player.scenario.seats[seat].events.get(len(self.new_turns))
            if event is not None and event.do == "disconnect" and self.dropped_turn is None:
                self.dropped_turn = turn.turn_id
                self.drop_connection()
        super()._on_turn(turn)

    async def _connect_once(self) -> None:
        try:
            await super()._connect_once()
        finally:
            if self.dropped_turn is not None:
                self.player.closed.set()


# --- the checks ---------------------------------------------------------------------------
def failures(problems: Sequence[str]) -> list[str]:
    """The kinds of seed-check failure: the commitment (SHA-256) and the draws (everything else)."""
    kinds = {"commitment" if "SHA-256" in p else "draws" for p in problems}
    return sorted(kinds)


def tampered(seed: str, commitment: str, how: str) -> tuple[str, str]:
    if how == "none":
        return seed, commitment
    if how == "seed":
        return seed[:-1] + ("0" if seed[-1] != "0" else "1"), commitment
    other = hashlib.sha256(bytes.fromhex(seed)).hexdigest()
    return other, hashlib.sha256(bytes.fromhex(other)).hexdigest()


def is_subsequence(part: Sequence[str], whole: Sequence[str]) -> bool:
    it = iter(whole)
    return all(any(x == y for y in it) for x in part)


def check_seat(scenario: Scenario, session: ScenarioSession, summary: MatchSummary) -> None:
    player = session.player
    assert not player.errors, player.errors
    expect = scenario.expect_seats.get(summary.seat)
    seat = summary.seat
    want_rejections = list(expect.rejections) if expect else []
    assert [r.reason for r in player.rejections] == want_rejections, f"seat {seat}: {player.rejections}"
    asked_again = sum(1 for c in player.calls if c.asked_again)
    assert asked_again == (expect.asked_again if expect else 0), (
        f"seat {seat} asked again {asked_again} times"
    )
    # choose: once per turn, once more per refusal that may be answered again.
    calls = Counter(c.turn_id for c in player.calls)
    retryable = Counter(r.turn_id for r in player.rejections if r.may_retry)
    assert all(calls[t] == 1 + retryable[t] for t in calls), (calls, retryable)
    # Every answer the arbiter did not refuse was played, in order.
    refused = Counter(r.turn_id for r in player.rejections)
    answered = Counter(c.turn_id for c in player.calls)
    last = {c.turn_id: c.answer for c in player.calls}
    played = [last[t] for t in sorted(last) if answered[t] > refused[t]]
    assert played and is_subsequence(played, summary.actions), (played, summary.actions)
    if expect is not None and expect.colour is not None:
        assert summary.colour == expect.colour, f"seat {seat} ends as {summary.colour}"
    if expect is not None and expect.reconnected:
        assert session.welcomes >= 2, "the session never reconnected"
        assert session.dropped_turn is not None
        after = [t for t, welcomes in session.turns_received if welcomes >= 2]
        assert after and after[0] == session.dropped_turn, "the pending turn was not re-sent first"
        assert calls[session.dropped_turn] == 1, "choose was asked again for the re-sent turn"
        # Its answer went out only on the new connection (in reply to the re-sent turn).
        out = [welcomes for t, welcomes, sent in session.moves_sent if t == session.dropped_turn and sent]
        assert out and min(out) >= 2, session.moves_sent
    else:
        assert session.welcomes == 1, f"seat {seat} reconnected {session.welcomes - 1} times"
    if scenario.game == "surge":
        assert summary.seed_verified is True, summary.seed_problems
        assert re.fullmatch(r"[0-9a-f]{64}", summary.seed)
        observations = [*player.observations.values(), summary.final_observation]
        commitment = player.commitment
        assert commitment == hashlib.sha256(bytes.fromhex(summary.seed)).hexdigest()
        colour = summary.colour or ("blue" if seat == 1 else "orange")
        for check in expect.seed_checks if expect else ():
            seed, committed = tampered(summary.seed, commitment, check.tamper)
            problems = check_surge_seed(seed, committed, colour, observations)
            assert failures(problems) == list(check.fails), (check, problems)


def facts(summary: MatchSummary) -> dict[str, Any]:
    """What the other seat's runner compares with its own summary."""
    return {
        "match_id": summary.match_id,
        "seat": summary.seat,
        "actions": list(summary.actions),
        "scores": {str(k): v for k, v in sorted(summary.scores.items())},
        "reason": summary.reason,
        "winner_seat": summary.winner_seat,
        "outcome": summary.outcome,
        "faulty_seat": summary.faulty_seat,
    }


async def play_one(scenario: Scenario, address: str, name: str) -> ScenarioSession:
    session = ScenarioSession(Player(scenario), address, name, scenario)
    await asyncio.wait_for(session.run(), MATCH_TIMEOUT)
    return session


def main(argv: Sequence[str]) -> int:
    file, address, name = argv
    scenario = load(Path(file))
    try:
        session = asyncio.run(play_one(scenario, address, name))
        summary = session.player.summary
        assert summary is not None, "the match did not end"
        check_seat(scenario, session, summary)
    except Exception as err:  # noqa: BLE001 - a failed check or an SDK error, reported to the other runner
        print(json.dumps({"ok": False, "error": f"{type(err).__name__}: {err}"}))
        return 1
    print(json.dumps({"ok": True, "summary": facts(summary)}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
