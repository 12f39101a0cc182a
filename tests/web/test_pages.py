"""The pages in a real browser, on a real arbiter after a short run of real bots."""

from __future__ import annotations

from typing import Any

from arbiter.ladder.model import Termination
from arbiter.ladder.standings import standings
from arbiter.match.replay import replay
from arbiter_games import get_game

from .conftest import FLANK_BOTS, Site, screenshot, until


def finished_match(site: Site, ladder: str) -> str:
    """The latest match of ``ladder`` played to its end by the rules (a match at the end of the
    short run may be forfeited after a move or two, as its bots wind down)."""
    rows = [
        row
        for row in site.store.matches(ladder, limit=100)
        if row.status == "finished" and row.termination is Termination.GAME_END
    ]
    assert rows, f"no finished match on {ladder}"
    return rows[0].match_id


def test_the_standings_page_shows_every_bot_of_the_ladder_in_rating_order(site: Site, page: Any) -> None:
    page.goto(f"{site.url}/ladders/t5")
    rows = page.locator("table.standings tbody tr")
    bots = [rows.nth(i).get_attribute("data-bot") for i in range(rows.count())]
    ordinals = [float(rows.nth(i).get_attribute("data-ordinal")) for i in range(rows.count())]
    assert sorted(bots) == sorted(FLANK_BOTS)
    assert ordinals == sorted(ordinals, reverse=True)
    # The same order as the arbiter's own standings (`arbiter ladders standings`).
    assert bots == [row.bot for row in standings(site.store, "t5")]
    screenshot(page, "ladder")
    page.goto(site.url + "/")
    assert page.locator('section.ladder[data-ladder="t5"] ol.top li').count() == 5
    screenshot(page, "index")
    page.goto(f"{site.url}/bots/{bots[0]}")
    assert page.locator("svg.chart polyline.series").count() >= 1
    played = site.store.matches(bot=bots[0], limit=1000)
    opponents = {row.seat_2.bot if row.seat_1.bot == bots[0] else row.seat_1.bot for row in played}
    shown = page.locator("table.h2h tbody tr td:first-child").all_inner_texts()
    assert sorted(shown) == sorted(opponents)
    assert "not connected" in page.locator("p.connection").inner_text()
    screenshot(page, "bot")


def drawn_position(page: Any) -> dict[str, tuple[str, ...]]:
    """What the board on the page shows: each stone's point or square with its attributes."""
    out: dict[str, tuple[str, ...]] = {}
    for stone in page.locator("#board [data-stone]").all():
        out[stone.get_attribute("data-point")] = (stone.get_attribute("data-stone"),)
    for stone in page.locator("#board .stone[data-square]").all():
        face = "up" if "face-up" in (stone.get_attribute("class") or "") else "down"
        out[stone.get_attribute("data-square")] = (
            face,
            stone.get_attribute("data-owner"),
            stone.get_attribute("data-value"),
        )
    return out


def engine_position(game_name: str, state: object) -> dict[str, tuple[str, ...]]:
    game = get_game(game_name)
    view = game.public_view(state)
    out: dict[str, tuple[str, ...]] = {}
    board = getattr(view, "board", None)
    if board is not None:
        from arbiter_games.hexflank import geometry

        names = geometry(view.size).names  # type: ignore[attr-defined]
        for name, cell in zip(names, board.replace("/", ""), strict=True):
            out[name] = (cell,)
        return out
    for square, owner, value in view.face_up:  # type: ignore[attr-defined]
        out[square] = ("up", owner, str(value))
    hidden = {sq: v for seat in (1, 2) for sq, _, v in game.observe(state, seat).face_down if v is not None}  # type: ignore[attr-defined]
    for square, owner in view.face_down:  # type: ignore[attr-defined]
        out[square] = ("down", owner, str(hidden[square]))  # after the match the values are public
    return out


def check_replay_with_the_keyboard(site: Site, page: Any, ladder: str, shot: str) -> None:
    match_id = finished_match(site, ladder)
    record = site.store.match_record(match_id)
    assert record is not None
    report = replay(record)
    last = len(report.states) - 1
    page.goto(f"{site.url}/matches/{match_id}?step=0")
    assert page.locator("#board").get_attribute("data-step") == "0"
    assert drawn_position(page) == engine_position(record["game"], report.states[0])
    page.keyboard.press("ArrowRight")
    until(page, "document.getElementById('board').dataset.step === '1'")
    assert drawn_position(page) == engine_position(record["game"], report.states[1])
    page.keyboard.press("ArrowLeft")
    until(page, "document.getElementById('board').dataset.step === '0'")
    for _ in range(last):
        page.keyboard.press("ArrowRight")
    until(page, f"document.getElementById('board').dataset.step === '{last}'")
    assert page.locator("#step").inner_text() == str(last)
    assert page.locator("#slider").input_value() == str(last)
    assert drawn_position(page) == engine_position(record["game"], report.states[-1])
    result = page.locator("#result").inner_text()
    assert str(record["result"]["reason"]).replace("_", " ") in result
    assert page.locator("#record").get_attribute("href") == f"/api/matches/{match_id}/record"
    # Each move shows the time it took and both clocks.
    first_move = page.locator('#moves tr[data-ply="1"] td').all_inner_texts()
    assert first_move[3].endswith("s") and first_move[4].endswith("s") and first_move[5].endswith("s")
    page.goto(f"{site.url}/matches/{match_id}?step={last // 2}")
    screenshot(page, shot)


def test_the_replay_viewer_steps_through_a_surge_match_with_the_keyboard(site: Site, page: Any) -> None:
    check_replay_with_the_keyboard(site, page, "surge", "replay-surge")


def test_the_replay_viewer_steps_through_a_torrent_match_with_the_keyboard(site: Site, page: Any) -> None:
    check_replay_with_the_keyboard(site, page, "t5", "replay-torrent")


def test_the_replay_works_without_javascript(site: Site, browser: Any) -> None:
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    match_id = finished_match(site, "t5")
    page.goto(f"{site.url}/matches/{match_id}?step=2")
    assert page.locator("#board").get_attribute("data-step") == "2"
    page.click("#next")
    assert page.locator("#board").get_attribute("data-step") == "3"
    page.goto(f"{site.url}/ladders/t5")
    assert page.locator("table.standings tbody tr").count() == len(FLANK_BOTS)
    context.close()
