"""A MatchEnded is never lost while a bot's session ends (docs/reliability.md, "A result is told
before the slot frees"): whatever was not written to its stream goes to the bot's next session or
its mailbox; a session that is ending takes no result."""

from __future__ import annotations

from arbiter.sessions.registry import SessionRegistry
from arbiter.sessions.session import BotSession
from arbiter_wire import reasons
from arbiter_wire.v1 import bot_service_pb2 as pb


def ended(match_id: str) -> pb.PlayResponse:
    return pb.PlayResponse(match_ended=pb.MatchEnded(match_id=match_id))


def turn(match_id: str) -> pb.PlayResponse:
    return pb.PlayResponse(turn=pb.Turn(match_id=match_id, turn_id=1))


def mail(registry: SessionRegistry, bot: str) -> list[str]:
    return [m.match_ended.match_id for m in registry.take_mail(bot)]


def test_a_result_for_a_session_that_is_ending_waits_in_the_mailbox():
    registry = SessionRegistry()
    session = registry.open("ann", "v1")
    session.close(reasons.RESOURCE_EXHAUSTED, "too much unread")  # still registered until its writer ends
    registry.send("ann", ended("m1"))
    assert mail(registry, "ann") == ["m1"]


def test_results_never_written_go_to_the_mailbox_when_the_session_ends():
    registry = SessionRegistry()
    session = registry.open("ann", "v1")
    registry.send("ann", turn("m1"))
    registry.send("ann", ended("m1"))
    registry.send("ann", ended("m2"))
    assert session.take() == turn("m1")  # the writer wrote the Turn, then the call broke
    registry.close(session)
    assert mail(registry, "ann") == ["m1", "m2"]


def test_a_result_the_writer_could_not_write_is_put_back_and_kept():
    registry = SessionRegistry()
    session = registry.open("ann", "v1")
    registry.send("ann", ended("m1"))
    item = session.take()
    session.put_back(item)  # its write raised: the call was cancelled
    registry.close(session)
    assert mail(registry, "ann") == ["m1"]


def test_a_replaced_session_hands_its_unwritten_results_to_the_new_one():
    registry = SessionRegistry()
    old = registry.open("ann", "v1")
    registry.send("ann", ended("m1"))
    new = registry.open("ann", "v1")  # the bot reconnected (the old connection may be dead)
    assert mail(registry, "ann") == ["m1"]
    registry.close(old)  # the old stream's writer ends later: nothing left to hand on twice
    assert mail(registry, "ann") == []
    assert registry.sessions["ann"] is new


def test_results_survive_an_outbox_dropped_for_overflow():
    registry = SessionRegistry()
    registry.sessions["ann"] = session = BotSession("ann", limit_bytes=50)
    registry.send("ann", ended("m1"))
    for _ in range(20):
        registry.send("ann", turn("m2"))  # more than 50 bytes unread: the outbox is dropped
    assert session.closed
    registry.close(session)
    assert mail(registry, "ann") == ["m1"]
