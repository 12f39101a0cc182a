"""The training environments are an optional layer: numpy, gymnasium, pettingzoo and the games only.

The games stay standard-library only (test_games_stdlib_only.py); nothing of the SDK's client, the
wire or the server reaches arbiter_training, so ``pip install arbiter-bot[training]`` pulls in no
more than its extra, and the core never imports the training libraries.
"""

from __future__ import annotations

import sys

import pytest

from tests.architecture.imports import imports_of, violations
from tests.conftest import ROOT

CLIENTS = ROOT / "clients" / "python"
ALLOWED = ("numpy", "gymnasium", "pettingzoo", "arbiter_games", "arbiter_training")
TRAINING_LIBS = ("numpy", "gymnasium", "pettingzoo", "arbiter_training")


def test_training_imports_only_numpy_gymnasium_pettingzoo_and_the_games():
    outside = [
        f"{found.path.relative_to(CLIENTS)}:{found.line}: {found.module}"
        for found in imports_of(CLIENTS, "arbiter_training")
        if found.module.split(".")[0] not in sys.stdlib_module_names
        and found.module.split(".")[0] not in ALLOWED
    ]
    assert outside == []
    assert any(found.module.startswith("pettingzoo") for found in imports_of(CLIENTS, "arbiter_training"))


@pytest.mark.parametrize("package", ["arbiter_games", "arbiter_wire", "arbiter_bot"])
def test_the_core_never_imports_the_training_libraries(package):
    assert violations(CLIENTS, package, TRAINING_LIBS) == []


def test_the_server_never_imports_the_training_libraries():
    assert violations(ROOT / "server", "arbiter", TRAINING_LIBS) == []
