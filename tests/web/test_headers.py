"""The web pages' security headers (issue 18 item 15): every answer of every route carries a
Content-Security-Policy that allows only the host's own files and no framing, nosniff and a
referrer policy; the pages have no inline script or style, and in Chromium they work under the
policy with no violation (the replay steps, the live pages update)."""

from __future__ import annotations

import re
from typing import Any

import httpx
from arbiter.web.app import create_app
from arbiter.web.headers import CONTENT_SECURITY_POLICY, EMBED_POLICY
from fastapi.routing import APIRoute
from starlette.routing import Mount, Route

from .conftest import Site, until, wait_for
from .test_live import running  # noqa: F401 - the fixture
from .test_pages import finished_match

WANTED = {
    "content-security-policy": CONTENT_SECURITY_POLICY,
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "same-origin",
}


#: The embeddable replay alone may be framed, by any site (issue 19 item 15).
EMBEDDED = {**WANTED, "content-security-policy": EMBED_POLICY, "x-frame-options": None}


def check_headers(answer: httpx.Response, url: str) -> None:
    wanted = EMBEDDED if url.startswith("/embed/") else WANTED
    for name, value in wanted.items():
        assert answer.headers.get(name) == value, f"{url}: {name} is {answer.headers.get(name)!r}"


def test_every_route_answers_with_the_security_headers(site: Site) -> None:
    match_id = finished_match(site, "t5")
    values = {"name": "t5", "match_id": match_id, "step": "0"}
    bot_values = {**values, "name": "ann"}
    app = create_app(site.store, site.hub)
    asked: set[str] = set()
    with httpx.Client(base_url=site.url, timeout=30) as client:
        for route in app.routes:
            if isinstance(route, Mount):  # the static files
                urls = [f"{route.path}/arbiter.css", f"{route.path}/match.js", f"{route.path}/live.js"]
            elif isinstance(route, APIRoute | Route):
                path = route.path
                given = bot_values if "/bots/" in path else values
                urls = [path.format(**given)]
            else:
                continue
            for url in urls:
                if isinstance(route, APIRoute) and "GET" not in (route.methods or ()):
                    # The owners' forms: refused without a session's CSRF token, with the headers.
                    answer = client.post(url)
                    assert answer.status_code == 403, f"{url}: {answer.status_code}"
                    check_headers(answer, url)
                    asked.add(route.path)
                    continue
                if url.startswith("/account"):  # logged out: to the login page
                    redirect = client.get(url)
                    assert redirect.status_code == 303 and redirect.headers["location"] == "/login", url
                    check_headers(redirect, url)
                    url = "/login"
                if url.endswith("/events"):
                    with client.stream("GET", url) as answer:
                        check_headers(answer, url)
                else:
                    answer = client.get(url)
                    assert answer.status_code == 200, f"{url}: {answer.status_code}"
                    check_headers(answer, url)
                    if answer.headers["content-type"].startswith("text/html"):
                        html = answer.text
                        assert not re.search(r"<script(?![^>]*\bsrc=)", html), f"{url} has an inline script"
                        assert "<style" not in html and " style=" not in html, f"{url} has an inline style"
                asked.add(route.path)
        # Errors too: a page, an API answer, a stream that is not there.
        for url in ("/nowhere", "/bots/nobody", "/api/matches/nope", "/matches/nope/events"):
            answer = client.get(url)
            assert answer.status_code == 404
            check_headers(answer, url)
    paths = {route.path for route in app.routes}  # type: ignore[attr-defined]
    assert asked == paths and "/docs" in paths and "/matches/{match_id}/events" in paths


WATCH_POLICY = """
window.violations = [];
document.addEventListener("securitypolicyviolation", e => {
  window.violations.push(e.violatedDirective + " " + e.blockedURI);
});
"""


def watched(page: Any) -> list[str]:
    """Console lines about the policy, collected from now on (and the page's own reports)."""
    lines: list[str] = []
    page.add_init_script(WATCH_POLICY)
    page.on(
        "console",
        lambda message: lines.append(message.text) if "Content Security Policy" in message.text else None,
    )
    page.on("pageerror", lambda error: lines.append(f"page error: {error}"))
    return lines


def test_the_pages_work_under_the_policy_in_chromium(
    site: Site,
    page: Any,
    running: str,  # noqa: F811 - the fixture
) -> None:
    console = watched(page)
    reports: list[str] = []
    for path in ("/", "/ladders/t5", "/bots/ann", "/docs"):
        page.goto(f"{site.url}{path}")
        assert page.locator("header a.brand").count() == 1
        # The style sheet applied: the header's background is the sheet's.
        assert (
            page.evaluate("getComputedStyle(document.querySelector('header')).backgroundColor")
            == "rgb(35, 38, 46)"
        )
        reports += page.evaluate("window.violations")
    # The replay viewer's script runs: End goes to the last step, Home to the first.
    page.goto(f"{site.url}/matches/{finished_match(site, 't5')}")
    last = page.locator("#last-step").inner_text()
    page.keyboard.press("Home")
    until(page, "document.getElementById('board').dataset.step === '0'")
    page.keyboard.press("End")
    until(page, f"document.getElementById('board').dataset.step === '{last}'")
    reports += page.evaluate("window.violations")
    # The live pages' scripts follow the running match over its event stream.
    page.goto(f"{site.url}/matches/{running}")
    first = int(page.locator("#board").get_attribute("data-step"))
    until(page, f"Number(document.getElementById('board').dataset.step) >= {first + 2}", timeout=20)
    reports += page.evaluate("window.violations")
    page.goto(f"{site.url}/live")
    selector = f'section.live-match[data-match="{running}"] .ply'
    before = wait_for(lambda: page.locator(selector).inner_text(), 20, "the running match's card")
    until(
        page,
        "([selector, before]) => document.querySelector(selector).textContent !== before",
        arg=[selector, before],
        timeout=20,
    )
    reports += page.evaluate("window.violations")
    assert reports == [] and console == []
    # And the policy is in force: an injected inline script does not run, and is reported.
    ran = page.evaluate(
        """() => {
          const script = document.createElement("script");
          script.textContent = "window.injected = true";
          document.body.append(script);
          return window.injected === true;
        }"""
    )
    assert ran is False
    until(page, "window.violations.length > 0")
    assert page.evaluate("window.violations")[0].startswith("script-src")
