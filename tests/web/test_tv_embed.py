"""Issue 19 item 15: a featured live match ("TV": the highest-rated match running) on the home
page, and an embeddable replay (`/embed/matches/ID`: one board and controls, no site around it,
which other sites may frame while the other pages may not be framed)."""

from __future__ import annotations

import contextlib
import http.server
import threading
from collections.abc import Iterator
from typing import Any

from arbiter.ladder.standings import standings
from arbiter.web.live import LiveHub
from arbiter.web.pages import featured
from arbiter_bot.examples.surge_tips import SurgeTipsBot
from arbiter_games import get_game

from .conftest import SLOW_BOTS, Site, Slow, until, wait_for
from .test_pages import finished_match


def test_tv_features_the_running_match_with_the_highest_rated_bots(site: Site) -> None:
    rows = standings(site.store, "t5")
    assert len(rows) >= 4
    top, low = [rows[0].bot, rows[1].bot], [rows[-1].bot, rows[-2].bot]
    game = get_game("torrent")
    hub = LiveHub()
    for match_id, bots in (("weak", low), ("strong", top), ("casual", top)):
        state = game.new_game({"size": 5}, b"")
        ladder = None if match_id == "casual" else "t5"
        hub.start(match_id, game, ladder, {1: bots[0], 2: bots[1]}, 0.0, state, {})
    chosen = featured(site.store, hub)
    assert chosen is not None and chosen[0].match_id == "strong"
    assert abs(chosen[1] - (rows[0].ordinal + rows[1].ordinal)) < 1e-9
    hub.ended("strong")
    chosen = featured(site.store, hub)
    assert chosen is not None and chosen[0].match_id == "weak"  # a casual match is never featured
    assert featured(site.store, LiveHub()) is None


def test_the_home_page_shows_tv_and_follows_it(site: Site, page: Any) -> None:
    before = set(site.hub.matches)
    bots = {name: Slow(SurgeTipsBot(i), 0.1) for i, name in enumerate(SLOW_BOTS)}
    playing = site.submit(site.play("slow-surge", "surge", bots, 1))  # type: ignore[arg-type]
    match_id = wait_for(lambda: next((m for m in site.hub.matches if m not in before), None), 30, "a match")
    try:
        wait_for(lambda: site.hub.matches[match_id].visible(), 10, "a first frame")
        page.goto(site.url + "/")
        tv = page.locator("#tv")
        assert tv.get_attribute("data-match") == match_id
        assert tv.locator(".board-box svg").count() == 1
        first = int(tv.locator(".ply").inner_text())
        until(page, f"Number(document.querySelector('#tv .ply').textContent) > {first}", timeout=30)
    finally:
        playing.result(120)


def test_the_embeddable_replay_may_be_framed_and_the_pages_may_not(site: Site, page: Any) -> None:
    match_id = finished_match(site, "t5")
    embed = page.request.get(f"{site.url}/embed/matches/{match_id}")
    assert embed.status == 200
    assert "frame-ancestors *" in embed.headers["content-security-policy"]
    assert "x-frame-options" not in embed.headers
    assert "<header>" not in embed.text() and 'id="board"' in embed.text()
    full = page.request.get(f"{site.url}/matches/{match_id}")
    assert "frame-ancestors 'none'" in full.headers["content-security-policy"]
    assert full.headers["x-frame-options"] == "DENY"
    # Framed by a page of another origin: the replay shows and steps; the full page is refused.
    host = (
        f'<iframe id="e" src="{site.url}/embed/matches/{match_id}?step=0" width="700" height="600"></iframe>'
        f'<iframe id="f" src="{site.url}/matches/{match_id}" width="700" height="600"></iframe>'
    )
    with other_site(host) as address:  # another origin (port) on this machine
        page.goto(address)
        check_framing(site, page, match_id)


class _Host(http.server.BaseHTTPRequestHandler):
    body = b""

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("content-type", "text/html")
        self.end_headers()
        self.wfile.write(self.body)

    def log_message(self, *args: Any) -> None:
        pass


@contextlib.contextmanager
def other_site(html: str) -> Iterator[str]:
    """A page of another origin (a server on another port of this machine) holding ``html``."""
    handler = type("Host", (_Host,), {"body": html.encode()})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def check_framing(site: Site, page: Any, match_id: str) -> None:
    frame = page.frame_locator("#e")
    frame.locator("#board svg").wait_for(timeout=15_000)
    assert frame.locator("#board").get_attribute("data-step") == "0"
    frame.locator("#next").click()
    embedded = next(f for f in page.frames if f.url.startswith(f"{site.url}/embed/"))
    until(embedded, "document.getElementById('board').dataset.step === '1'")
    page.wait_for_timeout(500)
    refused = next((f for f in page.frames if f.url == f"{site.url}/matches/{match_id}"), None)
    assert refused is None or refused.locator("#board").count() == 0
