"""At run time, the games import nothing beyond the standard library (bots can use them cheaply)."""

import subprocess
import sys

from tests.conftest import ROOT

PROBE = """
import sys
import arbiter_games.torrent, arbiter_games.fravan, arbiter_games.surge
from arbiter_games import get_game
for name in ("torrent", "fravan", "surge"):
    get_game(name).new_game()
stdlib = set(sys.stdlib_module_names)
outside = sorted({m.split(".")[0] for m in sys.modules} - stdlib - {"arbiter_games", "__main__"})
print(",".join(outside))
"""


def test_engines_need_only_the_standard_library():
    result = subprocess.run(
        [sys.executable, "-S", "-c", PROBE],
        env={"PYTHONPATH": str(ROOT / "clients" / "python")},
        capture_output=True,
        text=True,
        check=True,
    )
    assert result.stdout.strip() == ""
