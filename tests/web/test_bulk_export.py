"""Issue 19, item 17: a ladder's finished matches with their records, as NDJSON in finishing order,
from the API (`/api/ladders/NAME/matches.ndjson`) and the CLI (`matches export --format ndjson`)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from arbiter.cli import main
from arbiter.match.replay import replay
from arbiter.store import export
from click.testing import CliRunner

from .conftest import Site


def lines_of(url: str) -> list[dict]:
    with urllib.request.urlopen(url, timeout=30) as answer:
        assert answer.headers["content-type"].startswith("application/x-ndjson")
        return [json.loads(line) for line in answer.read().decode().splitlines()]


def finished_ids(site: Site, ladder: str) -> set[str]:
    return {row.match_id for row in site.store.matches(ladder, limit=10**6) if row.status == "finished"}


@pytest.mark.parametrize("ladder", ["t5", "surge"])
def test_every_finished_match_once_in_finishing_order_with_a_record_that_replays(
    site: Site, ladder: str
) -> None:
    lines = lines_of(f"{site.url}/api/ladders/{ladder}/matches.ndjson")
    assert {line["match_id"] for line in lines} == finished_ids(site, ladder)
    assert len(lines) == len(finished_ids(site, ladder)) > 0
    numbers = [line["sequence"] for line in lines]
    assert numbers == sorted(set(numbers))
    for line in lines:
        assert line["ladder"] == ladder
        assert line["record"] == site.store.match_record(line["match_id"])
        assert replay(line["record"]).ok


def test_after_and_limit_page_through_the_same_lines(site: Site) -> None:
    everything = lines_of(f"{site.url}/api/ladders/t5/matches.ndjson")
    assert len(everything) >= 3
    first = lines_of(f"{site.url}/api/ladders/t5/matches.ndjson?limit=2")
    rest = lines_of(f"{site.url}/api/ladders/t5/matches.ndjson?after={first[-1]['sequence']}")
    assert first + rest == everything


def test_the_store_is_read_a_page_at_a_time(site: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    everything = list(export.ndjson_lines(site.store, "t5"))
    pages: list[int] = []
    reader = site.store.finished_records

    def counted(ladder: str, after: int = 0, limit: int = 200) -> list[tuple[int, str, dict | None]]:
        rows = reader(ladder, after, limit)
        pages.append(len(rows))
        return rows

    monkeypatch.setattr(export, "PAGE", 2)
    monkeypatch.setattr(site.store, "finished_records", counted)
    assert list(export.ndjson_lines(site.store, "t5")) == everything
    assert len(pages) >= 2 and max(pages) <= 2


def test_an_unknown_ladder_is_a_404(site: Site) -> None:
    with pytest.raises(urllib.error.HTTPError) as error:
        urllib.request.urlopen(f"{site.url}/api/ladders/nosuch/matches.ndjson", timeout=10)
    assert error.value.code == 404


def test_the_cli_writes_the_same_lines(site: Site, tmp_path: Path) -> None:
    url = site.store.url
    served = lines_of(f"{site.url}/api/ladders/t5/matches.ndjson")
    out = tmp_path / "t5.ndjson"
    result = CliRunner().invoke(
        main,
        ["matches", "export", "--ladder", "t5", "--format", "ndjson", "--out", str(out), "--database", url],
    )
    assert result.exit_code == 0, result.output
    assert [json.loads(line) for line in out.read_text().splitlines()] == served
    assert f"{len(served)} match(es) of ladder t5 written to {out}" in result.output
    to_stdout = CliRunner().invoke(
        main, ["matches", "export", "--ladder", "t5", "--format", "ndjson", "--out", "-", "--database", url]
    )
    assert to_stdout.exit_code == 0
    assert [json.loads(line) for line in to_stdout.stdout.splitlines()] == served
    refused = CliRunner().invoke(
        main, ["matches", "export", "--format", "ndjson", "--out", "-", "--database", url]
    )
    assert refused.exit_code == 2 and "give --ladder NAME" in refused.output
    unknown = CliRunner().invoke(
        main,
        ["matches", "export", "--ladder", "nosuch", "--format", "ndjson", "--out", "-", "--database", url],
    )
    assert unknown.exit_code == 1 and "no ladder named 'nosuch'" in unknown.output
