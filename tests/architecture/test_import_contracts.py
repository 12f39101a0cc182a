"""The layers stay where they are: each package imports only what its place allows.

- the games: only the standard library (and themselves);
- the wire: the games, protobuf and the generated code; nothing of the server;
- the SDK: the games, the wire, grpc; nothing of the server;
- the match: the games only (no grpc, no protobuf, no generated code, no transport);
- the lobby, hosting, the cluster and the workers: no grpc and no protobuf; the workers not the
  node that builds them;
- the events' formats and standings: pure (the standard library's data types, networkx, the games).
"""

from __future__ import annotations

import sys

import pytest

from tests.architecture.imports import imports_of, violations
from tests.conftest import ROOT

CLIENTS = ROOT / "clients" / "python"
SERVER = ROOT / "server"
WIRE_LIBS = ("grpc", "google", "arbiter_wire")
SERVER_PACKAGE = ("arbiter",)


def test_games_import_only_the_standard_library_and_themselves():
    outside = [
        f"{found.path.relative_to(CLIENTS)}:{found.line}: {found.module}"
        for found in imports_of(CLIENTS, "arbiter_games")
        if found.module.split(".")[0] not in sys.stdlib_module_names
        and found.module.split(".")[0] != "arbiter_games"
    ]
    assert outside == []


@pytest.mark.parametrize("package", ["arbiter_wire", "arbiter_bot"])
def test_the_sdk_and_the_wire_import_nothing_of_the_server(package):
    assert violations(CLIENTS, package, SERVER_PACKAGE) == []


def test_the_wire_needs_no_grpc_outside_the_generated_stubs():
    found = violations(CLIENTS, "arbiter_wire", ("grpc",))
    assert [line for line in found if not line.split(":")[0].endswith("_pb2_grpc.py")] == []


def test_the_match_imports_no_grpc_no_protobuf_and_no_other_layer():
    forbidden = (
        *WIRE_LIBS,
        "arbiter.transport",
        "arbiter.sessions",
        "arbiter.hosting",
        "arbiter.lobby",
        "arbiter.node",
    )
    assert violations(SERVER, "arbiter/match", forbidden) == []


@pytest.mark.parametrize(
    "package", ["arbiter/lobby", "arbiter/hosting", "arbiter/cluster", "arbiter/workers"]
)
def test_lobby_and_hosting_speak_no_wire(package):
    assert violations(SERVER, package, (*WIRE_LIBS, "arbiter.transport")) == []


def test_the_workers_do_not_import_the_node_that_imports_them():
    """``node.py`` builds the worker role; the role sees the node only through the ``Node``
    protocol of ``workers/role.py`` (arrows point down), not even for type checking."""
    assert violations(SERVER, "arbiter/workers", ("arbiter.node",)) == []


#: What the event code may import: it is pure (no I/O, no clock, no logging), so the hosting calls it.
EVENTS_MAY_IMPORT = (
    "__future__", "collections", "dataclasses", "enum", "math", "typing", "networkx",
    "arbiter_games", "arbiter.events",
)  # fmt: skip


def test_the_event_code_is_pure():
    outside = [
        f"{found.path.relative_to(SERVER)}:{found.line}: {found.module}"
        for found in imports_of(SERVER, "arbiter/events")
        if not any(found.module == name or found.module.startswith(name + ".") for name in EVENTS_MAY_IMPORT)
    ]
    assert outside == []


def test_the_checker_sees_a_forbidden_import_anywhere_in_a_module(tmp_path):
    """The contracts above would fail on a new forbidden import, also one inside a function."""
    package = tmp_path / "arbiter" / "match"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "clean.py").write_text("from arbiter_games import get_game\n")
    (package / "sneaky.py").write_text(
        "def later():\n    from ..transport import encode\n    import grpc.aio\n    return encode, grpc\n"
    )
    found = violations(tmp_path, "arbiter/match", ("grpc", "arbiter.transport"))
    assert found == ["arbiter/match/sneaky.py:2: arbiter.transport", "arbiter/match/sneaky.py:3: grpc.aio"]
