#!/usr/bin/env bash
# A py-spy profile of the arbiter while bench/concurrency.py plays against it.
#   bench/profile_arbiter.sh OUT [concurrency.py options]   (e.g. OUT --matches 200 --games 3)
# Starts the benchmark, waits for its `arbiter serve` process, lets it warm up for 8 s, then
# samples it for 20 s (200 samples/s, without stopping it: --nonblocking). Writes OUT.raw
# (py-spy's collapsed stacks) and OUT.bench (the benchmark's output); prints the shares
# (bench/spy_shares.py). PY_SPY_FLAGS=--native also samples the C frames (then it stops the
# process for each sample: slower, and py-spy refuses --nonblocking with it, so it is left out).
# It also prints the CPU time the arbiter's threads used in those 20 s, by thread name (from
# /proc: gRPC's own threads, which py-spy does not see, included; "other Python threads" are
# gRPC's poller, which hands completions to the loop, and the records writer). PY_SPY=none: no
# sampling, only that.
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
# Each thread's name and CPU ticks (user + system) so far.
ticks() {
  [ -d /proc/"$pid"/task ] || return 0
  for task in /proc/"$pid"/task/*; do
    echo "$(basename "$task") $(tr ' ' '_' <"$task/comm") $(awk '{print $14 + $15}' "$task/stat")"
  done 2>/dev/null | sort
}
sleep 8
ticks >"$out.ticks0"
if [ "$spy" = none ]; then
  sleep 20
else
  "$spy" record -p "$pid" -d 20 -r 200 -f raw -o "$out.raw" $blocking -t $flags >/dev/null 2>&1
fi
ticks >"$out.ticks1"
wait "$bench"
cat "$out.bench"
hz=$(getconf CLK_TCK)
echo "CPU seconds by thread name in the sampled window (the arbiter's process):"
[ -s "$out.ticks1" ] || echo "  (none: the arbiter had stopped before the 20 s were over; play more games)"
join "$out.ticks0" "$out.ticks1" | awk -v hz="$hz" -v pid="$pid" '
  { name = $1 == pid ? "main thread (the event loop)" : $2 == "python" ? "other Python threads" : $2
    used[name] += $5 - $3; threads[name]++; total += $5 - $3 }
  END { for (name in used) printf "%8.2f s  %5.1f%%  %s (%d threads)\n", used[name] / hz, 100 * used[name] / total, name, threads[name]
        printf "%8.2f s  total\n", total / hz }' | sort -rn
[ "$spy" = none ] || "$python" "$here/spy_shares.py" "$out.raw"
