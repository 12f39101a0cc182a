"""Make the SDK importable without installing (the server path comes from tests/conftest.py)."""

import sys
from pathlib import Path

CLIENTS = Path(__file__).resolve().parents[2] / "clients" / "python"
if str(CLIENTS) not in sys.path:
    sys.path.insert(0, str(CLIENTS))
