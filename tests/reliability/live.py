"""A real arbiter on a real gRPC port for the fault harnesses, with as many bots as they need."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterable, Sequence

from arbiter.ladder.model import LadderConfig
from arbiter.node import Arbiter, ArbiterConfig
from arbiter.security.ratelimit import RateLimits
from arbiter.sessions.auth import BotDirectory
from arbiter.transport.server import RunningServer, create_server
from arbiter_games.policy import MatchPolicy
from arbiter_games.timecontrol import TimeControl


def token_of(name: str) -> str:
    return f"token-{name}"


@contextlib.asynccontextmanager
async def live_server(
    names: Iterable[str],
    control: TimeControl | None = None,
    policy: MatchPolicy | None = None,
    ladders: Sequence[LadderConfig] = (),
    rate_limits: RateLimits | None = None,
) -> AsyncIterator[RunningServer]:
    """An in-process arbiter (``create_server``: the same servicer, sessions and hosting as
    ``arbiter serve``, without a store; ``ladders`` run in memory) listening on a free port,
    knowing ``names`` with the tokens ``token-NAME``.

    Rate limits are off unless ``rate_limits`` is given: the harnesses send requests in bursts no
    bot needs (the fuzzers' probes, reconnect storms), and the limits have their own tests
    (tests/security/)."""
    bots = BotDirectory()
    for name in names:
        bots.add(name, token_of(name))
    config = ArbiterConfig(
        bots=bots,
        default_control=control or TimeControl(base=60.0, increment=1.0),
        policy=policy or MatchPolicy(),
        rate_limits=rate_limits or RateLimits.off(),
    )
    server = await create_server(config, arbiter=Arbiter(config, ladders=ladders))
    try:
        yield server
    finally:
        await server.stop(grace=0.5)
