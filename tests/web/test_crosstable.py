"""Issue 19 item 13: a ladder's crosstable (every pair's score, as CGOS shows it) and its
whole-history standings on the web."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from arbiter.ladder.standings import whole_history_standings

from .conftest import Site


def brute_force(site: Site, ladder: str) -> dict[tuple[str, str], tuple[float, int]]:
    table: dict[tuple[str, str], list[float]] = defaultdict(lambda: [0.0, 0])
    for row in site.store.matches(ladder, limit=10**6):
        if row.status != "finished":
            continue
        one, two = row.seat_1.bot, row.seat_2.bot
        for me, them, seat in ((one, two, 1), (two, one, 2)):
            cell = table[(me, them)]
            cell[0] += 1.0 if row.winner_seat == seat else 0.5 if row.winner_seat is None else 0.0
            cell[1] += 1
    return {pair: (points, int(games)) for pair, (points, games) in table.items()}


def test_the_crosstable_holds_every_pairs_score(site: Site, page: Any) -> None:
    expected = brute_force(site, "t5")
    assert expected
    page.goto(f"{site.url}/ladders/t5")
    rows = page.locator("table.crosstable tbody tr")
    standing = page.locator("table.standings tbody tr")
    order = [standing.nth(i).get_attribute("data-bot") for i in range(standing.count())]
    shown_bots = [rows.nth(i).get_attribute("data-bot") for i in range(rows.count())]
    assert shown_bots[: len(order)] == order  # in the standings' order
    shown: dict[tuple[str, str], tuple[float, int]] = {}
    for i in range(rows.count()):
        bot = shown_bots[i]
        cells = rows.nth(i).locator("td[data-opponent]")
        for j in range(cells.count()):
            cell = cells.nth(j)
            pair = (bot, cell.get_attribute("data-opponent"))
            shown[pair] = (float(cell.get_attribute("data-points")), int(cell.get_attribute("data-games")))
            assert cell.inner_text() == f"{shown[pair][0]:g}/{shown[pair][1]}"
    assert shown == expected
    # Each game gives one point in all, to one side or halved.
    games = sum(games for _, games in expected.values()) // 2
    assert sum(points for points, _ in shown.values()) == games
    api = page.request.get(f"{site.url}/api/ladders/t5").json()["crosstable"]
    assert {
        (bot, other): (cell["points"], cell["games"])
        for bot, row in api.items()
        for other, cell in row.items()
    } == expected


def test_the_whole_history_standings_are_on_the_web(site: Site, page: Any) -> None:
    page.goto(f"{site.url}/ladders/t5")
    page.click("text=Whole-history standings")
    assert page.url.endswith("/ladders/t5/whole-history")
    api = page.request.get(f"{site.url}/api/ladders/t5/whole-history").json()
    try:
        expected = whole_history_standings(site.store, "t5")
    except ValueError as exc:
        assert api["rows"] == [] and api["problem"] == str(exc)
        assert str(exc) in page.locator("p.problem").inner_text()
        return
    assert [(row["bot"], row["version"]) for row in api["rows"]] == [
        (line.bot, line.version) for line in expected
    ]
    rows = page.locator("table.whole-history tbody tr")
    ratings = [float(rows.nth(i).get_attribute("data-rating")) for i in range(rows.count())]
    assert ratings == sorted(ratings, reverse=True) and len(ratings) == len(expected)


def test_an_unknown_ladder_has_no_whole_history(site: Site, page: Any) -> None:
    assert page.request.get(f"{site.url}/api/ladders/nosuch/whole-history").status == 404
