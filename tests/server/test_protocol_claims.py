"""What docs/protocol.md says about the wire, checked against the arbiter (and the docs against it)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import grpc
import pytest
from arbiter_games.hexflank import PASS, Place
from arbiter_games.policy import MatchPolicy
from arbiter_games.timecontrol import TimeControl
from arbiter_wire.reasons import reason_of
from grpc_status import rpc_status

from .raw_client import TOKENS, RawBot, running_server
from .test_answers import start_torrent

DOCS = Path(__file__).resolve().parents[2] / "docs"


class SchemeBot(RawBot):
    """A raw bot that sends ``authorization: <scheme> <token>``."""

    def __init__(self, address: str, scheme: str, token: str) -> None:
        from arbiter_wire.v1 import bot_service_pb2_grpc as pb_grpc

        self.channel = grpc.aio.insecure_channel(address)
        self.stub = pb_grpc.BotServiceStub(self.channel)
        self.call = self.stub.Play(metadata=(("authorization", f"{scheme} {token}"),))
        self.received = []


@pytest.mark.parametrize("scheme", ["bearer", "BEARER"])
def test_the_bearer_scheme_is_case_sensitive(scheme):
    async def scenario():
        async with running_server() as server:
            right = SchemeBot(server.address, "Bearer", TOKENS["alice"])
            welcome = await right.expect("welcome")
            await right.close()
            wrong = SchemeBot(server.address, scheme, TOKENS["bob"])
            with pytest.raises(grpc.aio.AioRpcError) as info:
                await wrong.next()
            await wrong.close()
            return welcome, info.value

    welcome, error = asyncio.run(scenario())
    assert welcome.bot_name == "alice"
    assert error.code() == grpc.StatusCode.UNAUTHENTICATED
    status = rpc_status.from_call(error)
    assert reason_of(status) == "BAD_TOKEN"
    # ErrorInfo is google.rpc.ErrorInfo, from google/rpc/error_details.proto.
    assert [d.type_url for d in status.details] == ["type.googleapis.com/google.rpc.ErrorInfo"]


def test_an_exact_repeat_of_the_final_move_is_acknowledged():
    async def scenario():
        async with running_server() as server:
            alice, bob, match_id = await start_torrent(server)
            turn = await alice.expect("turn")
            await alice.move(match_id, turn.turn_id, Place("e5"))
            turn = await bob.expect("turn")
            await bob.move(match_id, turn.turn_id, PASS)
            turn = await alice.expect("turn")
            await alice.move(match_id, turn.turn_id, PASS)  # two passes: the final move
            ended = await alice.expect("match_ended")
            await alice.move(match_id, turn.turn_id, PASS)  # the same final move again
            acknowledged = await alice.expect("move_acknowledged")
            await alice.move(match_id, turn.turn_id, Place("d5"))  # another answer to it
            stale = await alice.expect("move_rejected")
            await alice.close()
            await bob.close()
            return turn.turn_id, ended, acknowledged, stale

    turn_id, ended, acknowledged, stale = asyncio.run(scenario())
    assert ended.result.reason != 0
    assert (acknowledged.match_id, acknowledged.turn_id) == (ended.match_id, turn_id)
    assert reason_of(stale.status) == "STALE_TURN"


def test_a_seat_out_of_time_under_default_action_still_gets_turns_with_limit_zero():
    async def scenario():
        control = TimeControl(base=0.3, increment=0.0)
        policy = MatchPolicy(on_timeout="default_action")
        async with running_server(control=control, policy=policy) as server:
            alice, bob, match_id = await start_torrent(server)
            turn = await alice.expect("turn")
            await alice.move(match_id, turn.turn_id, Place("e5"))
            first = await bob.expect("turn")  # bob never answers: his 0.3 s run out
            expired = await bob.expect("move_rejected")
            turn = await alice.expect("turn")  # the arbiter passed for bob
            await alice.move(match_id, turn.turn_id, Place("d5"))
            second = await bob.expect("turn")
            await alice.close()
            await bob.close()
            return first, expired, second

    first, expired, second = asyncio.run(scenario())
    assert reason_of(expired.status) == "CLOCK_EXPIRED"
    assert first.decision_limit.ToTimedelta().total_seconds() == pytest.approx(0.3)
    assert second.HasField("decision_limit")
    assert second.decision_limit.ToTimedelta().total_seconds() == 0


def test_the_docs_say_so():
    protocol = (DOCS / "protocol.md").read_text(encoding="utf-8")
    running = (DOCS / "running.md").read_text(encoding="utf-8")
    assert "google/rpc/error_details.proto" in protocol
    assert "case-sensitive" in protocol
    assert "decision_limit` 0" in protocol or "decision_limit: 0" in protocol
    assert "final move" in protocol
    for page in (protocol, running):
        assert "listening on HOST:PORT" in page
