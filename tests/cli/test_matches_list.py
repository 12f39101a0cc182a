"""`arbiter matches list` says when, what and how each match ended, by bot name (issue 19 item 9)."""

from __future__ import annotations

import pytest
from arbiter.cli import main
from arbiter.ladder.model import BotVersion, Termination
from arbiter.store.describe import result_text
from arbiter.store.rows import MatchRow
from click.testing import CliRunner


def _row(**fields: object) -> MatchRow:
    base: dict[str, object] = {
        "match_id": "m1",
        "ladder": "t5",
        "game": "torrent",
        "seat_1": BotVersion("alice", "1"),
        "seat_2": BotVersion("bob", "2"),
        "status": "finished",
        "rated": True,
        "started_at": 0.0,
    }
    return MatchRow(**{**base, **fields})  # type: ignore[arg-type]


END = Termination.GAME_END
CASES = {
    "seat 2 won": (dict(winner_seat=2, scores={1: 11, 2: 116}, termination=END), "bob won 116-11"),
    "seat 1 won": (dict(winner_seat=1, scores={1: 30, 2: 29}, termination=END), "alice won 30-29"),
    "draw": (dict(winner_seat=None, scores={1: 1, 2: 1}, termination=END), "draw 1-1"),
    "time": (dict(winner_seat=1, faulty_seat=2, termination=Termination.TIMEOUT), "bob lost on time"),
    "gone": (
        dict(winner_seat=2, faulty_seat=1, termination=Termination.DISCONNECTED),
        "alice lost on time, disconnected",
    ),
    "illegal": (
        dict(winner_seat=2, faulty_seat=1, termination=Termination.ILLEGAL_ACTION),
        "alice forfeited (illegal action)",
    ),
    "aborted": (dict(status="aborted", termination=Termination.ABORTED), "aborted"),
    "running": (dict(status="running"), "running"),
}


@pytest.mark.parametrize(("fields", "text"), CASES.values(), ids=CASES.keys())
def test_results_read_by_bot_name(fields, text):
    assert result_text(_row(**fields)) == text


def test_an_empty_listing_says_so(tmp_path):
    url = f"sqlite:///{tmp_path / 'arbiter.db'}"
    runner = CliRunner()
    assert runner.invoke(main, ["db", "upgrade", "--database", url]).exit_code == 0
    added = runner.invoke(main, ["ladders", "add", "t5", "--game", "torrent", "--database", url])
    assert added.exit_code == 0
    result = runner.invoke(main, ["matches", "list", "--database", url])
    assert result.exit_code == 0 and result.output.strip() == "no matches yet"
    result = runner.invoke(main, ["matches", "list", "--ladder", "t5", "--database", url])
    assert result.output.strip() == "no matches yet on ladder t5"
    result = runner.invoke(main, ["matches", "list", "--limit", "0", "--database", url])
    assert result.exit_code == 2 and result.output.startswith("error: --limit must be at least 1")


def test_the_options_say_what_they_do():
    text = " ".join(CliRunner().invoke(main, ["matches", "list", "--help"]).output.split())
    assert "--ladder TEXT Only this ladder's matches." in text and "--bot TEXT Only matches this bot" in text
