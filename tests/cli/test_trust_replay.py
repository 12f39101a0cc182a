"""`arbiter replay` catches a record that lies: a seed that does not match its commitment, an action
credited to the wrong seat. Real records from `arbiter match`, tampered one field at a time."""

import hashlib
import json

import pytest
from arbiter.cli import main
from click.testing import CliRunner

GAMES = {"surge": ["--game", "surge"], "torrent": ["--game", "torrent", "--size", "5"]}


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    """One real record per game, as `arbiter match random random ... --records DIR` writes it."""
    out = {}
    for game, args in GAMES.items():
        folder = tmp_path_factory.mktemp(f"records-{game}")
        result = CliRunner().invoke(
            main, ["match", "random", "random", *args, "--games", "1", "--records", str(folder)]
        )
        assert result.exit_code == 0, result.output
        [path] = folder.glob(f"{game}-*.json")
        out[game] = json.loads(path.read_text())
    return out


def replay(tmp_path, record):
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    result = CliRunner().invoke(main, ["replay", "--quiet", str(path)])
    problems = [line for line in result.output.splitlines() if line.startswith("problem:")]
    return result, problems


def copy(record):
    return json.loads(json.dumps(record))


@pytest.mark.parametrize("game", GAMES)
def test_an_untampered_record_replays_clean(tmp_path, records, game):
    record = records[game]
    if game == "surge":
        assert record["seed_commitment"] == hashlib.sha256(bytes.fromhex(record["seed"])).hexdigest()
    result, problems = replay(tmp_path, record)
    assert result.exit_code == 0, result.output
    assert problems == [] and "record checked: ok" in result.output


def _flip_one_digit(text):
    return ("1" if text[0] != "1" else "2") + text[1:]


COMMITMENTS = {
    "another_seeds_hash": lambda r: hashlib.sha256(b"another seed").hexdigest(),
    "one_digit_changed": lambda r: _flip_one_digit(r["seed_commitment"]),
    "the_seed_itself": lambda r: r["seed"],
    "hash_of_the_hex_text": lambda r: hashlib.sha256(r["seed"].encode("ascii")).hexdigest(),
    "empty": lambda r: "",
    "null": lambda r: None,
}


@pytest.mark.parametrize("tamper", COMMITMENTS.values(), ids=COMMITMENTS.keys())
def test_a_surge_record_whose_commitment_does_not_match_its_seed_is_reported(tmp_path, records, tamper):
    record = copy(records["surge"])
    record["seed_commitment"] = tamper(record)
    assert record["seed_commitment"] != records["surge"]["seed_commitment"]
    result, problems = replay(tmp_path, record)
    assert result.exit_code == 1, result.output
    assert any("commitment" in p for p in problems), result.output
    assert "record checked: 1 problem(s)" in result.output  # nothing else is wrong with it


def test_a_surge_record_without_its_commitment_is_reported(tmp_path, records):
    record = copy(records["surge"])
    del record["seed_commitment"]
    result, problems = replay(tmp_path, record)
    assert result.exit_code == 1, result.output
    assert any("commitment" in p for p in problems), result.output


def test_a_game_without_chance_with_a_commitment_is_reported(tmp_path, records):
    record = copy(records["torrent"])
    assert record["seed_commitment"] is None
    record["seed_commitment"] = hashlib.sha256(bytes.fromhex(record["seed"])).hexdigest()
    result, problems = replay(tmp_path, record)
    assert result.exit_code == 1, result.output
    assert any("commitment" in p for p in problems), result.output


def _positions(record):
    actions = record["actions"]
    return {"first": 0, "second": 1, "middle": len(actions) // 2, "last": len(actions) - 1}


@pytest.mark.parametrize("where", ["first", "second", "middle", "last"])
@pytest.mark.parametrize("game", GAMES)
def test_an_action_credited_to_the_wrong_seat_is_reported(tmp_path, records, game, where):
    record = copy(records[game])
    index = _positions(record)[where]
    entry = record["actions"][index]
    entry["seat"] = 3 - entry["seat"]  # the same action, credited to the other seat
    result, problems = replay(tmp_path, record)
    assert result.exit_code == 1, result.output
    assert any(f"action {index + 1} " in p and "seat" in p for p in problems), result.output


@pytest.mark.parametrize("game", GAMES)
def test_two_actions_with_their_seats_exchanged_are_reported(tmp_path, records, game):
    """Two consecutive actions of different seats, each credited to the other's seat."""
    record = copy(records[game])
    actions = record["actions"]
    index = next(i for i in range(len(actions) - 1) if actions[i]["seat"] != actions[i + 1]["seat"])
    actions[index]["seat"], actions[index + 1]["seat"] = actions[index + 1]["seat"], actions[index]["seat"]
    result, problems = replay(tmp_path, record)
    assert result.exit_code == 1, result.output
    assert any("seat" in p for p in problems), result.output
