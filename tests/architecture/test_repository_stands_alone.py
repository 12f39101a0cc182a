"""The repository stands alone: no file points at a folder outside it (the rules live in docs/rules)."""

from __future__ import annotations

import subprocess

from tests.conftest import ROOT

#: Joined below, so that this file does not name the paths itself.
POINTERS = ("".join(("..", "/shared")), "/".join(("shared", "rules")), "/".join(("shared", "vectors")))


def test_no_tracked_file_points_outside_the_repository():
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    offenders = []
    for name in files.split():
        path = ROOT / name
        if not path.is_file():
            continue
        text = path.read_bytes().decode("utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), 1):
            if any(pointer in line for pointer in POINTERS):
                offenders.append(f"{name}:{number}")
    assert offenders == []


def test_the_rules_and_the_licence_are_in_the_repository():
    for name in (
        "docs/rules/torrent-fravan.md",
        "docs/rules/surge-stones.md",
        "LICENSE",
        "tests/vectors/README.md",
    ):
        assert (ROOT / name).is_file(), name
