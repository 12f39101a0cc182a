"""`arbiter replay` on a crafted record (item 14 of issue 18): a record that lacks a part or holds the
wrong kinds is one error line and exit status 2, never a traceback; text from the record (names,
actions, reasons) is printed with its control characters made visible."""

from __future__ import annotations

import json
import re

import pytest
from arbiter.cli import main
from click.testing import CliRunner

#: What a terminal must never receive raw from a record: C0/C1 controls, DEL, bidi, zero-width.
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]")
EVIL = "\x1b]0;pwned\x07\x1b[2J\u202e"


@pytest.fixture(scope="module")
def record(tmp_path_factory) -> dict:
    folder = tmp_path_factory.mktemp("records")
    result = CliRunner().invoke(
        main, ["match", "random", "random", "--size", "5", "--games", "1", "--records", str(folder)]
    )
    assert result.exit_code == 0, result.output
    [path] = folder.glob("torrent-*.json")
    return json.loads(path.read_text())


def replay(tmp_path, record, *flags: str) -> tuple[int, str]:
    path = tmp_path / "crafted.json"
    path.write_text(record if isinstance(record, str) else json.dumps(record))
    result = CliRunner().invoke(main, ["replay", *flags, str(path)])
    assert not RAW.search(result.output), repr(result.output)
    return result.exit_code, result.output


def crafted(record: dict, change) -> dict:
    copy = json.loads(json.dumps(record))
    change(copy)
    return copy


MALFORMED = {
    "no_seats": lambda r: r.pop("seats"),
    "seats_a_list": lambda r: r.update(seats=["a", "b"]),
    "seats_without_seat_2": lambda r: r.update(seats={"1": "a"}),
    "no_result": lambda r: r.pop("result"),
    "result_a_string": lambda r: r.update(result="won"),
    "result_without_reason": lambda r: r["result"].pop("reason"),
    "no_game": lambda r: r.pop("game"),
    "unknown_game": lambda r: r.update(game=EVIL),
    "game_a_list": lambda r: r.update(game=["torrent"]),
    "seed_not_hex": lambda r: r.update(seed=EVIL),
    "seed_a_number": lambda r: r.update(seed=7),
    "actions_a_dict": lambda r: r.update(actions={"1": "e5"}),
    "action_a_number": lambda r: r.update(actions=[7]),
    "options_a_list": lambda r: r.update(options=[5]),
    "size_a_string": lambda r: r.update(options={"size": "5\x1b[2J"}),
    "size_huge": lambda r: r.update(options={"size": 10**9}),
}


@pytest.mark.parametrize("change", MALFORMED.values(), ids=MALFORMED.keys())
@pytest.mark.parametrize("flags", [(), ("--quiet",)], ids=["boards", "quiet"])
def test_a_malformed_record_is_one_error_line(tmp_path, record, change, flags):
    code, output = replay(tmp_path, crafted(record, change), *flags)
    assert code == 2, output
    lines = output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), output
    assert "Traceback" not in output


NOT_RECORDS = ["[1, 2]", '"a record"', "null", '{"format": "arbiter-match-record/1"}', "\x1b[2J"]


@pytest.mark.parametrize("text", NOT_RECORDS)
def test_a_file_that_is_no_record_is_one_error_line(tmp_path, text):
    code, output = replay(tmp_path, text)
    assert code == 2 and len(output.strip().splitlines()) == 1 and output.startswith("error: "), output


def test_names_and_actions_from_the_record_are_printed_visibly(tmp_path, record):
    def evil(r: dict) -> None:
        r["seats"] = {"1": "alice" + EVIL, "2": "bob\x07"}
        r["actions"][1]["action"] = "e5" + EVIL  # the engine refuses it: the problem line quotes it

    code, output = replay(tmp_path, crafted(record, evil))
    assert code == 1, output
    assert "seat 1 alice\\x1b]0;pwned\\x07\\x1b[2J\\u202e vs seat 2 bob\\x07" in output
    assert any(line.startswith("problem: action 2 (e5\\x1b") for line in output.splitlines()), output


def test_an_untouched_record_still_replays(tmp_path, record):
    code, output = replay(tmp_path, record)
    assert code == 0 and "record checked: ok" in output, output


MISSING = {
    "no_actions": (lambda r: r.pop("actions"), "the record has no 'actions' field"),
    "no_seat_2": (lambda r: r["seats"].pop("2"), "the record has no 'seats.2' field"),
    "no_reason": (lambda r: r["result"].pop("reason"), "the record has no 'result.reason' field"),
    "action_without_seat": (
        lambda r: r["actions"][0].pop("seat"),
        "the record has no 'actions[0].seat' field",
    ),
}


@pytest.mark.parametrize(("change", "said"), MISSING.values(), ids=MISSING.keys())
def test_a_missing_field_is_named(tmp_path, record, change, said):
    """Not `KeyError: 'actions'` (issue 19 item 7)."""
    code, output = replay(tmp_path, crafted(record, change))
    assert code == 2 and said in output and "KeyError" not in output, output


def test_several_records_and_folders_are_checked_each_on_one_line(tmp_path, record):
    folder = tmp_path / "folder"
    folder.mkdir()
    for n in range(3):
        (folder / f"good-{n}.json").write_text(json.dumps(record))
    bad = crafted(record, lambda r: r["result"].update(reason="timeout", winner_seat=None))
    (tmp_path / "bad.json").write_text(json.dumps(bad))
    result = CliRunner().invoke(main, ["replay", str(folder)])
    assert result.exit_code == 0, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 4 and lines[-1] == "3 of 3 records ok"
    assert all(line.endswith(": ok") for line in lines[:3])
    result = CliRunner().invoke(main, ["replay", str(folder), str(tmp_path / "bad.json")])
    assert result.exit_code == 1, result.output
    lines = result.output.strip().splitlines()
    assert lines[-1] == "3 of 4 records ok, 1 failed"
    assert lines[3].startswith(f"{tmp_path / 'bad.json'}: torrent") and "problem(s)" in lines[3]
    (tmp_path / "broken.json").write_text("{")
    result = CliRunner().invoke(main, ["replay", str(folder), str(tmp_path / "broken.json")])
    assert result.exit_code == 2 and f"error: {tmp_path / 'broken.json'}: cannot read" in result.output
    assert result.output.strip().splitlines()[-1] == "3 of 4 records ok, 1 failed"
