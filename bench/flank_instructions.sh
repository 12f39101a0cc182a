#!/usr/bin/env bash
# Instructions per Torrent-7 ply (callgrind counts; stable where wall-clock time drifts).
#   bench/flank_instructions.sh [apply|observe|turn-pb|turn-wire]
# (turn-pb|turn-wire: through Match.submit and the transport's encoding; see flank_games.py.)
# Runs bench/flank_games.py for 10 and for 30 games under valgrind and prints the difference
# divided by the difference in plies: the marginal cost of one ply, start-up excluded.
# FEW=2 MANY=6 (say) plays fewer games (the turn-* modes are slow under valgrind).
set -euo pipefail
mode=${1:-observe}
here=$(cd "$(dirname "$0")" && pwd)
python=${PYTHON:-python3}
count() {
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$python" "$here/flank_games.py" "$1" "$mode" 2>&1 \
    | awk '/Collected/ {c = $4} /^[0-9]+$/ {p = $1} END {print c, p}'
}
read -r a pa < <(count "${FEW:-10}")
read -r b pb < <(count "${MANY:-30}")
echo "torrent-7 ($mode): $(( (b - a) / (pb - pa) )) instructions/ply"
