"""What the commands print for a mistake (issue 19, items 19 and 20): one line ``error: ...`` with
status 2 for a usage mistake, hints for a bare database path and a folder that does not exist, help
texts for every option, headers above lists, and no Python dict text in the output."""

from __future__ import annotations

import click
import pytest
from arbiter.cli import main
from arbiter.runner.local_match import label
from click.testing import CliRunner


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["match", "greedy", "random", "--game", "nosuch"], "Invalid value for '--game'"),
        (["bots", "add"], "Missing argument 'NAME'"),
        (["nosuch"], "No such command 'nosuch'"),
        (["serve", "--log-level", "loud"], "Invalid value for '--log-level'"),
        (["matches", "list", "--limit", "x"], "Invalid value for '--limit'"),
        (["ladders", "add", "t", "--game", "chess"], "Invalid value for '--game'"),
    ],
)
def test_a_usage_mistake_is_one_line_with_status_2(args, said):
    code, output = run(*args)
    assert code == 2, output
    lines = output.strip().splitlines()
    assert len(lines) == 1, output
    assert lines[0].startswith("error: ") and said in lines[0], output
    assert "(see 'arbiter " in lines[0] and "--help')" in lines[0]
    assert "Usage:" not in output


def test_the_help_path_names_the_subcommand():
    _, output = run("bots", "add")
    assert "(see 'arbiter bots add --help')" in output


def test_help_and_version_still_exit_0():
    assert run("--help")[0] == 0
    assert run("bots", "--help")[0] == 0
    code, output = run("--version")
    assert code == 0 and "arbiter, version" in output


def test_a_bare_path_for_the_database_gets_a_hint(tmp_path):
    path = tmp_path / "arbiter.db"
    code, output = run("ladders", "list", "--database", str(path))
    assert code != 0
    assert f"for a SQLite file write sqlite:///{path}" in output, output


def test_a_sqlite_file_in_a_missing_folder_is_named(tmp_path):
    path = tmp_path / "no" / "such" / "arbiter.db"
    code, output = run("db", "upgrade", "--database", f"sqlite:///{path}")
    assert code == 1
    assert (
        output.strip()
        == f"error: cannot open the SQLite file {path}: its folder {path.parent} does not exist"
    )


def test_every_option_has_a_help_text():
    missing = []

    def walk(command: click.Command, path: list[str]) -> None:
        if isinstance(command, click.Group):
            for name, sub in command.commands.items():
                walk(sub, [*path, name])
            return
        for param in command.params:
            if isinstance(param, click.Option) and not param.hidden and not param.help:
                missing.append(f"{' '.join(path)} {param.opts[0]}")

    walk(main, ["arbiter"])
    assert missing == []


def test_lists_have_headers_and_no_dict_text(tmp_path):
    url = f"sqlite:///{tmp_path / 'a.db'}"
    assert run("db", "upgrade", "--database", url)[0] == 0
    assert run("ladders", "add", "t5", "--game", "torrent", "--size", "5", "--database", url)[0] == 0
    assert run("bots", "add", "alice", "--owner", "ann", "--database", url)[0] == 0
    _, output = run("ladders", "list", "--database", url)
    assert output.splitlines()[0].split() == ["ladder", "game", "clock", "rated"], output
    _, output = run("bots", "list", "--database", url)
    assert output.splitlines()[0].split() == ["bot", "status", "owner"], output


def test_replay_says_the_options_and_result_in_words(tmp_path):
    code, output = run("match", "greedy", "random", "--size", "5", "--games", "1", "--records", str(tmp_path))
    assert code == 0, output
    record = next(tmp_path.glob("*.json"))
    code, output = run("replay", "--quiet", str(record))
    assert code == 0, output
    assert "{" not in output and "}" not in output, output
    assert output.startswith("Torrent (size 5): seat 1 ")
    result = next(line for line in output.splitlines() if line.startswith("result: "))
    assert " won " in result or "no winner" in result, result


@pytest.mark.parametrize(
    ("command", "name"),
    [
        ("node dist/bot.js", "bot"),
        ("npx tsx src/alpha.ts", "alpha"),
        ("python3 -u my_bot.py", "my_bot"),
        ("python -m arbiter_bot.examples.random_bot", "random_bot"),
        ("deno run --allow-net bot.ts", "bot"),
        ("java -jar bots/beta.jar", "beta"),
        ("./mybot --fast", "mybot"),
        ("random", "random"),
    ],
)
def test_the_runner_names_a_bot_after_its_script_not_its_interpreter(command, name):
    assert label(command) == name
