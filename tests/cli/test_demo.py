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
    result = CliRunner().invoke(main, ["demo", "--delay", "0", "--no-colour"])
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
    # The web pages too (a free port by default).
    assert "Watch on the web: http://127.0.0.1:" in out


def read_lines(stream, lines: list[str]) -> None:
    for line in stream:
        lines.append(line)


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
    demo = subprocess.Popen(
        [sys.executable, "-m", "arbiter.cli", "demo", "--delay", "0", "--no-colour", "--stay"],
        env=ENV,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines: list[str] = []
    threading.Thread(target=read_lines, args=(demo.stdout, lines), daemon=True).start()
    try:
        command = wait_for(lines, " -m arbiter_bot.examples.random_bot ").strip()
        assert command.startswith(shlex.quote(sys.executable))
        wait_for(lines, "Ctrl-C")  # the programme is over and the demo says it stays open
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
