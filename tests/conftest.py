"""Shared test setup: make the server package importable without installing."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "server"))
sys.path.insert(0, str(ROOT / "clients" / "python"))
VECTORS = ROOT / "tests" / "vectors"
