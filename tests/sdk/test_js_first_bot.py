"""clients/js/README.md's "A first bot", run as written from an empty folder (issue 19 item 1): the
README's bot did not run (`Cannot use import statement outside a module`, compiled without a module
setting), and it said nothing of package.json or how to compile.

The test reads the section's files (``package.json``, ``tsconfig.json``, ``my_bot.ts``,
``play.ts``) and commands from the README itself, packs this clone's built SDK where the recipe's
``package.json`` looks for it (``../arbiter/clients/js/arbiter-bot-0.1.0.tgz``), runs ``npm
install`` and ``npm run build`` in a folder holding only those files, then plays the README's
command (``node my_bot.js ...``, its ``--server`` pointed at a real ``arbiter serve`` started here)
against ``node play.js``: ten matches each. The recipe's ``npm ci && npm run build`` in
clients/js is what ``deploy/dev test`` does before pytest; the test fails with what to do when that
build is missing or stale. ``npm install`` prefers npm's cache (filled by that ``npm ci``) to the
registry.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

JS = ROOT / "clients" / "js"
README = JS / "README.md"
TOKENS = {"alice": "token-alice", "bob": "token-bob"}
ENV = dict(os.environ, PYTHONPATH=f"{ROOT / 'server'}:{ROOT / 'clients' / 'python'}", PYTHONUNBUFFERED="1")
NPM_ENV = dict(
    os.environ, npm_config_update_notifier="false", npm_config_fund="false", npm_config_audit="false"
)
#: The recipe's commands before the one that plays (the test does what they do, see the docstring).
SETUP = [
    "cd arbiter/clients/js && npm ci && npm run build && npm pack && cd ../../..",
    "mkdir my-bot && cd my-bot",
    "npm install",
    "npm run build",
]


def section() -> str:
    text = README.read_text(encoding="utf-8")
    start = text.index("## A first bot\n")
    return text[start : text.index("\n## ", start + 1)]


def files(text: str) -> dict[str, str]:
    """Each file the section shows: a bold `NAME` line, then the first code block after it."""
    found = {}
    for title in re.finditer(r"^\*\*`([^`]+)`\*\*", text, flags=re.MULTILINE):
        rest = text[title.end() :]
        body = rest.index("\n", rest.index("```")) + 1
        found[title[1]] = rest[body : rest.index("```", body)]
    return found


def commands(text: str) -> list[str]:
    """The lines of the section's first sh block, without their comments."""
    block = text[text.index("```sh\n") + 6 :]
    block = block[: block.index("```")]
    return [line.split("  #", 1)[0].strip() for line in block.splitlines() if line.strip()]


def tool(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        pytest.fail(f"this test runs the TypeScript SDK: install Node.js 18+ and npm ({name})", pytrace=False)
    return found


def check_built() -> None:
    """The SDK's build (dist/src), no older than its TypeScript sources."""
    index = JS / "dist" / "src" / "index.js"
    if not index.exists() or any(p.stat().st_mtime > index.stat().st_mtime for p in JS.glob("src/**/*.ts")):
        pytest.fail(
            "the TypeScript SDK's build is missing or stale: cd clients/js && npm ci && npm run build",
            pytrace=False,
        )


def run(command: list[str], cwd: Path, timeout: float = 600) -> str:
    done = subprocess.run(command, cwd=cwd, env=NPM_ENV, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, (command, done.stdout[-3000:], done.stderr[-3000:])
    return done.stdout


def start_arbiter(tmp_path: Path) -> tuple[subprocess.Popen[str], str]:
    command = [sys.executable, "-m", "arbiter.cli", "serve", "--database", "none", "--port", "0"]
    for name, token in TOKENS.items():
        command += ["--bot", f"{name}={token}"]
    with open(tmp_path / "serve.log", "w") as log:
        process = subprocess.Popen(command, env=ENV, stdout=subprocess.PIPE, stderr=log, text=True)
    assert process.stdout is not None
    first = process.stdout.readline()  # `listening on HOST:PORT` once bound (or "" if it died)
    found = re.match(r"listening on (\S+)", first)
    assert found, (first, (tmp_path / "serve.log").read_text())
    return process, found[1]


def test_the_first_bot_recipe_runs_from_an_empty_folder(tmp_path: Path) -> None:
    npm, node = tool("npm"), tool("node")
    check_built()
    text = section()
    shown = files(text)
    assert set(shown) == {"package.json", "tsconfig.json", "my_bot.ts", "play.ts"}, set(shown)
    lines = commands(text)
    assert lines[:-1] == SETUP, lines
    bot = tmp_path / "my-bot"
    bot.mkdir()
    # The SDK as a package, where the recipe's package.json finds it (a clone next to the bot).
    package = json.loads(shown["package.json"])
    tarball = package["dependencies"]["arbiter-bot"].removeprefix("file:")
    packed = (bot / tarball).resolve()
    packed.parent.mkdir(parents=True)
    run([npm, "pack", "--pack-destination", str(packed.parent)], cwd=JS)
    assert packed.is_file(), f"npm pack made no {packed.name}: the README names another version"
    # An empty folder with the README's files, installed and compiled as the README says.
    assert list(bot.iterdir()) == []
    for name, body in shown.items():
        (bot / name).write_text(body, encoding="utf-8")
    run([npm, "install", "--prefer-offline"], cwd=bot)
    run([npm, "run", "build"], cwd=bot)
    assert (bot / "my_bot.js").is_file() and (bot / "play.js").is_file()
    # The README's command, against a real arbiter, with play.js (the second file) as its opponent.
    words = shlex.split(lines[-1])
    assert words[0] == "ARBITER_TOKEN=TOKEN" and words[1:3] == ["node", "my_bot.js"], words
    argv = words[3:]
    assert argv[argv.index("--server") + 1] == "127.0.0.1:50051" and "--games" in argv
    games = int(argv[argv.index("--games") + 1])
    server, address = start_arbiter(tmp_path)
    players: list[subprocess.Popen[str]] = []
    try:
        argv[argv.index("--server") + 1] = address
        env = dict(os.environ, ARBITER_TOKEN=TOKENS["alice"])
        players.append(
            subprocess.Popen(
                [node, "my_bot.js", *argv],
                cwd=bot,
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
        )
        env = dict(os.environ, ARBITER_TOKEN=TOKENS["bob"], ARBITER_SERVER=address)
        players.append(
            subprocess.Popen(
                [node, "play.js"], cwd=bot, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
            )
        )
        (mine, my_log), (theirs, their_log) = (p.communicate(timeout=300) for p in players)
    finally:
        for process in [*players, server]:
            if process.poll() is None:
                process.kill()
                process.wait(10)
    assert players[0].returncode == 0, my_log[-3000:]
    assert players[1].returncode == 0, their_log[-3000:]
    results = mine.splitlines()
    assert len(results) == games == 10, mine
    for line in results:
        assert re.search(r": (win|loss|draw) \d+-\d+ vs bob \(torrent, ", line), line
    wins = re.fullmatch(r"(\d+) wins\n", theirs)
    assert wins, theirs
    assert int(wins[1]) == sum(": loss " in line for line in results)
