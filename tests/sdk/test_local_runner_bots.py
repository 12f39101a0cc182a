"""`python -m arbiter_bot.local`: the bots it is given by name, as a user runs it (issue 19 item 2)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT

MODULE = """
from arbiter_bot.examples.random_bot import make_bot as _example


def make_bot(seed=None):
    return _example(seed)


def another(seed=None):
    return _example(seed)


def not_a_bot(seed=None):
    return 42
"""


RUNNER = (sys.executable, "-m", "arbiter_bot.local", "--game", "torrent", "--size", "5", "--games", "2")


def _local(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": f"{ROOT / 'clients' / 'python'}"}
    return subprocess.run(
        [*RUNNER, *args],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_plain_module_in_the_current_folder_is_a_bot(tmp_path: Path) -> None:
    (tmp_path / "mymod.py").write_text(MODULE)
    for name in ("mymod:make_bot", "mymod", "mymod:another"):
        done = _local(tmp_path, "--bot1", name, "--bot2", "random_bot", "--seed", "1")
        assert done.returncode == 0, done.stderr
        assert f"{name} vs random_bot (torrent, 2 games" in done.stdout


def test_a_name_that_is_no_bot_is_one_line_and_a_failing_status(tmp_path: Path) -> None:
    (tmp_path / "mymod.py").write_text(MODULE)
    cases = {
        "nosuch": "unknown bot 'nosuch'",
        "mymod:nope": "module mymod has no nope()",
        "mymod:not_a_bot": "made a int, not an arbiter_bot Bot",
    }
    for name, said in cases.items():
        done = _local(tmp_path, "--bot1", name)
        assert done.returncode == 2, (name, done.stdout, done.stderr)
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: ") and said in lines[0], done.stderr
        assert "Traceback" not in done.stderr and done.stdout == ""
    # The examples are named in the error, so the user sees what exists.
    assert "random_bot" in _local(tmp_path, "--bot2", "randm").stderr
