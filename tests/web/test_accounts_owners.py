"""An owner reaches only their own bots (docs/accounts.md, "One owner, their own bots"): every
route that takes a bot's name answers 404 for another owner's bot, a bot of no account and a
bot that does not exist alike, and changes nothing. Their own bot: each route does its work."""

from __future__ import annotations

import pytest
from arbiter.ladder.model import LadderConfig
from arbiter.sessions.auth import hash_token
from arbiter_games.timecontrol import TimeControl
from sqlalchemy import text

from tests.web.owners import Owner, new_store, owners_app

LADDER = LadderConfig("t5", "torrent", {"size": 5}, TimeControl(base=60.0, increment=1.0))
#: Every route of the owners' pages that names a bot, with the form fields it takes.
BOT_ROUTES = {
    ("GET", "/account/bots/{}"): {},
    ("POST", "/account/bots/{}/rotate"): {},
    ("POST", "/account/bots/{}/disable"): {},
    ("POST", "/account/bots/{}/enable"): {},
    ("POST", "/account/bots/{}/resume"): {"ladder": "t5"},
}


@pytest.fixture
def store(tmp_path):
    opened = new_store(tmp_path)
    opened.add_ladder(LADDER)
    yield opened
    opened.close()


def snapshot(store):
    with store.transaction() as session:
        bots = session.execute(
            text("SELECT name, token_hash, enabled, account_id FROM bots ORDER BY name")
        ).all()
        status = session.execute(text("SELECT * FROM ladder_status ORDER BY bot")).all()
    return [tuple(row) for row in bots], [tuple(row) for row in status]


def test_another_owners_bot_is_404_on_every_route_and_stays_as_it_was(store):
    app = owners_app(store)
    alice, bob = Owner(app), Owner(app)
    alice.signup("alice")
    bob.signup("bob")
    alice.create_bot("alices")
    bob_token = bob.create_bot("bobs")
    store.add_bot("hosts", "the host")  # a bot of no account
    for name in ("bobs", "hosts"):
        store.record_outcome_for_bot("t5", name, failed=True, threshold=1)  # paused
    before = snapshot(store)
    for name in ("bobs", "hosts", "ghost", "ALICES"):
        for (method, path), fields in BOT_ROUTES.items():
            url = path.format(name)
            answer = alice.client.get(url) if method == "GET" else alice.post(url, **fields)
            assert answer.status_code == 404, (method, url, answer.text)
            assert "among your bots" in answer.text
            assert bob_token not in answer.text
    assert snapshot(store) == before
    assert store.authenticate(bob_token).name == "bobs"
    listed = alice.client.get("/account").text
    assert "alices" in listed and "bobs" not in listed and "hosts" not in listed


def test_the_owner_rotates_disables_enables_and_resumes_their_own_bot(store):
    app = owners_app(store)
    alice = Owner(app)
    alice.signup("alice")
    token = alice.create_bot("ann")
    assert store.authenticate(token).name == "ann"
    page = alice.client.get("/account/bots/ann").text
    assert token not in page  # shown once only
    rotated = alice.post("/account/bots/ann/rotate")
    assert rotated.status_code == 200
    new_token = rotated.text.split('class="token-value" readonly value="')[1].split('"')[0]
    assert new_token != token and store.authenticate(token) is None
    assert store.authenticate(new_token).name == "ann"
    with store.transaction() as session:
        hashes = session.execute(text("SELECT token_hash FROM bots")).scalars().all()
    assert hashes == [hash_token(new_token)]
    assert alice.post("/account/bots/ann/disable").status_code == 303
    assert not store.get_bot("ann").enabled
    assert "disabled: its connections are refused" in alice.client.get("/account/bots/ann").text
    assert alice.post("/account/bots/ann/enable").status_code == 303
    assert store.get_bot("ann").enabled
    store.record_outcome_for_bot("t5", "ann", failed=True, threshold=1)
    page = alice.client.get("/account/bots/ann").text
    assert "Paused on t5" in page and "Resume on t5" in page
    assert alice.post("/account/bots/ann/resume", ladder="other").status_code == 404
    assert alice.post("/account/bots/ann/resume", ladder="t5").status_code == 303
    assert store.paused("t5", "ann") is None and store.failures_in_a_row("t5", "ann") == 0
    assert "Not paused on any ladder" in alice.client.get("/account/bots/ann").text


def test_bot_names_follow_the_rule_and_an_account_owns_a_bounded_number(store):
    from arbiter.store.accounts import MAX_BOTS_PER_ACCOUNT

    app = owners_app(store)
    alice = Owner(app)
    alice.signup("alice")
    for bad in ("", "a b", "../x", "-x"):
        answer = alice.post("/account/bots", name=bad)
        assert answer.status_code == 400, bad
    store.add_bot("taken", "the host")
    assert "exists already" in alice.post("/account/bots", name="taken").text
    for number in range(MAX_BOTS_PER_ACCOUNT):
        alice.create_bot(f"bot{number}")
    over = alice.post("/account/bots", name="onemore")
    assert over.status_code == 400 and f"at most {MAX_BOTS_PER_ACCOUNT} bots" in over.text


def test_logged_out_the_routes_send_to_login_or_refuse(store):
    app = owners_app(store)
    alice = Owner(app)
    alice.signup("alice")
    alice.create_bot("ann")
    stranger = Owner(app)
    assert stranger.client.get("/account/bots/ann").headers["location"] == "/login"
    token = stranger.csrf("/login")
    for (method, path), fields in BOT_ROUTES.items():
        if method == "POST":
            assert stranger.post(path.format("ann"), token, **fields).status_code == 401
    assert stranger.post("/account/bots", token, name="new").status_code == 401
    assert store.get_bot("ann").enabled and store.get_bot("new") is None
