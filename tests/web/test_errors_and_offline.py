"""Issue 19, item 16: error pages in HTML for a browser and JSON for the API, `/ladders` lists the
ladders, and no page (the API docs included) loads anything from another host."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any
from urllib.parse import urlsplit

import pytest

from .conftest import Site

BROWSER = {"Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}


def fetch(url: str, headers: dict[str, str] | None = None) -> tuple[int, str, str]:
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, answer.headers.get("content-type", ""), answer.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.headers.get("content-type", ""), error.read().decode()


@pytest.mark.parametrize("path", ["/bots/nosuch", "/ladders/nosuch", "/matches/nosuch", "/no/such/page"])
def test_a_browser_gets_an_html_404_with_links_back(site: Site, path: str) -> None:
    status, kind, body = fetch(site.url + path, BROWSER)
    assert status == 404 and kind.startswith("text/html"), (status, kind, body)
    assert "<h1>Not found</h1>" in body
    for link in ('href="/"', 'href="/ladders"', 'href="/live"'):
        assert link in body


@pytest.mark.parametrize("headers", [BROWSER, {}, {"Accept": "application/json"}])
def test_the_api_answers_errors_in_json_whoever_asks(site: Site, headers: dict[str, str]) -> None:
    status, kind, body = fetch(site.url + "/api/bots/nosuch", headers)
    assert status == 404 and kind.startswith("application/json"), (status, kind, body)
    assert json.loads(body) == {"detail": "no bot 'nosuch'"}


def test_a_script_asking_for_json_gets_json_for_a_page_too(site: Site) -> None:
    status, kind, body = fetch(site.url + "/bots/nosuch", {"Accept": "application/json"})
    assert status == 404 and kind.startswith("application/json")
    assert json.loads(body)["detail"] == "no bot 'nosuch'"


def test_a_bad_parameter_on_a_page_is_an_html_400(site: Site) -> None:
    match_id = next(row.match_id for row in site.store.matches("t5", limit=10) if row.status == "finished")
    status, kind, body = fetch(f"{site.url}/matches/{match_id}?step=abc", BROWSER)
    assert status == 400 and kind.startswith("text/html"), (status, body)
    assert "step" in body
    status, kind, body = fetch(f"{site.url}/api/matches?limit=abc", BROWSER)
    assert status == 422 and kind.startswith("application/json")


def test_the_ladders_page_lists_every_ladder_with_its_game(site: Site) -> None:
    status, _, body = fetch(site.url + "/ladders", BROWSER)
    assert status == 200
    for ladder in site.store.list_ladders():
        assert f'data-ladder="{ladder.name}"' in body
    assert "<th>Game</th>" in body and "Torrent" in body and "Surge Stones" in body


def test_no_page_loads_anything_from_another_host(site: Site, page: Any) -> None:
    """Every request a page makes goes to the site itself, the API docs (`/docs`) included. (An
    event stream cut short by leaving its page is no failure.)"""
    own = urlsplit(site.url).netloc
    elsewhere: list[str] = []
    failed: list[str] = []
    page.on(
        "request",
        lambda request: None if urlsplit(request.url).netloc in (own, "") else elsewhere.append(request.url),
    )
    page.on(
        "requestfailed",
        lambda request: None if request.url.endswith("/events") else failed.append(request.url),
    )
    match_id = next(row.match_id for row in site.store.matches("t5", limit=10) if row.status == "finished")
    bot = site.store.list_bots()[0].name
    for path in (
        "/",
        "/ladders",
        "/ladders/t5",
        f"/bots/{bot}",
        f"/matches/{match_id}",
        "/live",
        "/docs",
    ):
        page.goto(site.url + path, wait_until="networkidle")
    assert elsewhere == [] and failed == [], (elsewhere, failed)
    # The docs page really describes the API offline: one section per operation.
    page.goto(site.url + "/docs", wait_until="networkidle")
    spec = page.request.get(site.url + "/openapi.json").json()
    assert page.locator("section.operation").count() == sum(
        len(methods) for methods in spec["paths"].values()
    )
