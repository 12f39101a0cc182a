"""``arbiter events ...`` through the real command (click) on a real store: add with its checks,
list, entrants, show (text and JSON, the standings recomputed from the store), cancel."""

from __future__ import annotations

import json
import time

import pytest
from arbiter.cli import main
from arbiter.events import swiss
from arbiter.events.model import EventStatus, Round
from arbiter.store import SqlStore
from click.testing import CliRunner, Result

from tests.events.helpers import played

SIX = list("ABCDEF")


def arbiter(url: str, *args: str, code: int = 0) -> Result:
    result = CliRunner().invoke(main, [*args, "--database", url])
    assert result.exit_code == code, (args, result.output, result.exception)
    return result


@pytest.fixture
def url(tmp_path) -> str:
    made = f"sqlite:///{tmp_path / 'arbiter.db'}"
    arbiter(made, "db", "upgrade")
    for bot in SIX:
        arbiter(made, "bots", "add", bot)
    return made


def _swiss_of_six(url: str) -> None:
    """The docs' Swiss of 6, its rounds and results written as the hosting will write them."""
    store = SqlStore(url)
    try:
        store.set_event_status("cup", EventStatus.RUNNING)
        history = store.event_history("cup")
        for winners in ((1, 2, None), (None, 1, 2), (2, 1, None)):
            made = swiss.next_round(SIX, history, 3)
            assert isinstance(made, Round)
            store.add_round("cup", made)
            outcome = {p.bots: w for p, w in zip(made.pairings, winners, strict=True)}
            history = played(history, made, lambda a, b: outcome[(a, b)])  # noqa: B023 - called at once
            for board in range(1, len(made.pairings) + 1):
                store.record_game("cup", made.number, board, 1, history.games_of(made.number, board)[0])
    finally:
        store.close()


def test_an_event_from_add_to_show(url):
    added = arbiter(
        url, "events", "add", "cup", "--game", "torrent", "--size", "9", "--format", "swiss",
        "--rounds", "3", "--base", "30", "--increment", "0.5", "--starts", "2030-01-02T18:00",
        "--entry-closes", "2030-01-02T17:30:00+00:00", "--max-entrants", "8",
    )  # fmt: skip
    assert added.output == "event cup: swiss, torrent-9, 30s+0.5s; starts 2030-01-02 18:00:00 UTC\n"
    entered = arbiter(url, "events", "entrants", "cup", *(f"--add={bot}" for bot in SIX))
    assert entered.output.splitlines()[-1] == "bot F entered in event cup (seed 6)"
    listed = arbiter(url, "events", "list").output.splitlines()
    assert listed[1].split() == [
        "cup",
        "swiss",
        "torrent-9",
        "scheduled",
        "6",
        "2030-01-02",
        "18:00:00",
        "UTC",
    ]
    _swiss_of_six(url)
    shown = arbiter(url, "events", "show", "cup").output
    assert "status running; starts 2030-01-02 18:00:00 UTC; entries close 2030-01-02 17:30:00 UTC" in shown
    assert "rounds 3 of 3; 6 entrant(s) of at most 8" in shown
    assert "  board 1: A - D  1-0\n  board 2: B - E  0-1\n  board 3: C - F  ½-½\n" in shown
    assert "standings (tie-breaks: buchholz, sonneborn_berger, direct):" in shown
    report = json.loads(arbiter(url, "events", "show", "cup", "--json").output)
    assert report["status"] == "running" and report["rounds_planned"] == 3
    assert [(r["place"], r["bot"], r["score"], r["buchholz"], r["sonneborn_berger"], r["direct"])
            for r in report["standings"]] == [
        (1, "B", 2.0, 4.0, 2.5, 0.0),
        (2, "E", 1.5, 5.0, 2.75, 0.0),
        (3, "A", 1.5, 5.0, 2.25, 0.0),
        (4, "D", 1.5, 4.0, 2.0, 1.0),
        (5, "C", 1.5, 4.0, 2.0, 0.0),
        (6, "F", 1.0, 5.0, 1.5, 0.0),
    ]  # fmt: skip
    assert report["crosstable"]["D"] == {"A": 0.0, "C": 1.0, "F": 0.5}
    assert report["rounds"][0]["pairings"][1]["games"] == [
        {"seat_1": "B", "seat_2": "E", "winner_seat": 2, "kind": "played"}
    ]
    # The same standings however often they are computed from the store.
    assert json.loads(arbiter(url, "events", "show", "cup", "--json").output) == report
    # A running event's entrant is withdrawn, not removed.
    withdrawn = arbiter(url, "events", "entrants", "cup", "--remove", "F")
    assert withdrawn.output == "bot F withdrawn from event cup\n"
    assert arbiter(url, "events", "entrants", "cup").output.splitlines()[-1] == "   6 F (withdrawn)"
    assert arbiter(url, "events", "cancel", "cup").output == "event cup cancelled (it was running)\n"
    assert "status cancelled" in arbiter(url, "events", "show", "cup").output


