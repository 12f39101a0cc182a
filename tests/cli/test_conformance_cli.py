"""The ``arbiter conformance`` command: output format and exit status."""

import json

from arbiter.cli import main
from click.testing import CliRunner

from tests.conftest import VECTORS


def run(*args):
    return CliRunner().invoke(main, ["conformance", *map(str, args)])


def test_the_projects_vectors_all_pass():
    files = sorted(VECTORS.glob("*.jsonl"))
    result = run(*files)
    total = sum(1 for f in files for line in f.read_text().splitlines() if line.strip())
    assert result.exit_code == 0, result.output
    assert result.output.strip().splitlines()[-1] == f"{total} passed, 0 failed"


def test_failing_case_names_id_action_and_difference(tmp_path):
    case = json.loads((VECTORS / "torrent.jsonl").read_text().splitlines()[0])
    case["id"] = "broken-trace"
    case["trace"][2] = case["trace"][2].replace(".", "W", 1)
    good = json.loads((VECTORS / "torrent.jsonl").read_text().splitlines()[1])
    path = tmp_path / "cases.jsonl"
    path.write_text(json.dumps(case) + "\n" + json.dumps(good) + "\n")
    result = run(path)
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert lines[-1] == "1 passed, 1 failed"
    assert lines[0].startswith("FAIL broken-trace: action 3 (e8): board: expected")


def test_wrong_expectation_and_engine_error_and_unknown_kind(tmp_path):
    case = json.loads((VECTORS / "torrent.jsonl").read_text().splitlines()[0])
    wrong = dict(case, id="wrong-winner", expect=dict(case["expect"], winner="black"))
    bad_action = dict(case, id="bad-action", actions=["E5"], trace=["x"])
    unknown = {"id": "what", "game": "chess"}
    path = tmp_path / "cases.jsonl"
    path.write_text("\n".join(json.dumps(c) for c in (wrong, bad_action, unknown)) + "\n")
    result = run(path)
    assert result.exit_code == 1
    out = result.output
    assert 'FAIL wrong-winner: expect.winner: expected "black" got "white"' in out
    assert "FAIL bad-action: MalformedAction" in out
    assert "FAIL what: unknown case kind 'chess'" in out
    assert out.strip().splitlines()[-1] == "0 passed, 3 failed"


def test_no_cases_or_unreadable_exits_2(tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n")
    assert run(empty).exit_code == 2
    assert run(tmp_path / "missing.jsonl").exit_code == 2
    garbage = tmp_path / "garbage.jsonl"
    garbage.write_text("{not json\n")
    assert run(garbage).exit_code == 2


def test_a_file_of_match_records_or_other_json_is_no_case_file(tmp_path):
    """A match record was counted as a failed case (issue 19 item 7): one error line, status 2."""
    folder = tmp_path / "records"
    made = CliRunner().invoke(
        main, ["match", "random", "random", "--size", "5", "--games", "1", "--records", str(folder)]
    )
    assert made.exit_code == 0, made.output
    [record] = folder.glob("torrent-*.json")
    other = tmp_path / "other.jsonl"
    other.write_text('{"name": "not a case"}\n')
    for path, said in ((record, "a match record, not a conformance case"), (other, "not a conformance case")):
        result = run(path)
        assert result.exit_code == 2, result.output
        lines = result.output.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"error: {path}:1: {said}"), result.output
