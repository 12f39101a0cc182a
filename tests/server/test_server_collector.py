"""The server sets the garbage collector's youngest threshold (transport.server)."""

import asyncio
import gc

from arbiter.node import ArbiterConfig
from arbiter.sessions.auth import BotDirectory
from arbiter.transport.server import YOUNG_COLLECTION_THRESHOLD, create_server


def test_a_started_server_collects_young_objects_less_often() -> None:
    before = gc.get_threshold()
    gc.set_threshold(700, before[1], before[2])

    async def scenario() -> tuple[int, int, int]:
        server = await create_server(ArbiterConfig(bots=BotDirectory()))
        try:
            return gc.get_threshold()
        finally:
            await server.stop(grace=0.1)

    try:
        young, middle, oldest = asyncio.run(scenario())
    finally:
        gc.set_threshold(*before)
    assert young == YOUNG_COLLECTION_THRESHOLD > 700
    assert (middle, oldest) == before[1:]
