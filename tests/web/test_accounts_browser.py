"""The owners' pages in Chromium (docs/accounts.md): a new owner signs up with an invite, lands
on the account page, creates a bot and copies its token from the page; a real SDK bot plays a
ladder match with that token; the bot's page shows it connected while it is, and its match; a
rotate shows a new token; logging out ends the session. No page breaks the pages' policy."""

from __future__ import annotations

from typing import Any

from arbiter.ladder.model import LadderConfig
from arbiter.store import SqlStore
from arbiter_bot.examples.random_bot import RandomBot

from tests.ladder.harness import LadderBot
from tests.web.conftest import CONTROL, Site, wait_for
from tests.web.owners import PASSWORD
from tests.web.test_headers import watched


def test_a_new_owner_signs_up_makes_a_bot_and_sees_it_play(tmp_path, page: Any) -> None:
    store = SqlStore(f"sqlite:///{tmp_path / 'arbiter.db'}")
    store.upgrade()
    store.add_ladder(LadderConfig("t5", "torrent", {"size": 5}, CONTROL))
    invite = store.add_invite(uses=1)
    site = Site(store)  # the default policy: sign-up with an invite
    site.run(site.start())
    console = watched(page)
    try:
        page.goto(f"{site.url}/account")
        assert page.url.endswith("/login")
        page.click("a[href='/signup']")
        page.fill("input[name=name]", "alice")
        page.fill("input[name=password]", PASSWORD)
        page.fill("input[name=password2]", PASSWORD)
        page.fill("input[name=invite]", invite)
        page.click("form button[type=submit]")
        page.wait_for_url("**/account")
        assert page.locator("h1 .account-name").inner_text() == "alice"
        page.fill("form[action='/account/bots'] input[name=name]", "ann")
        page.click("form[action='/account/bots'] button")
        token = page.input_value(".token-value")
        assert len(token) >= 40
        page.reload()  # the token is shown once
        assert page.locator(".token-value").count() == 0

        site.tokens["ann"] = token
        site.tokens["ben"] = store.add_bot("ben", "the host")
        bots = {"ann": RandomBot(1), "ben": RandomBot(2)}
        site.run(site.play("t5", ("torrent", {"size": 5}), bots, 1), timeout=120)  # type: ignore[arg-type]
        page.goto(f"{site.url}/account/bots/ann")
        assert page.locator("table.matches tbody tr").count() >= 1
        assert "ben" in page.locator("table.matches").inner_text()
        assert "connected now" not in page.locator(".connection").inner_text()

        assert site.grpc is not None
        address = site.grpc.address

        async def connect() -> LadderBot:
            bot = LadderBot(address, token)
            await bot.expect("welcome")
            return bot

        held = site.run(connect())
        page.reload()
        assert "connected now" in page.locator(".connection").inner_text()
        site.run(held.close())

        page.click("button.rotate")
        rotated = page.input_value(".token-value")
        assert rotated != token and store.authenticate(token) is None
        assert store.authenticate(rotated).name == "ann"
        page.click(".logout button")
        page.wait_for_url("**/login")
        page.goto(f"{site.url}/account")
        assert page.url.endswith("/login")
        assert wait_for(lambda: page.evaluate("window.violations") == [], 5, "no policy violation")
        assert console == []
    finally:
        site.run(site.stop())
        site.loop.call_soon_threadsafe(site.loop.stop)
        site.thread.join(5)
        store.close()
