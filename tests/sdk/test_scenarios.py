"""The scripted scenarios of tests/scenarios/ played by the Python SDK against a real `arbiter serve`.

Each scenario file is one test here; clients/js/test/scenarios.test.ts plays the same files with the
TypeScript SDK and must reach the same outcomes. tests/scenarios/README.md describes the format.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest
from arbiter_games import get_game
from arbiter_wire import convert

from tests.conftest import ROOT
from tests.sdk.scenario_bot import MATCH_TIMEOUT, Player, ScenarioSession, check_seat, token
from tests.sdk.scenarios import MALFORMED, Scenario, all_scenarios, load, predict

ENV = dict(os.environ, PYTHONPATH=f"{ROOT / 'server'}:{ROOT / 'clients' / 'python'}")
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


@pytest.fixture(scope="module")
def arbiters(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Arbiters]:
    running = Arbiters(tmp_path_factory.mktemp("scenario-records"))
    yield running
    running.stop()


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
