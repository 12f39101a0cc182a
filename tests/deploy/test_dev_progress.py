"""`deploy/dev` says what it installs, one line per step, before each long quiet part (issue 19,
item 21). Run on a copy of the script with a stand-in ``python3`` that records what it was asked
to do, so that the test installs nothing."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

from tests.conftest import ROOT

FAKE_PYTHON = """#!/bin/sh
# A stand-in for python3 and the venv's python: 'python3 -m venv DIR' makes DIR/bin/python (this
# script); anything else is only written down.
echo "$*" >> "$CALLS"
if [ "$1 $2" = "-m venv" ]; then
  mkdir -p "$3/bin" && cp "$0" "$3/bin/python"
fi
exit 0
"""


def test_set_up_steps_are_announced_one_line_each(tmp_path: Path) -> None:
    (tmp_path / "deploy").mkdir()
    shutil.copy(ROOT / "deploy" / "dev", tmp_path / "deploy" / "dev")
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    (tmp_path / "clients" / "python").mkdir(parents=True)
    shutil.copy(ROOT / "clients" / "python" / "pyproject.toml", tmp_path / "clients" / "python")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "python3"
    fake.write_text(FAKE_PYTHON)
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    calls = tmp_path / "calls.txt"
    env = dict(os.environ, PATH=f"{bin_dir}:/usr/bin:/bin", CALLS=str(calls))
    done = subprocess.run(
        ["bash", str(tmp_path / "deploy" / "dev"), "nosuch-job"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2, done.stderr  # the usage line, after the set-up
    steps = [line for line in done.stderr.splitlines() if line.startswith("deploy/dev: ")]
    assert [step.split(" ")[1] for step in steps] == ["creating", "upgrading", "installing", "installed"], (
        done.stderr
    )
    assert "a few minutes the first time" in steps[2]
    assert "-m pip install --quiet -e ./clients/python -e .[dev]" in calls.read_text()
    # A second run finds everything installed and says nothing about set-up.
    again = subprocess.run(
        ["bash", str(tmp_path / "deploy" / "dev"), "nosuch-job"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert not [line for line in again.stderr.splitlines() if line.startswith("deploy/dev: ")], again.stderr
