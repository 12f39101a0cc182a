"""Owner-supplied text shows only escaped on the owners' pages (docs/accounts.md): an account's
name, a bot's name, its versions, a ladder's name, a pause's reason, and a name echoed in an
error. The names' rule allows none of ``<"'&``; the pages must not rely on it, so the account,
the bot and the ladder here are made past the rule (as an older database could hold them)."""

from __future__ import annotations

from urllib.parse import quote

import pytest
from arbiter.ladder.model import BotVersion, LadderConfig, Rating, Termination
from arbiter.ladder.ratings import RatingTally
from arbiter.store import MatchResult, MatchStart, RatingUpdate
from arbiter_games.policy import MatchPolicy
from arbiter_games.timecontrol import TimeControl

from tests.web.owners import TOKEN, Owner, new_store, owners_app
from tests.web.test_escaping import Reading

ACCOUNT = "<script>evil_account()</script>\"'&a"
#: No "/" in these two: they are a path's segment in the pages' links.
BOT = "<script>evil_bot()<script>\"'&b"
VERSION = "<script>evil_version()</script>\"'&"
LADDER = "<script>evil_ladder()<script>\"'&l"
CONTROL = TimeControl(base=60.0, increment=1.0)
START = 1_800_000_000.0


def ended_match(store, bot: str) -> None:
    evil, other = BotVersion(bot, VERSION), BotVersion("beta", "1.0")
    start = MatchStart(
        match_id="m1", game="torrent", options={"size": 5}, seat_1=evil, seat_2=other,
        seed="00" * 32, seed_commitment="sha256:" + "ab" * 32, control=CONTROL,
        policy=MatchPolicy(), started_at=START, ladder=LADDER, rated=True,
    )  # fmt: skip
    store.match_started(start)
    result = MatchResult(
        winner_seat=2, scores={1: 0, 2: 1}, reason="illegal_action", termination=Termination.ILLEGAL_ACTION,
        ended_at=START + 5, faulty_seat=1, detail=f"illegal action {VERSION}",
    )  # fmt: skip
    updates = [
        RatingUpdate(1, evil, Rating(25.0, 8.3), Rating(23.0, 7.9)),
        RatingUpdate(2, other, Rating(25.0, 8.3), Rating(27.0, 7.9)),
    ]
    tallies = {
        evil: RatingTally(Rating(23.0, 7.9), 1, 0, 1, 0),
        other: RatingTally(Rating(27.0, 7.9), 1, 1, 0, 0),
    }
    assert store.finish_match("m1", result, updates, tallies)
    store.record_outcome_for_bot(LADDER, bot, True, threshold=1)  # paused on the ladder


@pytest.fixture
def owner(tmp_path, monkeypatch):
    store = new_store(tmp_path)
    app = owners_app(store)
    alice = Owner(app)
    with monkeypatch.context() as past_the_rule:
        past_the_rule.setattr("arbiter.store.accounts.check_name", lambda name, kind: name)
        past_the_rule.setattr("arbiter.store.sql._check_name", lambda kind, name: None)
        assert alice.signup(ACCOUNT).status_code == 303
        alice.created = alice.post("/account/bots", name=BOT)  # type: ignore[attr-defined]
        store.add_ladder(LadderConfig(LADDER, "torrent", {"size": 5}, CONTROL))
        store.add_bot("beta", "<b>owner</b>")
    ended_match(store, BOT)
    yield alice
    store.close()


def read(html: str) -> Reading:
    assert "<script>evil" not in html  # no element from the text
    page = Reading()
    page.feed(html)
    page.close()
    for name, value in page.attributes:
        if "evil_" in value:  # an attribute holding the text holds all of it
            whole = (ACCOUNT, BOT, VERSION, LADDER, quote(BOT), quote(LADDER))
            assert any(text in value for text in whole), (name, value)
        assert "evil" not in name and name.isascii(), name
    assert not any("evil_" in text for text in page.script_text)
    return page


def shows(html: str, *texts: str) -> None:
    shown = "".join(read(html).text)
    for text in texts:
        assert text in shown, f"{text!r} is not shown"


def test_every_owner_page_shows_owner_text_escaped(owner):
    created = owner.created
    assert created.status_code == 200 and TOKEN.search(created.text) is not None
    shows(created.text, BOT)
    shows(owner.client.get("/account").text, ACCOUNT, BOT)
    shows(owner.client.get("/login").text, ACCOUNT)
    page = owner.client.get(f"/account/bots/{quote(BOT, safe='')}")
    assert page.status_code == 200
    shows(page.text, BOT, VERSION, LADDER, f"Paused on {LADDER}")
    rotated = owner.post(f"/account/bots/{quote(BOT, safe='')}/rotate")
    assert rotated.status_code == 200
    shows(rotated.text, BOT, LADDER)


def test_a_refused_name_is_echoed_escaped(owner):
    refused = owner.post("/account/bots", name=BOT)  # the rule applies again
    assert refused.status_code == 400
    read(refused.text)
    signup = Owner(owner.client.app).signup(ACCOUNT + "2")
    assert signup.status_code == 400
    read(signup.text)
    assert 'value="&lt;script&gt;evil_account()' in signup.text  # the form keeps what was typed
    error = owner.client.get(f"/account/bots/{quote(BOT + 'x', safe='')}", headers={"Accept": "text/html"})
    assert error.status_code == 404
    read(error.text)