def test_starts_in_seconds_and_an_arena(url):
    before = time.time()
    arbiter(url, "events", "add", "blitz", "--game", "surge", "--format", "arena", "--duration", "120",
            "--starts-in", "3600", "--duplicate-pairs", "--unrated")  # fmt: skip
    report = json.loads(arbiter(url, "events", "show", "blitz", "--json").output)
    assert before + 3600 <= report["starts_at"] <= time.time() + 3600
    assert (report["format"], report["duration"], report["duplicate_pairs"], report["rated"]) == (
        "arena", 120.0, True, False,
    )  # fmt: skip
    assert report["rounds_planned"] is None and report["tie_breaks"] == ["wins"]


def test_entrants_before_the_start_are_removed_and_the_limits_hold(url):
    arbiter(url, "events", "add", "ko", "--game", "torrent", "--format", "knockout", "--max-entrants", "2",
            "--invite-only")  # fmt: skip
    arbiter(url, "events", "entrants", "ko", "--add", "A", "--add", "B")
    full = arbiter(url, "events", "entrants", "ko", "--add", "C", code=1)
    assert full.output == "error: event 'ko' is full (2 entrants)\n"
    assert arbiter(url, "events", "entrants", "ko", "--remove", "A").output == "bot A removed from event ko\n"
    assert arbiter(url, "events", "entrants", "ko").output == "   2 B\n"
    unknown = arbiter(url, "events", "entrants", "ko", "--add", "nobody", code=1)
    assert unknown.output == "error: no bot named 'nobody'\n"
    assert "invite only" in arbiter(url, "events", "show", "ko").output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--format", "knockout", "--rounds", "3"], "a knockout event sets its own rounds"),
        (["--format", "arena"], "an arena needs a window"),
        (["--format", "swiss", "--duration", "60"], "only an arena has a window"),
        (["--format", "swiss", "--games-per-pairing", "0"], "at least 1 game per pairing"),
        (["--format", "swiss", "--starts", "tomorrow"], "not an ISO 8601 time: 'tomorrow'"),
        (
            ["--format", "swiss", "--starts", "2030-01-01T10:00", "--starts-in", "5"],
            "--starts or --starts-in",
        ),
        (
            ["--format", "swiss", "--starts", "2030-01-01T10:00", "--entry-closes", "2030-01-01T11:00"],
            "close before",
        ),
        (["--format", "swiss", "--duplicate-pairs"], "torrent has no chance"),
        (["--format", "round-robin", "--base", "0"], "needs a game clock"),
        (["--format", "swiss", "--max-entrants", "1"], "at least 2 entrants"),
        (["--format", "ladder"], "Invalid value for '--format'"),
    ],
)
def test_a_bad_event_is_refused_in_one_line(url, args, message):
    result = arbiter(url, "events", "add", "bad", "--game", "torrent", *args, code=2)
    assert result.output.startswith("error: ") and message in result.output
    assert len(result.output.strip().splitlines()) == 1
    assert "no events yet" in arbiter(url, "events", "list").output


def test_store_errors_are_one_line(url):
    arbiter(url, "events", "add", "cup", "--game", "torrent", "--format", "swiss")
    assert arbiter(url, "events", "add", "cup", "--game", "torrent", "--format", "swiss", code=1).output == (
        "error: an event named 'cup' exists already\n"
    )
    assert arbiter(url, "events", "show", "nope", code=1).output == (
        "error: no event named 'nope' (see 'arbiter events list')\n"
    )
    assert arbiter(url, "events", "cancel", "nope", code=1).output == "error: no event named 'nope'\n"
    arbiter(url, "events", "cancel", "cup")
    again = arbiter(url, "events", "cancel", "cup", code=1)
    assert again.output == "error: event 'cup' is cancelled: it cannot become cancelled\n"
    closed = arbiter(url, "events", "entrants", "cup", "--add", "A", code=1)
    assert closed.output == "error: event 'cup' is cancelled: entries are closed\n"
