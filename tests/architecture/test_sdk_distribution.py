"""The SDK is its own distribution: the games, the wire, the client and (behind the optional ``training``
extra) the training environments; nothing of the server."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from email.parser import Parser

from tests.conftest import ROOT


def test_the_sdk_wheel_holds_no_server_code_and_needs_no_server_library(tmp_path):
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(tmp_path),
            str(ROOT / "clients" / "python"),
        ],
        check=True,
        capture_output=True,
    )
    (wheel,) = tmp_path.glob("arbiter_bot-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        metadata_name = next(n for n in names if n.endswith(".dist-info/METADATA"))
        metadata = Parser().parsestr(archive.read(metadata_name).decode())
    top_level = {name.split("/")[0] for name in names if not name.split("/")[0].endswith(".dist-info")}
    assert top_level == {"arbiter_games", "arbiter_wire", "arbiter_bot", "arbiter_training"}
    assert "arbiter_wire/v1/bot_service_pb2.py" in names and "arbiter_bot/py.typed" in names

    def name(line: str) -> str:
        return line.split(";")[0].split(">")[0].split("=")[0].split("<")[0].strip().lower()

    requires = metadata.get_all("Requires-Dist")
    required = {name(line) for line in requires if "extra ==" not in line}
    assert required == {"grpcio", "protobuf", "googleapis-common-protos", "structlog"}
    # The training environments' libraries only with the optional extra.
    training = {name(line) for line in requires if 'extra == "training"' in line}
    assert training == {"pettingzoo", "gymnasium", "numpy"}
    openspiel = {name(line) for line in requires if 'extra == "openspiel"' in line}
    assert openspiel == {"open_spiel", "pettingzoo", "gymnasium", "numpy"}
    assert "arbiter_training/py.typed" in names and "arbiter_training/openspiel_games.py" in names
