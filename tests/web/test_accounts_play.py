"""A bot made on the owner's page plays with its token over gRPC, on a real arbiter; its page
shows it connected, the ladder it joined and its match; a rotate on the page ends the open call
of the old token at the arbiter's next credential check and refuses it from then on, the new
token connects; a disable on the page ends that call too (docs/accounts.md)."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

import grpc
from arbiter.ladder.model import LadderConfig
from arbiter.store import SqlStore
from arbiter_games.policy import MatchPolicy
from arbiter_games.timecontrol import TimeControl

from tests.ladder.harness import LadderBot, eventually, serving
from tests.security.test_revocation import checked_often, refusal
from tests.web.owners import TOKEN, Owner, owners_app

#: Quick matches: a turn left unanswered loses the match in a second.
QUICK = LadderConfig(
    "quick", "torrent", {"size": 5}, TimeControl(base=10.0, per_decision=1.0), MatchPolicy(on_timeout="loss")
)


def test_a_bot_made_on_the_web_plays_and_its_page_rotates_and_disables_it(tmp_path):
    url = f"sqlite:///{tmp_path / 'arbiter.db'}"
    store = SqlStore(url)
    store.upgrade()
    store.add_ladder(QUICK)
    store.close()

    async def scenario() -> None:
        async with serving(url, configure=checked_often) as lab:
            ladders = lab.arbiter.ladders
            assert ladders is not None
            app = owners_app(lab.store, connected=lab.arbiter.sessions.connected, joined=ladders.joined_by)
            alice = Owner(app)
            assert (await asyncio.to_thread(alice.signup, "alice")).status_code == 303
            lab.tokens["ann"] = await asyncio.to_thread(alice.create_bot, "ann")
            lab.tokens["ben"] = lab.store.add_bot("ben", "the host")

            def page() -> str:
                answer = alice.client.get("/account/bots/ann")
                assert answer.status_code == 200
                return answer.text

            before = await asyncio.to_thread(page)
            assert "never seen" in before and "connected now" not in before
            ann, ben = await lab.connect("ann"), await lab.connect("ben")
            assert ann.welcome.bot_name == "ann"
            for bot in (ann, ben):
                await bot.join(QUICK.name)
                await bot.expect("ladder_joined")
            joined = await asyncio.to_thread(page)
            assert "connected now" in joined and 'Joined now: <a href="/ladders/quick">quick</a>' in joined
            await asyncio.gather(ann.play(1, timeout=30.0), ben.play(1, timeout=30.0))
            for bot in (ann, ben):
                await bot.leave(QUICK.name)
            await eventually(lambda: lab.watch.running["ann"] == 0, timeout=30.0)
            played = await asyncio.to_thread(page)
            assert "Joined now: none" in played and lab.watch.ended[0].facts.match_id in played

            rotated = await asyncio.to_thread(alice.post, "/account/bots/ann/rotate")
            found = TOKEN.search(rotated.text)
            assert rotated.status_code == 200 and found is not None
            old, new = lab.tokens["ann"], found.group(1)
            code, reason = refusal(await ann.status_at_end(timeout=15.0))
            assert (code, reason) == (grpc.StatusCode.UNAUTHENTICATED, "BAD_TOKEN")
            stale = LadderBot(lab.address, old)
            lab.bots.append(stale)
            assert refusal(await stale.status_at_end()) == (grpc.StatusCode.UNAUTHENTICATED, "BAD_TOKEN")
            lab.tokens["ann"] = new
            fresh = await lab.connect("ann")
            assert fresh.welcome.bot_name == "ann"

            assert (await asyncio.to_thread(alice.post, "/account/bots/ann/disable")).status_code == 303
            code, reason = refusal(await fresh.status_at_end(timeout=15.0))
            assert (code, reason) == (grpc.StatusCode.PERMISSION_DENIED, "BOT_DISABLED")

    # On a thread of its own: the browser tests' Playwright holds an event loop on this one.
    with ThreadPoolExecutor(1) as thread:
        thread.submit(asyncio.run, scenario()).result()
