"""The command line's ladder options: --ladder and --version, and their environment variables."""

from __future__ import annotations

from arbiter_bot.cli import parse_options

ENV = {"ARBITER_TOKEN": "secret"}


def test_no_ladder_and_no_version_by_default() -> None:
    options = parse_options([], ENV)
    assert options.ladder is None and options.version is None


def test_ladder_and_version_from_the_command_line() -> None:
    options = parse_options(["--ladder", "t7", "--version", "2.1.0"], ENV)
    assert (options.ladder, options.version) == ("t7", "2.1.0")


def test_ladder_and_version_from_the_environment_and_the_command_line_wins() -> None:
    env = {**ENV, "ARBITER_LADDER": "surge-duplicates", "ARBITER_BOT_VERSION": "7"}
    options = parse_options([], env)
    assert (options.ladder, options.version) == ("surge-duplicates", "7")
    options = parse_options(["--ladder", "t5"], env)
    assert (options.ladder, options.version) == ("t5", "7")
