"""The engines import nothing beyond the standard library (bots can use them cheaply)."""

import subprocess
import sys

from tests.conftest import ROOT

PROBE = """
import sys
import arbiter.engines.torrent, arbiter.engines.fravan, arbiter.engines.surge
from arbiter.engines import get_rules
for name in ("torrent", "fravan", "surge"):
    get_rules(name).new_game()
stdlib = set(sys.stdlib_module_names)
outside = sorted({m.split(".")[0] for m in sys.modules} - stdlib - {"arbiter", "__main__"})
print(",".join(outside))
"""


def test_engines_need_only_the_standard_library():
    result = subprocess.run(
        [sys.executable, "-S", "-c", PROBE],
        env={"PYTHONPATH": str(ROOT / "server")},
        capture_output=True,
        text=True,
        check=True,
    )
    assert result.stdout.strip() == ""
