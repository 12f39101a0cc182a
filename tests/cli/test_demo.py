"""`arbiter demo`: a guest bot started with the printed command gets a game; --stay; the summary."""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import threading
import time
import urllib.request

import pytest
from arbiter.cli import main
from click.testing import CliRunner

from tests.conftest import ROOT

ENV = dict(os.environ, PYTHONPATH=f"{ROOT / 'server'}:{ROOT / 'clients' / 'python'}")
FRESH_ENV = {"PATH": "/usr/bin:/bin", "HOME": os.environ.get("HOME", "/tmp")}


def test_demo_ends_with_a_summary_and_draws_names_and_scores():
    result = CliRunner().invoke(main, ["demo", "--once", "--delay", "0", "--no-colour"])
    assert result.exit_code == 0, result.output
    out = result.output
    assert "Demo over: 3 games played" in out, out
    summary = out[out.index("Demo over") :]
    for title in ("Torrent", "Surge Stones", "Fravan"):
        assert title in summary
    # The pictures name the bots with their colours and scores, and Surge has its legend.
    assert "blue demo-" in out and "orange demo-" in out
    assert "face-down" in out
    # The invitation works from a fresh shell (an absolute interpreter) and says how long it lasts.
    assert f"{shlex.quote(sys.executable)} -m arbiter_bot.examples.random_bot" in out
    assert "--stay" in out
    # The house bots' ladder games are for the pages: counted, not drawn in the terminal.
    assert "House bots (flank-ada, flank-bo, random-cy, random-di) play the demo ladder" in out
    assert "The demo ladder: " in summary
    assert "flank-ada" not in out.split("play the demo ladder")[1].split("Demo over")[0]
    # The web pages too (a free port by default).
    assert "Watch on the web: http://127.0.0.1:" in out


def read_lines(stream, lines: list[str]) -> None:
    for line in stream:
        lines.append(line)


def start_demo(*args: str) -> tuple[subprocess.Popen[str], list[str]]:
    """``arbiter demo ARGS`` in a process of its own, and the list its output lines go to."""
    demo = subprocess.Popen(
        [sys.executable, "-m", "arbiter.cli", "demo", *args],
        env=ENV,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines: list[str] = []
    threading.Thread(target=read_lines, args=(demo.stdout, lines), daemon=True).start()
    return demo, lines


def wait_for(lines: list[str], text: str, timeout: float = 60) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for line in list(lines):
            if text in line:
                return line
        time.sleep(0.05)
    pytest.fail(f"no line with {text!r} in:\n{''.join(lines)}")


def test_a_guest_started_from_a_fresh_shell_gets_a_game_and_stay_keeps_the_demo_open(tmp_path):
    probe = subprocess.run([sys.executable, "-c", "import arbiter_bot"], env=FRESH_ENV, capture_output=True)
    if probe.returncode != 0:
        pytest.skip("the interpreter has no installed SDK (run in the project's virtual environment)")
    demo, lines = start_demo("--once", "--delay", "0", "--no-colour", "--stay")
    try:
        command = wait_for(lines, " -m arbiter_bot.examples.random_bot ").strip()
        assert command.startswith(shlex.quote(sys.executable))
        wait_for(lines, "The programme is over; the demo stays open", timeout=120)
        guest = subprocess.run(
            shlex.split(command), env=FRESH_ENV, cwd=tmp_path, capture_output=True, text=True, timeout=120
        )
        assert guest.returncode == 0, guest.stderr
        assert " vs house " in guest.stdout, guest.stdout + guest.stderr
        assert demo.poll() is None  # still open after the programme and the guest's game
        # The web page lists the demo's matches, the guest's too.
        web = wait_for(lines, "Watch on the web: ").split("Watch on the web: ")[1].split("/live")[0]
        with urllib.request.urlopen(f"{web}/api/matches?bot=guest", timeout=10) as answer:
            matches = json.load(answer)
        assert [{m["seat_1"]["bot"], m["seat_2"]["bot"]} for m in matches] == [{"guest", "house"}]
        demo.send_signal(signal.SIGINT)
        demo.wait(timeout=30)
    finally:
        if demo.poll() is None:
            demo.kill()
            demo.wait()
    out = "".join(lines)
    assert demo.returncode == 0, out
    summary = out[out.index("Demo over") :]
    assert "4 games played" in summary and "guest" in summary and "house" in summary


def get_json(url: str) -> object:
    with urllib.request.urlopen(url, timeout=10) as answer:
        return json.load(answer)


def test_the_demo_lives_until_ctrl_c_with_a_ladder_on_its_pages():
    """By default the demo keeps playing (programme and ladder) and its pages stay up until Ctrl-C."""
    demo, lines = start_demo("--delay", "0.02", "--no-colour")
    try:
        assert "runs until you press Ctrl-C" in wait_for(lines, "Ctrl-C")
        web = wait_for(lines, "Watch on the web: ").split("Watch on the web: ")[1].split("/live")[0]
        # The programme is played again and again: a second Fravan game means a second round.
        deadline = time.monotonic() + 120
        while sum("Fravan over" in line for line in list(lines)) < 2:
            assert demo.poll() is None, "".join(lines)
            assert time.monotonic() < deadline, "".join(lines)
            time.sleep(0.2)
        # The ladder has standings: rated games between the four house bots.
        while True:
            page = get_json(f"{web}/api/ladders/demo")
            assert isinstance(page, dict)
            if sum(row["games"] for row in page["standings"]) >= 2:
                break
            assert time.monotonic() < deadline, page
            time.sleep(0.5)
        assert {row["bot"] for row in page["standings"]} <= {
            "flank-ada",
            "flank-bo",
            "random-cy",
            "random-di",
        }
        assert page["ladder"]["game"] == "torrent"
        # Every page says how long the demo lasts.
        with urllib.request.urlopen(f"{web}/", timeout=10) as answer:
            home = answer.read().decode()
        assert "until you press Ctrl-C" in home and "/ladders/demo" in home
        assert demo.poll() is None
        demo.send_signal(signal.SIGINT)
        demo.wait(timeout=30)
    finally:
        if demo.poll() is None:
            demo.kill()
            demo.wait()
    out = "".join(lines)
    assert demo.returncode == 0, out
    assert "Demo over: " in out and "The demo ladder: " in out


def test_once_and_rounds_are_one_choice():
    result = CliRunner().invoke(main, ["demo", "--once", "--rounds", "2"])
    assert result.exit_code == 2
    assert "error: --once and --rounds N are one choice" in result.output
