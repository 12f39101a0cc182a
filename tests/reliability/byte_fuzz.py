"""Byte-level fuzzing of requests: mutated and random bytes as ``PlayRequest``s on a real call.

One arbiter (``ServerThread``, illegal actions refused with ``may_retry`` so that a match lives
long) hosts a match between the fuzzing bot and a helper bot that answers its own turns; the
valid requests mutated are the fuzzing bot's real requests (a legal Move for its pending turn,
Moves with other ids, Seeks, ladder requests). Each case is written as raw bytes (no client-side
serialization), then the connection is read up to a barrier. Invariants, per case:

- the arbiter answers: the barrier comes back, or the call ends;
- a call that ends does so with ``BAD_REQUEST`` (bytes that are no ``PlayRequest``) with its
  ErrorInfo as docs/protocol.md says, or ``RESOURCE_EXHAUSTED`` without ErrorInfo for a request
  over 64 KiB (the table's one refusal without ErrorInfo); then the bot connects again;
- every refusal in a message is in the table of docs/protocol.md (reason, code, way of arriving);
- no request makes the servicer fail (its ``request_failed`` log line, an exception it caught).
"""

from __future__ import annotations

import threading
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import arbiter.transport.servicer as servicer_module
import grpc
from arbiter.ladder.model import LadderConfig
from arbiter.match.match import MatchSetup
from arbiter_games.policy import ILLEGAL_REJECT, MatchPolicy
from arbiter_games.timecontrol import TimeControl
from arbiter_wire import convert
from arbiter_wire.limits import MAX_REQUEST_BYTES
from arbiter_wire.v1 import bot_service_pb2 as pb
from arbiter_wire.v1 import common_pb2 as cpb
from hypothesis import strategies as st

from .protocol_doc import check_call_end, check_message, error_info
from .sync_client import Ended, ServerThread, SyncBot

CONTROL = TimeControl(base=3600.0, increment=1.0)


