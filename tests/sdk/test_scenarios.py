"""The scripted scenarios of tests/scenarios/ played by the Python SDK against a real `arbiter serve`.

Each scenario file is one test here; clients/js/test/scenarios.test.ts plays the same files with the
TypeScript SDK and must reach the same outcomes. tests/scenarios/README.md describes the format.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
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

from tests.conftest import ROOT
from tests.sdk.scenarios import MALFORMED, Scenario, Seen, all_scenarios, load, predict

ENV = dict(os.environ, PYTHONPATH=f"{ROOT / 'server'}:{ROOT / 'clients' / 'python'}")
#: Reconnects come quickly, but not before the dropped turn's answer is known to be unsendable.
BACKOFF = Backoff(initial=0.3, factor=2.0, maximum=1.0, jitter=0.1)
MATCH_TIMEOUT = 120.0
#: A loaded machine takes its time to import the arbiter.
STARTUP = 120.0
PATHS = all_scenarios()
SCENARIOS = {p.stem: load(p) for p in PATHS}


# --- the arbiters: one `arbiter serve` per distinct server block, every scenario's bots on each ---
@dataclass
class Arbiter:
    process: subprocess.Popen[str]
    address: str


class Arbiters:
    def __init__(self, records: Path) -> None:
        self.records = records
        self.running: dict[str, Arbiter] = {}

    def for_scenario(self, scenario: Scenario) -> str:
        key = scenario.server_key()
        if key not in self.running:
            self.running[key] = self._start(scenario.serve_args(), len(self.running))
        return self.running[key].address

    def _start(self, extra: list[str], index: int) -> Arbiter:
        records = self.records / f"arbiter-{index}"
        records.mkdir(parents=True)
        bots = [
            arg
            for s in SCENARIOS.values()
            for name in s.bot_names()
            for arg in ("--bot", f"{name}={token(name)}")
        ]
        command = [sys.executable, "-m", "arbiter.cli", "serve", "--database", "none", "--port", "0"]
        command += ["--grace", "0.5", "--records", str(records), "--log-level", "warning", *bots, *extra]
        log = records / "serve.log"
        with log.open("w") as errors:  # the child keeps its own copy of the file
            process = subprocess.Popen(
                command, env=ENV, stdout=subprocess.PIPE, stderr=errors, text=True, cwd=str(records)
            )
        stdout = process.stdout
        assert stdout is not None
        lines: list[str] = []
        reader = threading.Thread(target=lambda: lines.append(stdout.readline()), daemon=True)
        reader.start()
        reader.join(timeout=STARTUP)
        match = re.match(r"listening on (\S+)", lines[0] if lines else "")
        if match is None:
            process.kill()
            pytest.fail(f"arbiter serve {' '.join(extra)} did not start: {lines} {log.read_text()}")
        return Arbiter(process, match.group(1))

    def stop(self) -> None:
        for arbiter in self.running.values():
            arbiter.process.send_signal(signal.SIGTERM)
        for arbiter in self.running.values():
            try:
                arbiter.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                arbiter.process.kill()
                arbiter.process.wait()


def token(name: str) -> str:
    return f"token-{name}"


@pytest.fixture(scope="module")
def arbiters(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Arbiters]:
    running = Arbiters(tmp_path_factory.mktemp("scenario-records"))
    yield running
    running.stop()


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

    def choose(self, observation: Any, legal: Sequence[Any], context: TurnContext) -> Any:
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


def check(scenario: Scenario, sessions: Sequence[ScenarioSession]) -> None:
    summaries = [s.player.summary for s in sessions]
    assert all(summary is not None for summary in summaries)
    a, b = (s for s in summaries if s is not None)
    assert a.match_id == b.match_id
    assert {a.seat, b.seat} == {1, 2}
    assert a.actions == b.actions
    assert dict(a.scores) == dict(b.scores)
    assert a.reason == b.reason and a.reason in scenario.reasons, (a.reason, a.detail)
    assert a.winner_seat == b.winner_seat
    if scenario.check_winner:
        assert a.winner_seat == scenario.winner, (a.winner_seat, a.scores, a.detail)
    for s in (a, b):
        want = "draw" if s.winner_seat is None else ("win" if s.winner_seat == s.seat else "loss")
        assert s.outcome == want
        if s.reason in ("illegal_action", "malformed_action", "timeout"):
            assert s.winner_seat is not None and s.faulty_seat == 3 - s.winner_seat
    if scenario.scores is not None:
        assert dict(a.scores) == dict(scenario.scores)
    if scenario.plies is not None:
        assert len(a.actions) == scenario.plies
    for session in sessions:
        summary = session.player.summary
        assert summary is not None
        check_seat(scenario, session, summary)


async def play(scenario: Scenario, address: str) -> list[ScenarioSession]:
    sessions = [ScenarioSession(Player(scenario), address, name, scenario) for name in scenario.bot_names()]
    await asyncio.wait_for(asyncio.gather(*(s.run() for s in sessions)), MATCH_TIMEOUT)
    return sessions


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_scenario(name: str, arbiters: Arbiters) -> None:
    scenario = SCENARIOS[name]
    address = arbiters.for_scenario(scenario)
    check(scenario, asyncio.run(play(scenario, address)))


@pytest.mark.parametrize("name", sorted(n for n, s in SCENARIOS.items() if not get_game(s.game).has_chance))
def test_expected_figures_are_the_rules(name: str) -> None:
    """What a Torrent/Fravan scenario expects is what the engine alone makes of its script."""
    scenario = SCENARIOS[name]
    got = predict(scenario)
    assert scenario.scores is not None and scenario.plies is not None and scenario.check_winner
    assert (got.reason,) == scenario.reasons
    assert (got.winner, got.scores, got.plies) == (scenario.winner, dict(scenario.scores), scenario.plies)


def test_the_set_covers_what_it_promises() -> None:
    """Every game to the end, a reconnect, illegal and malformed moves under both policies,
    timeouts under both policies, the seed check passing and failing."""
    kinds: set[tuple[str, ...]] = set()
    for s in SCENARIOS.values():
        events = {e.do for script in s.seats.values() for e in script.events.values()}
        if not events:
            kinds.add(("end", s.game, str(s.options.get("size", ""))))
        for e in events & {"illegal", "malformed"}:
            kinds.add((e, s.server["on_illegal"]))
        if "sleep" in events:
            kinds.add(("timeout", s.server["on_timeout"]))
        if "disconnect" in events:
            kinds.add(("reconnect", s.game))
        for seat in s.expect_seats.values():
            kinds.update(("seed", c.tamper) for c in seat.seed_checks)
    assert {
        ("end", "torrent", "5"),
        ("end", "torrent", "7"),
        ("end", "fravan", "5"),
        ("end", "surge", ""),
    } <= kinds
    assert {("illegal", p) for p in ("forfeit", "reject")} <= kinds
    assert {("malformed", p) for p in ("forfeit", "reject")} <= kinds
    assert {("timeout", p) for p in ("loss", "default_action")} <= kinds
    assert {("reconnect", "torrent"), ("reconnect", "surge")} <= kinds
    assert {("seed", t) for t in ("none", "seed", "seed_and_commitment")} <= kinds


def test_a_malformed_answer_is_another_games_action() -> None:
    for game, (other, text) in MALFORMED.items():
        action = get_game(other).parse_action(text)
        with pytest.raises(Exception, match="expects Action"):
            convert.action_from_pb(game, convert.action_to_pb(action))


def test_names_are_unique_and_files_load() -> None:
    assert len(PATHS) == len(SCENARIOS) >= 12
    assert all(Path(p).stem == SCENARIOS[Path(p).stem].name for p in PATHS)
