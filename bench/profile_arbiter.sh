#!/usr/bin/env bash
# A py-spy profile of the arbiter while bench/concurrency.py plays against it.
#   bench/profile_arbiter.sh OUT [concurrency.py options]   (e.g. OUT --matches 200 --games 3)
# Starts the benchmark, waits for its `arbiter serve` process, lets it warm up for 8 s, then
# samples it for 20 s (200 samples/s, without stopping it: --nonblocking). Writes OUT.raw
# (py-spy's collapsed stacks) and OUT.bench (the benchmark's output); prints the shares
# (bench/spy_shares.py). PY_SPY_FLAGS=--native also samples the C frames (then it stops the
# process for each sample: slower, and py-spy refuses --nonblocking with it, so it is left out).
set -euo pipefail
out=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
python=${PYTHON:-python3}
spy=${PY_SPY:-py-spy}
flags=${PY_SPY_FLAGS:-}
blocking=--nonblocking
[[ "$flags" == *--native* ]] && blocking=
"$python" "$here/concurrency.py" "$@" >"$out.bench" 2>&1 &
bench=$!
pid=
for _ in $(seq 120); do
  pid=$(pgrep -P "$bench" -f "arbiter.cli serve" | head -1 || true)
  [ -n "$pid" ] && break
  sleep 1
done
[ -n "$pid" ] || { echo "no arbiter process appeared" >&2; exit 1; }
sleep 8
"$spy" record -p "$pid" -d 20 -r 200 -f raw -o "$out.raw" $blocking -t $flags >/dev/null 2>&1
wait "$bench"
cat "$out.bench"
"$python" "$here/spy_shares.py" "$out.raw"
