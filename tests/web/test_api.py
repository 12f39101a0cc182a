"""The JSON API answers what its own OpenAPI description says it does."""

from __future__ import annotations

from typing import Any

import httpx
from jsonschema import Draft202012Validator
from openapi_spec_validator import validate

from .conftest import Site


def response_schema(spec: dict[str, Any], path: str, status: str = "200") -> dict[str, Any]:
    schema = spec["paths"][path]["get"]["responses"][status]["content"]["application/json"]["schema"]
    return {**schema, "components": spec["components"]}


def check(spec: dict[str, Any], client: httpx.Client, template: str, url: str, status: int = 200) -> Any:
    answer = client.get(url)
    assert answer.status_code == status, answer.text
    Draft202012Validator(response_schema(spec, template, str(status))).validate(answer.json())
    return answer.json()


def test_the_api_answers_validate_against_its_openapi_description(site: Site) -> None:
    with httpx.Client(base_url=site.url, timeout=30) as client:
        spec = client.get("/openapi.json").json()
        validate(spec)
        ladders = check(spec, client, "/api/ladders", "/api/ladders")
        assert {ladder["name"] for ladder in ladders} == {"t5", "surge", "slow-surge"}
        standings = check(spec, client, "/api/ladders/{name}", "/api/ladders/t5")["standings"]
        check(spec, client, "/api/ladders/{name}", "/api/ladders/nope", 404)
        bot = check(spec, client, "/api/bots/{name}", f"/api/bots/{standings[0]['bot']}")
        assert bot["history"] and bot["head_to_head"] and bot["connected"] is False
        check(spec, client, "/api/bots/{name}", "/api/bots/nobody", 404)
        matches = check(spec, client, "/api/matches", "/api/matches?ladder=surge")
        check(spec, client, "/api/matches", "/api/matches?status=finished&limit=3")
        match_id = matches[0]["match_id"]
        match = check(spec, client, "/api/matches/{match_id}", f"/api/matches/{match_id}")
        assert match["record_url"] == f"/api/matches/{match_id}/record"
        record = check(spec, client, "/api/matches/{match_id}/record", match["record_url"])
        assert record["match_id"] == match_id and len(match["frames"]) == len(record["actions"]) + 1
        check(spec, client, "/api/matches/{match_id}", "/api/matches/nope", 404)
        check(spec, client, "/api/live", "/api/live")
        check(spec, client, "/api/ladders/{name}/whole-history", "/api/ladders/t5/whole-history")
        check(spec, client, "/api/ladders/{name}/whole-history", "/api/ladders/nope/whole-history", 404)
        # The NDJSON stream is described as such (its lines: tests/web/test_bulk_export.py).
        bulk = spec["paths"]["/api/ladders/{name}/matches.ndjson"]["get"]["responses"]
        assert "application/x-ndjson" in bulk["200"]["content"]
        assert (
            client.get("/api/ladders/t5/matches.ndjson?limit=1")
            .headers["content-type"]
            .startswith("application/x-ndjson")
        )
        # Every API path was asked above.
        assert {path for path in spec["paths"]} == {
            "/api/ladders", "/api/ladders/{name}", "/api/bots/{name}", "/api/matches",
            "/api/matches/{match_id}", "/api/matches/{match_id}/record", "/api/live",
            "/api/ladders/{name}/matches.ndjson", "/api/ladders/{name}/whole-history",
        }  # fmt: skip