class RecordingLog:
    """Stands for the servicer's logger: keeps what it logs with ``exception`` (a caught failure)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.failures: list[dict[str, Any]] = []
        self.lock = threading.Lock()

    def exception(self, event: str, **fields: Any) -> None:
        with self.lock:
            self.failures.append({"event": event, **fields})
        self.inner.exception(event, **fields)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


@dataclass
class FuzzFigures:
    cases: int = 0
    answered: Counter[str] = field(default_factory=Counter)
    call_ends: Counter[str] = field(default_factory=Counter)
    matches: int = 0
    #: Matches that ended while a call was ending, their MatchEnded lost to it (as documented).
    ends_missed: int = 0
    problems: list[str] = field(default_factory=list)


class FuzzTarget:
    """The arbiter, the fuzzing bot ``fz`` and its opponent ``fo`` in a live match."""

    def __init__(self) -> None:
        ladder = LadderConfig("fuzz-ladder", "torrent", {"size": 5}, CONTROL)
        self.server = ServerThread(
            ["fz", "fo"], control=CONTROL, policy=MatchPolicy(on_illegal=ILLEGAL_REJECT), ladders=[ladder]
        )
        self.log = RecordingLog(servicer_module.log)
        servicer_module.log = self.log
        self.figures = FuzzFigures()
        self.bot = self._connect()
        self.opponent = SyncBot(self.server.address, "fo", raw=True)
        assert isinstance(self.opponent.next(), pb.PlayResponse)
        self.answering = threading.Thread(target=self._answer_turns, args=(self.opponent,), daemon=True)
        self.answering.start()
        self.match_id = ""
        self.turn: pb.Turn | None = None
        self._new_match()

    def _connect(self, channel: grpc.Channel | None = None) -> SyncBot:
        bot = SyncBot(self.server.address, "fz", raw=True, channel=channel)
        first = bot.next()
        assert isinstance(first, pb.PlayResponse) and first.WhichOneof("kind") == "welcome", first
        welcome = first.welcome
        if self.__dict__.get("match_id") and self.match_id not in welcome.resumed_match_ids:
            # It ended, and its MatchEnded went to the call that was ending (protocol.md: such a
            # result is lost to that call) or comes after this Welcome: play a new one.
            self.figures.ends_missed += self.match_id not in welcome.ended_match_ids
            self.match_id, self.turn = "", None
        return bot

    def _new_match(self) -> None:
        game = ("torrent", {"size": 5}) if self.figures.matches % 2 == 0 else ("surge", {})

        async def start() -> str:
            setup = MatchSetup(game[0], game[1], {1: "fz", 2: "fo"}, control=CONTROL)
            return self.server.server.arbiter.start_match(setup).id

        self.match_id = self.server.call(start())
        self.figures.matches += 1
        self._read(self.bot.barrier())

    def _read(self, messages: list[pb.PlayResponse]) -> None:
        for message in messages:
            kind = message.WhichOneof("kind")
            self.figures.answered[kind] += 1
            for problem in check_message(message):
                self.figures.problems.append(f"case {self.figures.cases}: {problem}")
            if kind == "turn" and message.turn.match_id == self.match_id:
                self.turn = message.turn
            elif kind == "match_ended" and message.match_ended.match_id == self.match_id:
                self.turn = None
                self.match_id = ""

    @staticmethod
    def _answer_turns(opponent: SyncBot) -> None:
        """The opponent answers its turns at once (first legal action), on a thread of its own."""
        while True:
            message = opponent.next(timeout=3600)
            if isinstance(message, Ended):
                return
            if message.WhichOneof("kind") == "turn":
                turn = message.turn
                action = convert.action_to_pb(convert.legal_from_pb(turn.legal)[0])
                move = pb.Move(match_id=turn.match_id, turn_id=turn.turn_id, action=action)
                opponent.send(pb.PlayRequest(move=move))

    def valid_move(self) -> bytes:
        """A legal Move for the pending turn (so that the match goes on), unmutated."""
        return self.seeds()[0]

    def seeds(self) -> list[bytes]:
        """Valid requests of this moment, serialized: the material mutations start from."""
        turn = self.turn
        move = pb.Move(match_id=self.match_id, turn_id=turn.turn_id if turn else 1)
        if turn is not None:
            move.action.CopyFrom(convert.action_to_pb(convert.legal_from_pb(turn.legal)[-1]))
        else:
            move.action.flank.place.point = "e5"
        requests = [
            pb.PlayRequest(move=move),
            pb.PlayRequest(move=pb.Move(match_id=self.match_id, turn_id=999, action=move.action)),
            pb.PlayRequest(seek=pb.Seek(spec=convert.spec_to_pb("torrent", {"size": 5}), seek_id="s")),
            pb.PlayRequest(
                seek=pb.Seek(spec=cpb.GameSpec(game=cpb.GAME_SURGE), time_control=cpb.TimeControl())
            ),
            pb.PlayRequest(join_ladder=pb.JoinLadder(ladder="fuzz-ladder", max_concurrent=40)),
            pb.PlayRequest(challenge=pb.Challenge(ladder="fuzz-ladder", opponent="fo", challenge_id="c")),
            pb.PlayRequest(leave_ladder=pb.LeaveLadder(ladder="nope")),
        ]
        return [r.SerializeToString() for r in requests]

    def send(self, data: bytes) -> None:
        """One case: the bytes as a request, then everything up to the barrier (or the call's end)."""
        self.figures.cases += 1
        failures = len(self.log.failures)
        self.bot.send_bytes(data)
        try:
            self._read(self.bot.barrier())
        except EOFError:
            self._read(self.bot.before_end)
            self._ended(self.bot.ended, len(data))
            self.bot.close(keep_channel=True)
            self.bot = self._connect(self.bot.channel)  # a new call on the same connection
        if len(self.log.failures) > failures:
            failure = self.log.failures[-1]
            self.figures.problems.append(f"case {self.figures.cases}: the servicer failed: {failure}")
        if not self.match_id:
            self._new_match()

    def _ended(self, ended: Ended | None, size: int) -> None:
        assert ended is not None
        error = ended.error
        if error is None:
            self.figures.problems.append(f"case {self.figures.cases}: the call ended with OK")
            return
        if error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED and size > MAX_REQUEST_BYTES:
            self.figures.call_ends["RESOURCE_EXHAUSTED (over 64 KiB)"] += 1
            return
        reason, problems = check_call_end(error)
        self.figures.call_ends[reason or str(error.code())] += 1
        if reason != "BAD_REQUEST":
            problems.append(f"the call ended with {error.code()} {reason!r}: {error.details()}")
        self.figures.problems += [f"case {self.figures.cases} ({size} bytes): {p}" for p in problems]

    def alive(self) -> bool:
        """The arbiter still welcomes a new connection and answers it."""
        probe = SyncBot(self.server.address, "fo", raw=True)
        first = probe.next()
        self.answering.join(timeout=10)  # the opponent's call ended: replaced by the probe
        self.opponent.close()
        self.opponent = probe
        return isinstance(first, pb.PlayResponse) and first.WhichOneof("kind") == "welcome"

    def stop(self) -> None:
        servicer_module.log = self.log.inner
        for bot in (self.bot, self.opponent):
            bot.close()
        self.server.stop()


def mutated(target: FuzzTarget) -> st.SearchStrategy[bytes]:
    """The target's valid requests of the moment (its pending turn's legal Move among them), with
    0 to 4 mutations: bytes flipped, cut, inserted, repeated or set to special values."""

    @st.composite
    def mutate(draw: st.DrawFn) -> bytes:
        seeds = target.seeds()  # at each draw: the match goes on between cases
        data = bytearray(seeds[draw(st.integers(0, len(seeds) - 1))])
        draw(st.integers(0, 2**32))  # so that the same mutation of a newer request runs too
        for _ in range(draw(st.integers(0, 4))):
            # The same draws whatever the request's length (hypothesis must be able to replay).
            op = draw(st.sampled_from(["flip", "cut", "insert", "repeat", "set"]))
            at = draw(st.integers(0, 1 << 16)) % max(1, len(data))
            bit = draw(st.integers(0, 7))
            inserted = draw(st.binary(min_size=1, max_size=8))
            special = draw(st.sampled_from([0x00, 0x7F, 0x80, 0xFF, 0x08, 0x10, 0x12, 0x1A]))
            if op == "flip" and data:
                data[at] ^= 1 << bit
            elif op == "cut":
                data = data[:at]
            elif op == "insert":
                data[at:at] = inserted
            elif op == "repeat":
                data += data[at:]
            elif op == "set" and data:
                data[at] = special
        return bytes(data)

    return mutate()


def structured() -> st.SearchStrategy[bytes]:
    """Well-formed PlayRequests with arbitrary field values (ids, turn ids, texts, enums, sizes)."""
    text = st.text(max_size=40)
    action = st.one_of(
        st.builds(lambda p: pb.Action(flank=_flank_place(p)), text),
        st.builds(lambda v, s: pb.Action(surge=_surge_place(v, s)), st.integers(-(2**31), 2**31 - 1), text),
        st.just(pb.Action()),
    )
    move = st.builds(
        lambda m, t, a: pb.PlayRequest(move=pb.Move(match_id=m, turn_id=t, action=a)),
        text,
        st.integers(0, 2**64 - 1),
        action,
    )
    seek = st.builds(
        lambda g, size, seconds, nanos: pb.PlayRequest(
            seek=pb.Seek(
                spec=cpb.GameSpec(game=g, flank=cpb.FlankOptions(size=size)),
                time_control=cpb.TimeControl(base={"seconds": seconds, "nanos": nanos}),
            )
        ),
        st.integers(0, 5),
        st.integers(-(2**31), 2**31 - 1),
        st.integers(-(2**63), 2**63 - 1),
        st.integers(-(2**31), 2**31 - 1),
    )
    ladder = st.builds(
        lambda name, n: pb.PlayRequest(join_ladder=pb.JoinLadder(ladder=name, max_concurrent=n)),
        text,
        st.integers(0, 2**32 - 1),
    )
    return st.one_of(move, seek, ladder).map(lambda r: r.SerializeToString())


def _flank_place(point: str) -> Any:
    from arbiter_wire.v1 import flank_pb2

    return flank_pb2.FlankAction(place=flank_pb2.FlankPlace(point=point))


def _surge_place(value: int, square: str) -> Any:
    from arbiter_wire.v1 import surge_pb2

    return surge_pb2.SurgeAction(place=surge_pb2.SurgePlace(value=value, square=square))


def _oversized(extra: int) -> bytes:
    """A Move whose match id makes the request ``extra`` bytes longer than the 64 KiB limit."""
    size = MAX_REQUEST_BYTES + extra
    return pb.PlayRequest(move=pb.Move(match_id="x" * size)).SerializeToString()


def request_bytes(target: FuzzTarget) -> st.SearchStrategy[bytes]:
    """The target's legal move, mutations of its valid requests, well-formed odd requests,
    random bytes, and requests over the 64 KiB limit, in about equal shares."""
    return st.one_of(
        # A draw of its own: hypothesis runs each sequence of draws once, and the move changes.
        st.integers(0, 2**32).map(lambda _: target.valid_move()),
        mutated(target),
        structured(),
        st.binary(max_size=300),
        st.integers(1, 4096).map(_oversized),
    )


__all__ = ["FuzzFigures", "FuzzTarget", "error_info", "request_bytes"]
