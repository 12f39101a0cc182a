"""The shared command line: options, environment defaults, precedence and mistakes."""

from __future__ import annotations

import pytest
from arbiter_bot.bot import MatchSummary, TimeControl
from arbiter_bot.cli import DEFAULT_SERVER, parse_options, summary_line

ENV = {"ARBITER_TOKEN": "secret"}


def test_defaults() -> None:
    options = parse_options([], ENV)
    assert options.server == DEFAULT_SERVER
    assert options.token == "secret"
    assert options.game == "torrent"
    assert options.size is None and options.games is None and options.time_control is None
    assert options.spec == ("torrent", {})
    assert options.max_concurrent == 1


def test_environment_supplies_everything() -> None:
    env = {
        "ARBITER_SERVER": "arb.example:7000",
        "ARBITER_TOKEN": "t0k",
        "ARBITER_GAME": "fravan",
        "ARBITER_SIZE": "5",
        "ARBITER_GAMES": "12",
        "ARBITER_BASE": "60",
        "ARBITER_INCREMENT": "0.5",
        "ARBITER_PER_DECISION": "2",
    }
    options = parse_options([], env)
    assert (options.server, options.token, options.game, options.size, options.games) == (
        "arb.example:7000",
        "t0k",
        "fravan",
        5,
        12,
    )
    assert options.spec == ("fravan", {"size": 5})
    assert options.time_control == TimeControl(base=60.0, increment=0.5, per_decision=2.0)


def test_command_line_wins_over_environment() -> None:
    env = {
        **ENV,
        "ARBITER_SERVER": "env:1",
        "ARBITER_GAME": "surge",
        "ARBITER_GAMES": "3",
        "ARBITER_SIZE": "9",
    }
    argv = ["--server", "cli:2", "--token", "cli-token", "--game", "torrent", "--size", "7", "--games", "1"]
    options = parse_options(argv, env)
    assert (options.server, options.token, options.game, options.size, options.games) == (
        "cli:2",
        "cli-token",
        "torrent",
        7,
        1,
    )
    timed = parse_options(["--base", "30", "--increment", "1", "--per-decision", "0.5"], ENV)
    assert timed.time_control == TimeControl(30.0, 1.0, 0.5)
    capped = parse_options(["--per-decision", "3"], ENV)
    assert capped.time_control == TimeControl(per_decision=3.0)


def test_surge_ignores_a_size_and_zero_games_means_forever() -> None:
    options = parse_options(["--game", "surge", "--games", "0"], {**ENV, "ARBITER_SIZE": "7"})
    assert options.size is None and options.spec == ("surge", {}) and options.games is None


@pytest.mark.parametrize(
    ("argv", "env", "message"),
    [
        ([], {}, "no token"),
        (["--size", "4"], ENV, "sizes"),
        (["--game", "fravan", "--size", "6"], ENV, "sizes"),
        (["--games", "-1"], ENV, "negative"),
        (["--increment", "1"], ENV, "increment needs a base"),
        (["--base", "-5"], ENV, "negative"),
        (["--max-concurrent", "0"], ENV, "at least 1"),
        ([], {**ENV, "ARBITER_GAMES": "lots"}, "ARBITER_GAMES"),
        ([], {**ENV, "ARBITER_GAME": "chess"}, "chess"),
        (["--game", "chess"], ENV, "invalid choice"),
    ],
)
def test_mistakes_exit_with_usage_errors(
    argv: list[str], env: dict[str, str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as caught:
        parse_options(argv, env)
    assert caught.value.code == 2
    assert message in capsys.readouterr().err


def test_a_bot_limited_to_some_games() -> None:
    options = parse_options([], ENV, games=("surge",))
    assert options.game == "surge"
    with pytest.raises(SystemExit):
        parse_options(["--game", "torrent"], ENV, games=("surge",))


def test_summary_line() -> None:
    summary = MatchSummary(
        match_id="m7", game="surge", options={}, seat=2, opponent_name="bob", outcome="win",
        scores={1: 3, 2: 11}, reason="board_empty", seed_verified=True,
    )  # fmt: skip
    assert summary_line(summary) == "m7: win 11-3 vs bob (surge, board_empty)  seed verified"
