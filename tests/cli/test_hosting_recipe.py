"""docs/hosting.md's recipe, run as written (issue 19 item 10): its commands from nothing to a ladder
serving its pages, and a `serving` log line that names the store's bots and ladders (it said
`"bots": []` with two bots in the store)."""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

from tests.conftest import ROOT

ENV = dict(os.environ, PYTHONPATH=f"{ROOT / 'server'}:{ROOT / 'clients' / 'python'}", PYTHONUNBUFFERED="1")
ARBITER = [sys.executable, "-m", "arbiter.cli"]


def recipe() -> list[list[str]]:
    """The `arbiter ...` commands of the first sh block of "From nothing to a running ladder"."""
    text = (ROOT / "docs" / "hosting.md").read_text()
    section = text[text.index("## From nothing to a running ladder") :]
    block = section[section.index("```sh") + 5 : section.index("```", section.index("```sh") + 5)]
    lines = [line.split("#", 1)[0].strip() for line in block.splitlines()]
    assert "source .venv/bin/activate" in lines  # the recipe says how `arbiter` gets on the path
    return [shlex.split(line)[1:] for line in lines if line.startswith("arbiter ")]


def test_the_hosting_recipe_runs_and_serves_its_pages(tmp_path: Path) -> None:
    *setup, serve = recipe()
    assert serve[0] == "serve" and "--web" in serve
    for args in setup:
        done = subprocess.run([*ARBITER, *args], env=ENV, cwd=tmp_path, capture_output=True, text=True)
        assert done.returncode == 0, (args, done.stdout, done.stderr)
    # Free ports instead of the recipe's fixed ones, on this machine only.
    options = dict(zip(serve[1::2], serve[2::2], strict=True))
    assert set(options) == {"--host", "--port", "--web"}
    command = [*ARBITER, "serve", "--host", "127.0.0.1", "--port", "0", "--web", "127.0.0.1:0"]
    process = subprocess.Popen(
        command, env=ENV, cwd=tmp_path, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        assert process.stderr is not None and process.stdout is not None
        serving = None
        web = None
        for line in process.stderr:
            if line.startswith("{") and json.loads(line).get("event") == "serving":
                serving = json.loads(line)
                break
        assert serving is not None
        assert serving["bots_in_store"] == 2 and serving["ladders"] == ["t7"], serving
        for line in process.stdout:
            found = re.search(r"(http://127\.0\.0\.1:\d+)", line)
            if found:
                web = found[1]
                break
        assert web is not None
        with urllib.request.urlopen(f"{web}/ladders/t7", timeout=10) as answer:
            page = answer.read().decode()
        assert "t7" in page  # the ladder's page answers
        process.send_signal(signal.SIGTERM)
        process.wait(30)
    finally:
        if process.poll() is None:
            process.kill()
