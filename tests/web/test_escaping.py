"""Bot-supplied text shows only escaped, on every page and fragment (issue 20, item 15).

A bot's version is any printable ASCII without spaces, so ``<script>...</script>"'&`` passes the
version check. A bot's name cannot hold ``<``, ``"`` or ``&`` (the name rule), but the pages must
not rely on that: the bot here is registered past the rule (as an older database could hold it).
The standings, the bot pages (with the rating chart), the match lists, the match pages and the
live cards are read as HTML, whatever their layout: each shows the text, none holds it as markup
(no element, attribute or script comes from it). With Jinja's autoescape off this fails too.
"""

from __future__ import annotations

import time
from html.parser import HTMLParser
from urllib.parse import quote

import pytest
from arbiter.ladder.model import BotVersion, LadderConfig, Rating, Termination
from arbiter.ladder.ratings import RatingTally
from arbiter.store import MatchResult, MatchStart, RatingUpdate, SqlStore
from arbiter.web.app import create_app
from arbiter.web.live import LiveHub
from arbiter_games import get_game
from arbiter_games.policy import MatchPolicy
from arbiter_games.timecontrol import TimeControl
from fastapi.testclient import TestClient

NAME = "<script>evil_name()<script>\"'&x"
VERSION = "<script>evil_version()</script>\"'&"
CONTROL = TimeControl(base=60.0, increment=1.0)
EVIL = BotVersion(NAME, VERSION)
BETA = BotVersion("beta", "1.0")
START = 1_800_000_000.0


class Reading(HTMLParser):
    """A page as a browser would build it: its text, its attributes, its scripts' text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.text: list[str] = []
        self.attributes: list[tuple[str, str]] = []
        self.script_text: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._in_script = tag in ("script", "style")
        self.attributes += [(name, value or "") for name, value in attrs]

    def handle_endtag(self, tag: str) -> None:
        self._in_script = False

    def handle_data(self, data: str) -> None:
        (self.script_text if self._in_script else self.text).append(data)


def started(match_id: str, seat_1: BotVersion, ended: bool) -> MatchStart:
    return MatchStart(
        match_id=match_id, game="torrent", options={"size": 5}, seat_1=seat_1, seat_2=BETA,
        seed="00" * 32, seed_commitment="sha256:" + "ab" * 32, control=CONTROL,
        policy=MatchPolicy(), started_at=START + (0 if ended else 10), ladder="t5", rated=True,
    )  # fmt: skip


@pytest.fixture
def client(tmp_path, monkeypatch):
    store = SqlStore(f"sqlite:///{tmp_path / 'arbiter.db'}")
    store.upgrade()
    store.add_ladder(LadderConfig("t5", "torrent", {"size": 5}, CONTROL))
    with monkeypatch.context() as past_the_rule:
        past_the_rule.setattr("arbiter.store.sql._check_name", lambda kind, name: None)
        store.add_bot(NAME, "<b>owner</b>")
    store.add_bot("beta", "owner of beta")
    store.match_started(started("m-finished", EVIL, ended=True))
    updates = [
        RatingUpdate(1, EVIL, Rating(25.0, 8.3), Rating(23.0, 7.9)),
        RatingUpdate(2, BETA, Rating(25.0, 8.3), Rating(27.0, 7.9)),
    ]
    tallies = {
        EVIL: RatingTally(Rating(23.0, 7.9), 1, 0, 1, 0),
        BETA: RatingTally(Rating(27.0, 7.9), 1, 1, 0, 0),
    }
    forfeit = MatchResult(
        winner_seat=2, scores={1: 0, 2: 1}, reason="illegal_action", termination=Termination.ILLEGAL_ACTION,
        ended_at=START + 5, faulty_seat=1, detail=f"illegal action {VERSION}",
    )  # fmt: skip
    assert store.finish_match("m-finished", forfeit, updates, tallies)
    store.record_outcome_for_bot("t5", NAME, True, threshold=1)  # paused on the ladder
    store.match_started(started("m-running", EVIL, ended=False))
    hub = LiveHub()
    game = get_game("torrent")
    hub.start("m-live", game, "t5", {1: NAME, 2: "beta"}, time.time(), game.new_game({"size": 5}), {})
    with TestClient(create_app(store, hub)) as opened:
        yield opened
    store.close()


#: Each page, and the texts it shows (the bot's name everywhere; its version where versions are).
PAGES = {
    "/": (NAME, VERSION),
    "/ladders/t5": (NAME, VERSION),
    f"/bots/{quote(NAME, safe='')}": (NAME, VERSION),
    "/bots/beta": (NAME, VERSION),
    "/matches/m-finished": (NAME,),
    "/matches/m-running": (NAME,),
    "/matches/m-live": (NAME,),
    "/live": (NAME,),
}


@pytest.mark.parametrize(
    "path", list(PAGES), ids=lambda path: path.split("%")[0] + ("name" if "%" in path else "")
)
def test_bot_supplied_text_shows_escaped_and_never_as_markup(client, path):
    answer = client.get(path)
    assert answer.status_code == 200, answer.text[:300]
    html = answer.text
    assert "<script>evil" not in html  # no element from the text
    page = Reading()
    page.feed(html)
    page.close()
    shown = "".join(page.text)
    for text in PAGES[path]:
        assert text in shown, f"{path} does not show {text!r}"
    # An attribute holding the text holds all of it (a quote did not end it early) ...
    for name, value in page.attributes:
        if "evil_" in value:
            assert NAME in value or VERSION in value or quote(NAME, safe="") in value, (path, name, value)
        assert "evil" not in name and name.isascii(), (path, name)  # ... nor made attributes of it
    assert not any("evil_" in text for text in page.script_text), path  # nor went into a script
