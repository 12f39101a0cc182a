"""Issue 19 item 13: the rating chart has labelled axes and shows the rating the ladder ranks by
(mu - 3 sigma, dashed); the bot page names the owner."""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from typing import Any

from arbiter.web.svg import _ticks, rating_chart

from .conftest import FLANK_BOTS, Site


def test_the_bot_page_shows_the_owner_and_a_labelled_chart(site: Site, page: Any) -> None:
    bot = FLANK_BOTS[0]
    page.goto(f"{site.url}/bots/{bot}")
    assert page.locator("p.owner .owner-name").inner_text() == f"owner of {bot}"
    chart = page.locator("svg.chart")
    assert chart.locator("text.y-axis").text_content() == "rating (openskill μ)"
    assert chart.locator("text.x-axis").text_content().startswith("rated matches, oldest to newest")
    assert "the rating the standings rank by" in chart.locator("text.legend").text_content()
    series = chart.locator("polyline.series").count()
    assert series >= 1 and chart.locator("polyline.ranked").count() == series
    assert chart.locator("text.tick").count() >= 3
    api = page.request.get(f"{site.url}/api/bots/{bot}").json()
    assert api["owner"] == f"owner of {bot}"


@dataclass(frozen=True)
class Point:
    ladder: str
    version: str
    mu: float
    sigma: float


def _y_values(svg: str, kind: str) -> list[float]:
    found = re.search(rf'<polyline class="{kind}"[^>]* points="([^"]+)"', svg)
    assert found is not None
    return [float(pair.split(",")[1]) for pair in found.group(1).split()]


def test_the_dashed_line_is_mu_minus_three_sigma_below_the_mean() -> None:
    points = [Point("t5", "1", 25.0 + i, 8.0 - i) for i in range(6)]
    svg = rating_chart(points)
    means, ranked = _y_values(svg, "series"), _y_values(svg, "ranked")
    # Same scale: the gap between the lines is 3 sigma, larger when sigma is larger (y grows downwards).
    gaps = [r - m for m, r in zip(means, ranked, strict=True)]
    assert all(gap > 0 for gap in gaps)
    assert gaps == sorted(gaps, reverse=True)
    scale = gaps[0] / (3 * points[0].sigma)
    for gap, point in zip(gaps, points, strict=True):
        assert abs(gap - 3 * point.sigma * scale) < 0.2


def test_axis_ticks_are_round_and_inside() -> None:
    for low, high in ((18.2, 31.7), (-3.1, 42.0), (24.99, 25.01), (0.0, 1.0)):
        ticks = _ticks(low, high)
        assert 2 <= len(ticks) <= 6, (low, high, ticks)
        assert all(low - 1e-9 <= t <= high + 1e-9 for t in ticks)
        steps = {round(b - a, 9) for a, b in itertools.pairwise(ticks)}
        assert len(steps) == 1
