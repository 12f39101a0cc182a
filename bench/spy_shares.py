"""Shares of a py-spy profile (``py-spy record -f raw``), by function, inclusive and self.

    python bench/spy_shares.py FILE [--top N]

``FILE`` holds py-spy's collapsed stacks ("thread;frame;frame... count" per line). Prints each
thread's share of the samples, then the functions (name and file, line numbers dropped) by the
share of samples with the function anywhere on the stack (inclusive) and at its top (self).
bench/profile_arbiter.sh records such a file from the arbiter that bench/concurrency.py starts.
"""

from __future__ import annotations

import argparse
import collections
import re

_LINE = re.compile(r" \((.*?):\d+\)")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("file")
    parser.add_argument("--top", type=int, default=40)
    args = parser.parse_args()
    inclusive: collections.Counter[str] = collections.Counter()
    own: collections.Counter[str] = collections.Counter()
    threads: collections.Counter[str] = collections.Counter()
    total = 0
    with open(args.file) as lines:
        for line in lines:
            stack, _, count_text = line.rstrip().rpartition(" ")
            if not stack:
                continue
            count = int(count_text)
            thread, *frames = stack.split(";")
            total += count
            threads[thread] += count
            names = [_LINE.sub(r" (\1)", frame) for frame in frames]
            for name in set(names):
                inclusive[name] += count
            if names:
                own[names[-1]] += count
    print(f"{total} samples")
    for thread, count in threads.most_common(8):
        print(f"{count / total:6.1%}  {thread}")
    print("--- inclusive")
    for name, count in inclusive.most_common(args.top):
        print(f"{count / total:6.1%}  {name}")
    print("--- self")
    for name, count in own.most_common(args.top // 2):
        print(f"{count / total:6.1%}  {name}")


if __name__ == "__main__":
    main()
