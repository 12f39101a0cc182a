"""What a login costs, and what the limits let one address spend (docs/accounts.md, "Limits").

    python bench/logins.py [--rounds 20]

Times ``hash_password`` (a sign-up) and ``verify`` (a login, right or wrong; an unknown name
checks the decoy hash) with argon2-cffi's default parameters, the median and the slowest of
``--rounds``; then, over the real app (FastAPI's TestClient, SQLite in a temporary directory),
the time of a whole ``POST /login`` and how many attempts one address gets through at once
before the limit answers 429, with the CPU seconds those took.
"""

from __future__ import annotations

import argparse
import re
import statistics
import tempfile
import time
from pathlib import Path

from arbiter.security.passwords import hash_password, verify
from arbiter.store import SqlStore
from arbiter.web.accounts import AccountSettings
from arbiter.web.app import create_app
from fastapi.testclient import TestClient

PASSWORD = "correct horse battery"


def timed(call: object, rounds: int) -> list[float]:
    assert callable(call)
    times = []
    for _ in range(rounds):
        began = time.perf_counter()
        call()
        times.append(time.perf_counter() - began)
    return times


def show(what: str, times: list[float]) -> None:
    print(
        f"{what:<34} median {statistics.median(times) * 1000:7.1f} ms   slowest {max(times) * 1000:7.1f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    rounds = parser.parse_args().rounds
    stored = hash_password(PASSWORD)
    show("hash (a sign-up)", timed(lambda: hash_password(PASSWORD), rounds))
    show("verify, right password", timed(lambda: verify(stored, PASSWORD), rounds))
    show("verify, wrong password", timed(lambda: verify(stored, "wrong"), rounds))
    show("verify, unknown name (decoy)", timed(lambda: verify(None, PASSWORD), rounds))
    with tempfile.TemporaryDirectory() as folder:
        store = SqlStore(f"sqlite:///{Path(folder) / 'arbiter.db'}")
        store.upgrade()
        store.add_account("alice", stored)
        client = TestClient(
            create_app(store, accounts=AccountSettings(signup="closed")), follow_redirects=False
        )
        found = re.search(r'name="csrf" value="([^"]+)"', client.get("/login").text)
        assert found is not None
        form = {"csrf": found.group(1), "password": "wrong password"}
        answers: list[int] = []
        times: list[float] = []
        cpu = time.process_time()
        while not answers or answers[-1] != 429:
            began = time.perf_counter()
            # A different name each time: only the per-address limit stops them.
            answers.append(client.post("/login", data={**form, "name": f"guess{len(answers)}"}).status_code)
            times.append(time.perf_counter() - began)
        cpu = time.process_time() - cpu
        show("POST /login, wrong password", times[:-1])
        print(f"attempts from one address before 429: {len(answers) - 1} ({cpu:.2f} s of CPU in all)")
        store.close()


if __name__ == "__main__":
    main()
