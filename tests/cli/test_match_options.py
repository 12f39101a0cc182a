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


def test_a_misspelt_built_in_name_is_an_unknown_bot_not_a_command(tmp_path):
    """`arbiter match greedy randm` ran `randm` as a shell command and failed late."""
    started = time.monotonic()
    for command in ("match", "tournament"):
        args = [command, "greedy", "randm", "--game", "torrent", "--size", "5", "--games", "1"]
        line = one_line_error(CliRunner().invoke(main, [*args, "--records", str(tmp_path)]), 2)
        assert line.startswith("error: unknown bot 'randm'; built-in bots: random, greedy"), line
    assert time.monotonic() - started < 5
    assert list(tmp_path.iterdir()) == []  # refused before anything ran


@pytest.mark.parametrize(
    ("bot", "game"), [("greedy_flank", "surge"), ("mcts_flank", "surge"), ("surge_tips", "torrent")]
)
def test_a_built_in_bot_for_another_game_is_refused_up_front(tmp_path, bot, game):
    args = ["match", bot, "random", "--game", game, "--games", "1", "--records", str(tmp_path)]
    line = one_line_error(CliRunner().invoke(main, args), 2)
    assert line.startswith(f"error: built-in bot '{bot}' plays ") and f"not {game}" in line


def test_names_that_adapt_to_the_game_and_real_commands_are_taken():
    from arbiter.runner.local_match import bot_problem

    assert bot_problem("greedy", "surge") is None and bot_problem("mcts", "torrent") is None
    assert bot_problem("random", "fravan") is None
    assert bot_problem("python -m arbiter_bot.examples.random_bot", "torrent") is None
    assert "no program" in (bot_problem("./nowhere/bot --fast", "torrent") or "")
