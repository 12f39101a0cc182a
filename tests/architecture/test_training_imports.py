"""The training environments are an optional layer: numpy, gymnasium, pettingzoo, OpenSpiel, the games.

The games stay standard-library only (test_games_stdlib_only.py); nothing of the SDK's client, the
wire or the server reaches arbiter_training, so ``pip install arbiter-bot[training]`` (or
``[openspiel]``) pulls in no more than its extra, and the core never imports the training libraries.
OpenSpiel is imported by one module only (``openspiel_games``), which the package does not import.
"""

from __future__ import annotations

import sys

import pytest

from tests.architecture.imports import imports_of, violations
from tests.conftest import ROOT

CLIENTS = ROOT / "clients" / "python"
OPENSPIEL = ("pyspiel", "open_spiel")
ALLOWED = ("numpy", "gymnasium", "pettingzoo", *OPENSPIEL, "arbiter_games", "arbiter_training")
TRAINING_LIBS = ("numpy", "gymnasium", "pettingzoo", *OPENSPIEL, "arbiter_training")


def test_training_imports_only_numpy_gymnasium_pettingzoo_openspiel_and_the_games():
    outside = [
        f"{found.path.relative_to(CLIENTS)}:{found.line}: {found.module}"
        for found in imports_of(CLIENTS, "arbiter_training")
        if found.module.split(".")[0] not in sys.stdlib_module_names
        and found.module.split(".")[0] not in ALLOWED
    ]
    assert outside == []
    assert any(found.module.startswith("pettingzoo") for found in imports_of(CLIENTS, "arbiter_training"))


def test_only_the_openspiel_module_imports_openspiel():
    """``import arbiter_training`` (PettingZoo) works without OpenSpiel installed."""
    importers = {
        found.path.relative_to(CLIENTS).as_posix()
        for found in imports_of(CLIENTS, "arbiter_training")
        if found.module.split(".")[0] in OPENSPIEL
    }
    assert importers == {"arbiter_training/openspiel_games.py"}
    # No other module of the package names it (``from . import openspiel_games`` included).
    others = (CLIENTS / "arbiter_training").rglob("*.py")
    naming = [p.name for p in others if p.name != "openspiel_games.py" and "openspiel_games" in p.read_text()]
    assert naming == []


@pytest.mark.parametrize("package", ["arbiter_games", "arbiter_wire", "arbiter_bot"])
def test_the_core_never_imports_the_training_libraries(package):
    assert violations(CLIENTS, package, TRAINING_LIBS) == []


def test_the_server_never_imports_the_training_libraries():
    assert violations(ROOT / "server", "arbiter", TRAINING_LIBS) == []
