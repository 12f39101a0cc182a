"""`arbiter match` refuses what it cannot honour, and gives up on a bot that never connects."""

from __future__ import annotations

import time

import pytest
from arbiter.cli import main
from click.testing import CliRunner


def one_line_error(result, status: int) -> str:
    assert result.exit_code == status, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.output
    return lines[0]


def test_a_bot_that_never_connects_is_given_up(tmp_path):
    started = time.monotonic()
    result = CliRunner().invoke(
        main,
        ["match", "random", "sleep 30", "--games", "1", "--connect-timeout", "1", "--records", str(tmp_path)],
    )
    assert time.monotonic() - started < 20
    assert result.exit_code == 1, result.output
    line = result.output.strip().splitlines()[-1]
    assert line.startswith("error: bot B ('sleep 30') did not connect within 1 s"), result.output
    assert "bot-B.log" in line


def test_the_connect_timeout_has_a_default():
    result = CliRunner().invoke(main, ["match", "--help"])
    assert "--connect-timeout" in result.output and "30" in result.output


@pytest.mark.parametrize("value", ["0", "-2"])
def test_a_connect_timeout_must_be_positive(tmp_path, value):
    result = CliRunner().invoke(main, ["match", "random", "random", "--connect-timeout", value])
    assert "--connect-timeout" in one_line_error(result, 2)


def test_size_is_refused_for_a_game_without_sizes(tmp_path):
    result = CliRunner().invoke(
        main, ["match", "random", "random", "--game", "surge", "--size", "7", "--records", str(tmp_path)]
    )
    line = one_line_error(result, 2)
    assert "--size" in line and "surge" in line
    assert not any(tmp_path.iterdir())  # nothing was played


def test_a_size_the_game_does_not_offer_is_refused_in_one_line(tmp_path):
    result = CliRunner().invoke(main, ["match", "random", "random", "--game", "fravan", "--size", "6"])
    line = one_line_error(result, 2)
    assert "--size" in line and "5, 7" in line


@pytest.mark.parametrize("value", ["0", "-1"])
def test_concurrency_must_be_at_least_one(tmp_path, value):
    result = CliRunner().invoke(
        main, ["match", "random", "random", "--concurrency", value, "--records", str(tmp_path)]
    )
    assert "--concurrency" in one_line_error(result, 2)
    assert not any(tmp_path.iterdir())
