"""`bots disable` and `bots rotate` end the open calls of that bot (docs/reliability.md, "Disable
and rotate end open calls"): the CLI changes only the store, and the running arbiter notices it
at its next credential check. Over the real protocol, on a SQLite store."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import grpc
from arbiter.ladder.model import LadderConfig
from arbiter.node import ArbiterConfig
from arbiter.sessions.auth import BotDirectory
from arbiter_games.timecontrol import TimeControl
from arbiter_wire.reasons import reason_of
from grpc_status import rpc_status

from tests.ladder.harness import LadderBot, eventually, ladder_lab

#: Quick matches: a bot that goes away loses its turns within a second.
QUICK = LadderConfig("quick", "torrent", {"size": 5}, TimeControl(base=10.0, per_decision=1.0))
#: The check interval these tests run with (the default is 1 s).
CHECK = 0.2


def checked_often(config: ArbiterConfig) -> None:
    config.credential_check = CHECK


def sqlite(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'arbiter.db'}"


def refusal(error: BaseException) -> tuple[object, str | None]:
    assert isinstance(error, grpc.aio.AioRpcError), repr(error)
    return error.code(), reason_of(rpc_status.from_call(error))


async def ended(bot: LadderBot, task: asyncio.Task[None], timeout: float = 15.0) -> tuple[object, str | None]:
    """The status code and reason the call of a bot's autoplay ended with (it must end)."""
    done, _ = await asyncio.wait({task}, timeout=timeout)
    assert done, "the bot's call is still open"
    assert task.exception() is not None
    status = await rpc_status.aio.from_call(bot.call)
    return await bot.call.code(), None if status is None else reason_of(status)


def test_disable_ends_the_open_call_and_the_bot_is_never_scheduled_again(tmp_path):
    async def scenario() -> None:
        async with ladder_lab(
            sqlite(tmp_path), ["ann", "ben", "cat"], [QUICK], configure=checked_often
        ) as lab:
            bots = {name: await lab.connect(name) for name in ("ann", "ben", "cat")}
            # ann stops answering before she is disabled: grpcio's asyncio client reports
            # INTERNAL "Internal error from Core" instead of the server's status when a write
            # meets the end of the call (grpc/grpc#36066), and this checks what the server sent.
            answering = {"ann": True}

            def answers(name: str) -> Callable[[int], bool]:
                return lambda _: answering.get(name, True)

            plays = {name: asyncio.create_task(bot.autoplay(answers(name))) for name, bot in bots.items()}
            for bot in bots.values():
                await bot.join(QUICK.name, max_concurrent=2)
            await lab.watch.until(lambda w: len(w.started_for("ann")) >= 2)
            answering["ann"] = False
            await asyncio.sleep(0.3)  # a move already being written is written
            lab.store.set_bot_enabled("ann", False)  # what `arbiter bots disable ann` does
            code, reason = await ended(bots["ann"], plays["ann"])
            assert (code, reason) == (grpc.StatusCode.PERMISSION_DENIED, "BOT_DISABLED")
            had = len(lab.watch.started_for("ann"))
            assert "ann" not in lab.arbiter.sessions.sessions
            # ben and cat go on playing; ann gets no match from now on.
            count = len(lab.watch.started)
            await lab.watch.until(lambda w: len(w.started) >= count + 4, timeout=60.0)
            assert len(lab.watch.started_for("ann")) == had
            again = await lab.connect("ann", welcome=False)
            assert refusal(await again.status_at_end()) == (grpc.StatusCode.PERMISSION_DENIED, "BOT_DISABLED")
            for task in plays.values():
                task.cancel()

    asyncio.run(scenario())


def test_rotate_ends_the_calls_of_the_old_token_and_keeps_the_new_one(tmp_path):
    async def scenario() -> None:
        async with ladder_lab(sqlite(tmp_path), ["ann", "ben"], [QUICK], configure=checked_often) as lab:
            stolen = await lab.connect("ann")
            lab.tokens["ann"] = lab.store.rotate_token("ann")  # `arbiter bots rotate ann`
            code, reason = refusal(await stolen.status_at_end(timeout=15.0))
            assert (code, reason) == (grpc.StatusCode.UNAUTHENTICATED, "BAD_TOKEN")
            await eventually(lambda: "ann" not in lab.arbiter.sessions.sessions)
            fresh = await lab.connect("ann")
            assert fresh.welcome.bot_name == "ann"
            # Checks go on; the session of the new token is left alone.
            checks = lab.arbiter.credentials.checks
            await eventually(lambda: lab.arbiter.credentials.checks >= checks + 3, timeout=15.0)
            session = lab.arbiter.sessions.sessions.get("ann")
            assert session is not None and not session.closed
            await fresh.join(QUICK.name)
            assert (await fresh.expect("ladder_joined")).ladder == QUICK.name

    asyncio.run(scenario())


def test_the_check_interval_is_a_serve_option_with_a_default():
    from arbiter.sessions.revocation import CREDENTIAL_CHECK

    assert ArbiterConfig(bots=BotDirectory()).credential_check == CREDENTIAL_CHECK == 1.0
