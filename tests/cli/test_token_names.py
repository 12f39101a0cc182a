"""`arbiter token` makes only lines that `arbiter serve` takes back, for the very same name."""

from __future__ import annotations

import pytest
from arbiter.cli import main
from arbiter.sessions.auth import BotDirectory
from click.testing import CliRunner

from .test_serve_errors import refused, serve


@pytest.mark.parametrize("name", ["bad name", "", "a=b", "#comment", " alice"])
def test_token_refuses_a_name_serve_would_refuse(name):
    result = CliRunner().invoke(main, ["token", name])
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "bot name" in lines[0], result.output


@pytest.mark.parametrize("name", ["alice", "bot-2", "my_bot.v3"])
def test_a_token_line_reads_back_as_the_same_bot(tmp_path, name):
    result = CliRunner().invoke(main, ["token", name])
    assert result.exit_code == 0, result.output
    token = result.output.splitlines()[0].split()[-1]
    path = tmp_path / "bots.txt"
    path.write_text(result.output.splitlines()[1].split()[-1] + "\n")
    bots = BotDirectory()
    bots.load_file(path)
    assert bots.names() == [name] and bots.authenticate(token) == name


def test_serve_refuses_a_bot_given_twice(tmp_path):
    line = refused(serve(0, "--bot", "a=two", tmp_path=tmp_path))  # serve() gives --bot a=secret
    assert "'a'" in line and "twice" in line and "secret" not in line


def test_serve_refuses_a_tokens_file_with_a_name_twice(tmp_path):
    path = tmp_path / "bots.txt"
    path.write_text("alice=one\nalice=two\n")
    line = refused(serve(0, "--tokens-file", str(path), tmp_path=tmp_path))
    assert "bots.txt line 2" in line and "'alice'" in line and "line 1" in line


def test_serve_refuses_a_bad_name_in_one_line(tmp_path):
    line = refused(serve(0, "--bot", "bad name=x", tmp_path=tmp_path))
    assert "bad bot name 'bad name'" in line
