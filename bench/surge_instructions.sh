#!/usr/bin/env bash
# Instructions per random Surge game (callgrind counts; stable where wall-clock time drifts).
#   bench/surge_instructions.sh [apply|inplace]
# Runs the engine benchmark's Surge workload for 300 and for 600 games under valgrind and prints
# the difference divided by 300: the marginal cost of one game, start-up excluded.
set -euo pipefail
mode=${1:-apply}
here=$(cd "$(dirname "$0")" && pwd)
python=${PYTHON:-python3}
count() {
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$python" "$here/surge_games.py" "$1" "$mode" 2>&1 \
    | awk '/Collected/ {print $4}'
}
a=$(count 300)
b=$(count 600)
echo "surge ($mode): $(( (b - a) / 300 )) instructions/game"
