"""Admin commands on what does not exist (item 17 of issue 18): a ladder, bot or match that is not in
the store is an error naming it (non-zero status), and a SQLite database that does not exist is
refused with a clear error and left uncreated, except by the commands whose job is to create it
(``db upgrade``; ``serve`` gives a new database its schema)."""

from __future__ import annotations

import pytest
from arbiter.cli import main
from click.testing import CliRunner

#: Every command that reads or changes a store, with arguments it needs.
STORE_COMMANDS = {
    "bots_add": ["bots", "add", "alice"],
    "bots_rotate": ["bots", "rotate", "alice"],
    "bots_disable": ["bots", "disable", "alice"],
    "bots_enable": ["bots", "enable", "alice"],
    "bots_list": ["bots", "list"],
    "ladders_add": ["ladders", "add", "t5", "--game", "torrent", "--size", "5"],
    "ladders_list": ["ladders", "list"],
    "ladders_standings": ["ladders", "standings", "t5"],
    "ladders_recompute": ["ladders", "recompute", "t5"],
    "matches_list": ["matches", "list"],
    "matches_export": ["matches", "export", "--all", "--out", "OUT"],
    "web": ["web", "--port", "0"],
}


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


@pytest.mark.parametrize("args", STORE_COMMANDS.values(), ids=STORE_COMMANDS.keys())
def test_a_command_on_a_missing_database_refuses_and_creates_nothing(tmp_path, args):
    path = tmp_path / "nothing-here.db"
    args = [str(tmp_path / "out") if arg == "OUT" else arg for arg in args]
    code, output = run(*args, "--database", f"sqlite:///{path}")
    assert code == 1, output
    lines = output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: no database"), output
    assert str(path) in lines[0] and "arbiter db upgrade" in lines[0]
    assert sorted(tmp_path.iterdir()) == [], "nothing is created"


def test_db_upgrade_creates_the_database(tmp_path):
    path = tmp_path / "new.db"
    code, output = run("db", "upgrade", "--database", f"sqlite:///{path}")
    assert code == 0 and output.startswith("created the schema (revision ") and path.exists(), output
    code, output = run("db", "upgrade", "--database", f"sqlite:///{path}")
    assert code == 0 and "is up to date (revision " in output, output


@pytest.fixture
def url(tmp_path) -> str:
    url = f"sqlite:///{tmp_path / 'arbiter.db'}"
    assert run("db", "upgrade", "--database", url)[0] == 0
    assert run("ladders", "add", "t5", "--game", "torrent", "--size", "5", "--database", url)[0] == 0
    assert run("bots", "add", "alice", "--database", url)[0] == 0
    return url


NOSUCH = {
    "ladders_recompute": (["ladders", "recompute", "nosuch"], "no ladder named 'nosuch'"),
    "ladders_standings": (["ladders", "standings", "nosuch"], "no ladder named 'nosuch'"),
    "matches_list_ladder": (["matches", "list", "--ladder", "nosuch"], "no ladder named 'nosuch'"),
    "matches_list_bot": (["matches", "list", "--bot", "nosuch"], "no bot named 'nosuch'"),
    "matches_export": (["matches", "export", "nosuch", "--out", "OUT"], "no record of match 'nosuch'"),
    "bots_rotate": (["bots", "rotate", "nosuch"], "no bot named 'nosuch'"),
    "bots_disable": (["bots", "disable", "nosuch"], "no bot named 'nosuch'"),
    "bots_enable": (["bots", "enable", "nosuch"], "no bot named 'nosuch'"),
}


@pytest.mark.parametrize("args, message", NOSUCH.values(), ids=NOSUCH.keys())
def test_a_name_that_is_not_in_the_store_is_an_error_naming_it(tmp_path, url, args, message):
    args = [str(tmp_path / "out") if arg == "OUT" else arg for arg in args]
    code, output = run(*args, "--database", url)
    assert code == 1, output
    assert output.strip().splitlines()[-1] == f"error: {message}", output
    assert "replayed" not in output


def test_recompute_of_a_ladder_that_exists_still_works(url):
    code, output = run("ladders", "recompute", "t5", "--database", url)
    assert code == 0 and "ladder t5: 0 results replayed" in output, output
