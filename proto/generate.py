"""Generate the Python code for proto/arbiter/v1 into clients/python/arbiter_wire/v1 (committed).

    python proto/generate.py [--check]

With --check, generate into a temporary folder and exit 1 if the committed code differs.

protoc names the modules after the proto package (``arbiter.v1``); the generated imports are
rewritten to the Python package that ships them, ``arbiter_wire.v1``.
"""

from __future__ import annotations

import argparse
import filecmp
import os
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROTO = ROOT / "proto"
TARGET = ROOT / "clients" / "python" / "arbiter_wire" / "v1"


def include_dirs() -> list[str]:
    import google.rpc.status_pb2 as status
    import grpc_tools

    googleapis = Path(status.__file__).resolve().parent.parent.parent
    return [str(PROTO), str(googleapis), str(Path(grpc_tools.__file__).parent / "_proto")]


def generate(out: Path) -> list[Path]:
    from grpc_tools import protoc

    files = sorted(str(p.relative_to(PROTO)) for p in (PROTO / "arbiter" / "v1").glob("*.proto"))
    args = ["protoc", *(f"-I{d}" for d in include_dirs())]
    args += [f"--python_out={out}", f"--pyi_out={out}", f"--grpc_python_out={out}", *files]
    cwd = os.getcwd()
    os.chdir(PROTO)
    try:
        if protoc.main(args) != 0:
            raise SystemExit("protoc failed")
    finally:
        os.chdir(cwd)
    generated = sorted((out / "arbiter" / "v1").glob("*.py*"))
    for path in generated:
        text = path.read_text(encoding="utf-8")
        text = text.replace("from arbiter.v1 import", "from arbiter_wire.v1 import")
        path.write_text(text, encoding="utf-8")
    return generated


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--check", action="store_true", help="only compare with the committed code")
    args = parser.parse_args()
    target = TARGET
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        (out / "arbiter" / "v1").mkdir(parents=True)
        generated = generate(out)
        names = [p.name for p in generated]
        if args.check:
            stale = [
                n
                for n in names
                if not (target / n).exists()
                or not filecmp.cmp(out / "arbiter" / "v1" / n, target / n, shallow=False)
            ]
            if stale:
                print("generated code is stale: run python proto/generate.py", stale, file=sys.stderr)
                raise SystemExit(1)
            print("generated code is up to date")
            return
        target.mkdir(parents=True, exist_ok=True)
        for name in names:
            shutil.copyfile(out / "arbiter" / "v1" / name, target / name)
        (target / "__init__.py").write_text(
            '"""Generated from proto/arbiter/v1 by proto/generate.py; do not edit."""\n'
        )
        print(f"wrote {len(names)} files to {target.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
