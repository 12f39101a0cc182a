"""Fuzzing the protocol: byte-level cases, and the stateful machine, against a real call.

    python bench/fuzz.py [--cases 100000] [--stateful 0] [--seed 1]

--cases N: N byte-level cases (tests/reliability/byte_fuzz.py): hypothesis draws request bytes
(mutations of the bot's valid requests of the moment, well-formed requests with odd values,
random bytes, now and then one over 64 KiB), each written as it is on a live Play call of an
in-process arbiter, then read up to a barrier. Prints progress and the rate, then what came back
(by message kind and by the status that ended calls); exits 1 on any crash or undocumented refusal.
Ctrl-C stops it early and still prints the figures of the cases run.

--stateful N: N examples of the stateful machine (tests/reliability/protocol_machine.py), 50
steps each, with fresh randomness (the suite runs 30 derandomized ones).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent.parent / d) for d in ("", "server", "clients/python")]

from arbiter.logging_setup import configure_logging  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import seed as seed_  # noqa: E402
from hypothesis.stateful import run_state_machine_as_test  # noqa: E402

from tests.reliability.byte_fuzz import FuzzTarget, request_bytes  # noqa: E402
from tests.reliability.protocol_machine import ProtocolMachine, shared, stop_shared  # noqa: E402


def bytes_fuzz(cases: int, seed: int) -> int:
    target = FuzzTarget()
    started = time.monotonic()
    step = max(1, cases // 20)

    @settings(max_examples=cases, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(data=request_bytes(target))
    def case(data: bytes) -> None:
        target.send(data)
        figures = target.figures
        if figures.cases % step == 0:
            rate = figures.cases / (time.monotonic() - started)
            print(f"  {figures.cases} cases, {rate:.0f}/s, {len(figures.problems)} problems", flush=True)
        assert not figures.problems, figures.problems[:5]

    interrupted = False
    try:
        try:
            seed_(seed)(case)()
        except KeyboardInterrupt:
            interrupted = True  # Ctrl-C: report the cases run so far
        alive = target.alive()
    finally:
        target.stop()
    figures = target.figures
    seconds = time.monotonic() - started
    stopped = " (interrupted)" if interrupted else ""
    print(f"cases: {figures.cases}{stopped} in {seconds:.0f} s ({figures.cases / seconds:.0f}/s)")
    print(f"messages back: {dict(sorted(figures.answered.items()))}")
    print(f"calls ended (then connected again): {dict(sorted(figures.call_ends.items()))}")
    print(f"matches played alongside: {figures.matches} ({figures.ends_missed} ends lost to a closing call)")
    print(f"servicer failures: {len(target.log.failures)}")
    print(f"problems: {len(figures.problems)}; the arbiter answers a new connection afterwards: {alive}")
    for problem in figures.problems[:20]:
        print(f"  {problem}")
    return 0 if alive and not interrupted and not figures.problems and not target.log.failures else 1


def stateful(examples: int) -> int:
    started = time.monotonic()
    try:
        run_state_machine_as_test(
            ProtocolMachine,
            settings=settings(
                max_examples=examples,
                stateful_step_count=50,
                deadline=None,
                database=None,
                suppress_health_check=[HealthCheck.too_slow],
            ),
        )
        stats = dict(sorted(shared().stats.items()))
    finally:
        stop_shared()
    print(f"stateful: {examples} examples in {time.monotonic() - started:.0f} s, no failure")
    print(f"requests by expected answer: {stats}")
    return 0


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--cases", type=int, default=100_000)
    parser.add_argument("--stateful", type=int, default=0, help="examples of the stateful machine")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    configure_logging("error")
    status = 0
    if args.cases:
        status |= bytes_fuzz(args.cases, args.seed)
    if args.stateful:
        status |= stateful(args.stateful)
    sys.exit(status)


if __name__ == "__main__":
    main()
