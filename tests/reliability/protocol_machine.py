"""Stateful fuzzing of the protocol: two raw clients, random valid and invalid requests, a model.

``ProtocolMachine`` is a hypothesis ``RuleBasedStateMachine``. Each example takes two fresh bots
(so nothing of an earlier example reaches it) on one shared arbiter (``ServerThread``: the real
servicer on a real port, illegal actions refused with ``may_retry``, a ladder in memory, and one
match between two bots that never connect, whose id stands for "another match"). Its rules send
seeks (paired and refused), valid moves, moves for the other seat, stale and never-issued turn
ids, exact replays of old moves, illegal and malformed actions, moves for unknown matches and for
the other match, ladder requests that must be refused, reconnects and replacing connections.

After every rule both bots are read up to a barrier (``SyncBot.barrier``), and what each received
must be exactly what the model predicts, message for message, from docs/protocol.md and the
engines: the model plays each match through ``arbiter_games`` (the seed of a Surge match is read
from the arbiter when it starts, so the model knows the draws), so every Turn's id, seat,
observation and legal actions and every MatchEnded's result are checked; every refusal's status
must be in the errors table of docs/protocol.md with its code and way of arriving
(``protocol_doc``).
"""

from __future__ import annotations

import hashlib
import random
import secrets
from dataclasses import dataclass, field
from itertools import count
from typing import Any

import arbiter.match.match as match_module
from arbiter.ladder.model import LadderConfig
from arbiter_games import get_game
from arbiter_games.policy import ILLEGAL_REJECT, MatchPolicy
from arbiter_games.timecontrol import TimeControl
from arbiter_wire import convert
from arbiter_wire.v1 import bot_service_pb2 as pb
from arbiter_wire.v1 import common_pb2 as cpb
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from .engine_check import check_result
from .protocol_doc import check_call_end, check_message, reason_of
from .sync_client import Ended, ServerThread, SyncBot

CONTROL = TimeControl(base=600.0, increment=1.0)
GAMES: tuple[tuple[str, dict[str, int]], ...] = (
    ("torrent", {"size": 5}),
    ("fravan", {"size": 5}),
    ("surge", {}),
)
LADDER = "fuzz-t5"
#: Bots per example: two, fresh each time; the pool is registered with the arbiter up front.
POOL = 4000


class Shared:
    """The arbiter shared by the examples of a run, and the next free pair of bot names."""

    def __init__(self) -> None:
        names = [f"z{i}" for i in range(POOL)] + ["other1", "other2"]
        ladder = LadderConfig(LADDER, "torrent", {"size": 5}, CONTROL)
        self.server = ServerThread(
            names, control=CONTROL, policy=MatchPolicy(on_illegal=ILLEGAL_REJECT), ladders=[ladder]
        )
        self.pairs = count(0, 2)
        # The test hook: seeds for the matches the machine starts come from the machine (a replayed
        # example must meet the same Surge draws), the rest from the arbiter's own ``secrets``.
        self.seeds = SeedSource()
        setattr(match_module, "secrets", self.seeds)  # noqa: B010 - the module's name for it
        self.other_match = self.server.call(self._start_other())
        #: Counts over the whole run, for the bench's report.
        self.stats: dict[str, int] = {}

    async def _start_other(self) -> str:
        from arbiter.match.match import MatchSetup

        setup = MatchSetup("torrent", {"size": 5}, {1: "other1", 2: "other2"}, control=CONTROL)
        return self.server.server.arbiter.start_match(setup).id

    def seed_of(self, match_id: str) -> bytes:
        async def seed() -> bytes:
            match = self.server.server.arbiter.hosting.matches[match_id]
            return match.seed

        return self.server.call(seed())

    def count(self, what: str) -> None:
        self.stats[what] = self.stats.get(what, 0) + 1

    def stop(self) -> None:
        setattr(match_module, "secrets", secrets)  # noqa: B010
        self.server.stop()


class SeedSource:
    """Stands for the ``secrets`` module in arbiter.match.match: the next seeds given, then random."""

    def __init__(self) -> None:
        self.next: list[bytes] = []

    def token_bytes(self, size: int) -> bytes:
        return self.next.pop(0) if self.next else secrets.token_bytes(size)


_shared: Shared | None = None


def shared() -> Shared:
    global _shared
    if _shared is None:
        _shared = Shared()
    return _shared


def stop_shared() -> None:
    global _shared
    if _shared is not None:
        _shared.stop()
        _shared = None


@dataclass
class ModelMatch:
    """The model of one match: the engine's state and what the arbiter owes each seat."""

    match_id: str
    game: str
    options: dict[str, int]
    bots: dict[int, str]
    state: Any
    turn_counter: int = 0
    pending: tuple[int, int] | None = None  # (turn id, seat)
    pending_bytes: bytes = b""
    last_accepted: dict[int, tuple[int, pb.Action]] = field(default_factory=dict)
    over: bool = False

    @property
    def rules(self) -> Any:
        return get_game(self.game)

    def seat_of(self, name: str) -> int:
        return next(seat for seat, bot in self.bots.items() if bot == name)


Expected = tuple[str, dict[str, Any]]
#: An index into a list whose length depends on the arbiter's random draws (a Surge seed): drawn
#: the same way whatever the list, so that hypothesis can replay and shrink an example.
PICK = st.integers(0, 1 << 16)  # (kind, fields that must match)


class ProtocolMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.shared = shared()
        first = next(self.shared.pairs)
        self.names = [f"z{first}", f"z{first + 1}"]
        self.bots = {name: self._connect(name, []) for name in self.names}
        self.matches: dict[str, ModelMatch] = {}
        self.ended: list[ModelMatch] = []
        self.pairings = 0
        self.rng = random.Random(first)

    # --- connections ----------------------------------------------------------------------
    def _connect(self, name: str, running: list[str]) -> SyncBot:
        bot = SyncBot(self.shared.server.address, name)
        welcome = bot.next()
        assert not isinstance(welcome, Ended) and welcome.WhichOneof("kind") == "welcome", welcome
        assert list(welcome.welcome.resumed_match_ids) == sorted(running), (welcome, running)
        assert list(welcome.welcome.ended_match_ids) == []
        return bot

    def _settle(self, expected: dict[str, list[Expected]], order: list[str]) -> None:
        """Read each bot up to a barrier (in ``order``) and compare with ``expected``."""
        for name in order:
            got = self.bots[name].barrier()
            for message in got:
                problems = check_message(message)
                assert not problems, problems
            want = expected.get(name, [])
            assert [m.WhichOneof("kind") for m in got] == [kind for kind, _ in want], (name, got, want)
            for message, (kind, fields) in zip(got, want, strict=True):
                self._check_fields(getattr(message, kind), fields)

    def _check_fields(self, body: Any, fields: dict[str, Any]) -> None:
        for key, value in fields.items():
            if key == "reason":
                assert reason_of(body.status) == value, (body, value)
            elif key == "turn":
                self._check_turn(body, value)
            elif key == "ended":
                _walk, problems = check_result(value.game, value.options, body)
                assert not problems, problems
            else:
                assert getattr(body, key) == value, (key, body, value)

    def _check_turn(self, turn: pb.Turn, match: ModelMatch) -> None:
        rules = match.rules
        assert match.pending is not None
        turn_id, seat = match.pending
        assert (turn.match_id, turn.turn_id, convert.SEAT_FROM_PB[turn.seat]) == (
            match.match_id,
            turn_id,
            seat,
        )
        assert convert.observation_from_pb(match.game, turn.observation) == rules.observe(match.state, seat)
        assert convert.legal_from_pb(turn.legal) == list(rules.legal_actions(match.state))
        sent = turn.observation.SerializeToString(deterministic=True) + turn.legal.SerializeToString(
            deterministic=True
        )
        if match.pending_bytes:
            assert sent == match.pending_bytes, "a turn sent again differs from its first sending"
        match.pending_bytes = sent

    # --- the model ------------------------------------------------------------------------
    def _advance(self, match: ModelMatch, expected: dict[str, list[Expected]]) -> None:
        """Play forced actions; then the next Turn, or MatchEnded to both seats."""
        rules = match.rules
        while rules.outcome(match.state) is None:
            legal = rules.legal_actions(match.state)
            forced = rules.forced_action(match.state, legal)
            if forced is None:
                match.turn_counter += 1
                seat = rules.to_move(match.state)
                match.pending, match.pending_bytes = (match.turn_counter, seat), b""
                expected.setdefault(match.bots[seat], []).append(("turn", {"turn": match}))
                return
            match.state = rules.apply(match.state, forced)
        match.pending, match.over = None, True
        for seat in (1, 2):
            expected.setdefault(match.bots[seat], []).append(
                ("match_ended", {"match_id": match.match_id, "ended": match})
            )
        del self.matches[match.match_id]
        self.ended.append(match)
        self.shared.count("ended")

    def _rejected(self, match_id: str, turn_id: int, reason: str, may_retry: bool = False) -> Expected:
        fields = {"match_id": match_id, "turn_id": turn_id, "reason": reason, "may_retry": may_retry}
        return ("move_rejected", fields)

    def _answer(
        self, match: ModelMatch, name: str, turn_id: int, action: pb.Action
    ) -> dict[str, list[Expected]]:
        """What the arbiter owes for ``name``'s Move (the order of the checks of Match.submit)."""
        seat = match.seat_of(name)
        expected: dict[str, list[Expected]] = {}
        if match.last_accepted.get(seat) == (turn_id, action):
            self.shared.count("acknowledged")
            return {name: [("move_acknowledged", {"match_id": match.match_id, "turn_id": turn_id})]}
        if match.over or match.pending is None or match.pending[0] != turn_id:
            self.shared.count("stale")
            return {name: [self._rejected(match.match_id, turn_id, "STALE_TURN")]}
        if match.pending[1] != seat:
            self.shared.count("not_your_turn")
            return {name: [self._rejected(match.match_id, turn_id, "NOT_YOUR_TURN")]}
        rules = match.rules
        try:
            domain = convert.action_from_pb(match.game, action)
        except Exception:  # noqa: BLE001 - any decoding failure is a malformed action
            self.shared.count("malformed")
            return {name: [self._rejected(match.match_id, turn_id, "MALFORMED_ACTION", may_retry=True)]}
        if domain not in list(rules.legal_actions(match.state)):
            self.shared.count("illegal")
            return {name: [self._rejected(match.match_id, turn_id, "ILLEGAL_ACTION", may_retry=True)]}
        self.shared.count("accepted")
        match.state = rules.apply(match.state, domain)
        match.last_accepted[seat] = (turn_id, action)
        self._advance(match, expected)
        return expected

    def _send_move(self, name: str, match: ModelMatch, turn_id: int, action: pb.Action) -> None:
        expected = self._answer(match, name, turn_id, action)
        move = pb.Move(match_id=match.match_id, turn_id=turn_id, action=action)
        self.bots[name].send(pb.PlayRequest(move=move))
        other = self._other(name)
        self._settle(expected, [name, other])

    def _other(self, name: str) -> str:
        return self.names[1] if name == self.names[0] else self.names[0]

    # --- rules ----------------------------------------------------------------------------
    @precondition(lambda self: len(self.matches) < 2)
    @rule(game=st.sampled_from(GAMES))
    def start_match(self, game: tuple[str, dict[str, int]]) -> None:
        """Both bots seek the same game: the first waits (SeekPending), the second pairs them."""
        name, options = game
        waiting, arriving = self.names
        spec = convert.spec_to_pb(name, options)
        control = convert.time_control_to_pb(CONTROL)
        self.bots[waiting].send(pb.PlayRequest(seek=pb.Seek(spec=spec, time_control=control, seek_id="w")))
        self._settle({waiting: [("seek_pending", {"seek_id": "w", "waiting": 1})]}, [waiting])
        self.shared.seeds.next = [hashlib.sha256(f"{name}:{self.pairings}".encode()).digest()]
        self.bots[arriving].send(pb.PlayRequest(seek=pb.Seek(spec=spec, time_control=control, seek_id="a")))
        got = {n: self.bots[n].barrier() for n in (arriving, waiting)}
        started = {n: got[n][0].match_started for n in got}
        # Seats alternate between the same two bots, the waiting bot having seat 1 the first time.
        first_seat = 1 if self.pairings % 2 == 0 else 2
        self.pairings += 1
        assert convert.SEAT_FROM_PB[started[waiting].seat] == first_seat
        assert convert.SEAT_FROM_PB[started[arriving].seat] == 3 - first_seat
        match_id = started[waiting].match_id
        assert started[arriving].match_id == match_id and match_id not in self.matches
        assert (started[waiting].seek_id, started[arriving].seek_id) == ("w", "a")
        bots = {first_seat: waiting, 3 - first_seat: arriving}
        seed = self.shared.seed_of(match_id) if name == "surge" else None
        rules = get_game(name)
        match = ModelMatch(
            match_id, name, rules.normalise_options(options), bots, rules.new_game(options, seed)
        )
        self.matches[match_id] = match
        for n in got:
            assert convert.observation_from_pb(name, started[n].observation) == rules.observe(
                match.state, match.seat_of(n)
            )
        expected: dict[str, list[Expected]] = {}
        self._advance(match, expected)
        for n in got:
            rest = got[n][1:]
            want = expected.get(n, [])
            assert [m.WhichOneof("kind") for m in rest] == [k for k, _ in want], (rest, want)
            for message, (kind, fields) in zip(rest, want, strict=True):
                self._check_fields(getattr(message, kind), fields)
        self.shared.count("matches")

    def _pending_match(self, data: st.DataObject) -> ModelMatch | None:
        pending = [m for m in self.matches.values() if m.pending is not None]
        index = data.draw(PICK)
        return pending[index % len(pending)] if pending else None

    @precondition(lambda self: self.matches)
    @rule(data=st.data())
    def move_legal(self, data: st.DataObject) -> None:
        """The seat to move answers with a legal action (several times: matches must progress)."""
        for _ in range(data.draw(st.integers(1, 40))):
            match = self._pending_match(data)
            index = data.draw(PICK)
            if match is None:
                continue
            turn_id, seat = match.pending  # type: ignore[misc]
            legal = list(match.rules.legal_actions(match.state))
            action = legal[index % len(legal)]
            self._send_move(match.bots[seat], match, turn_id, convert.action_to_pb(action))

    @precondition(lambda self: self.matches)
    @rule(data=st.data())
    def move_for_the_other_seat(self, data: st.DataObject) -> None:
        match = self._pending_match(data)
        if match is None:
            return
        turn_id, seat = match.pending  # type: ignore[misc]
        legal = list(match.rules.legal_actions(match.state))
        self._send_move(match.bots[3 - seat], match, turn_id, convert.action_to_pb(legal[0]))

    @precondition(lambda self: self.matches or self.ended)
    @rule(data=st.data(), shift=st.integers(-6, 6), who=st.integers(0, 1))
    def move_stale_or_never_issued(self, data: st.DataObject, shift: int, who: int) -> None:
        """A turn id around the pending one (or of a finished match), as either bot."""
        matches = [*self.matches.values(), *self.ended[-3:]]
        match = matches[data.draw(PICK) % len(matches)]
        pending = match.pending[0] if match.pending is not None else match.turn_counter
        turn_id = max(0, pending + shift)
        legal = list(match.rules.legal_actions(match.state)) or [None]
        action = legal[data.draw(PICK) % len(legal)]
        message = convert.action_to_pb(action) if action is not None else pb.Action()
        self._send_move(self.names[who], match, turn_id, message)

    @precondition(lambda self: any(m.last_accepted for m in [*self.matches.values(), *self.ended]))
    @rule(data=st.data())
    def replay_an_old_move(self, data: st.DataObject) -> None:
        """A seat's last accepted move again (acknowledged), or an older one of its (stale)."""
        matches = [m for m in [*self.matches.values(), *self.ended] if m.last_accepted]
        match = matches[data.draw(PICK) % len(matches)]
        seats = sorted(match.last_accepted)
        seat = seats[data.draw(PICK) % len(seats)]
        turn_id, action = match.last_accepted[seat]
        if data.draw(st.booleans()) and turn_id > 2:
            turn_id -= 2
        self._send_move(match.bots[seat], match, turn_id, action)

    @precondition(lambda self: self.matches)
    @rule(data=st.data())
    def move_illegal_or_malformed(self, data: st.DataObject) -> None:
        """The seat to move sends an action of the wrong game, an empty one or an illegal one."""
        match = self._pending_match(data)
        choice = data.draw(st.sampled_from(["empty", "other_game", "illegal", "bad_text"]))
        text = data.draw(st.text(max_size=6))
        if match is None:
            return
        turn_id, seat = match.pending  # type: ignore[misc]
        action = pb.Action()
        if choice == "other_game":
            if match.game == "surge":
                action.flank.place.point = "a1"
            else:
                action.surge.place.value, action.surge.place.square = 3, "a1"
        elif choice == "illegal":
            if match.game == "surge":
                action.surge.place.value, action.surge.place.square = 7, "a5"  # never a home square
            else:
                action.flank.place.point = "z9"  # off the board
        elif choice == "bad_text":
            if match.game == "surge":
                action.surge.place.value, action.surge.place.square = 99, "a1"
            else:
                action.flank.place.point = text
        self._send_move(match.bots[seat], match, turn_id, action)

    @rule(which=st.sampled_from(["random", "other"]), who=st.integers(0, 1), turn_id=st.integers(0, 5))
    def move_for_a_match_not_ours(self, which: str, who: int, turn_id: int) -> None:
        match_id = self.shared.other_match if which == "other" else f"{self.rng.getrandbits(64):016x}"
        name = self.names[who]
        self.bots[name].send(pb.PlayRequest(move=pb.Move(match_id=match_id, turn_id=turn_id)))
        self._settle({name: [self._rejected(match_id, turn_id, "UNKNOWN_MATCH")]}, [name])
        self.shared.count("unknown_match")

    @rule(
        who=st.integers(0, 1),
        spec=st.sampled_from(
            [
                ({"game": cpb.GAME_TORRENT, "flank": cpb.FlankOptions(size=100)}, None),
                ({"game": cpb.GAME_SURGE}, cpb.TimeControl()),
                ({"game": 77}, None),
            ]
        ),
    )
    def seek_refused(self, who: int, spec: tuple[dict[str, Any], cpb.TimeControl | None]) -> None:
        name = self.names[who]
        seek = pb.Seek(spec=cpb.GameSpec(**spec[0]), seek_id="bad")
        if spec[1] is not None:
            seek.time_control.CopyFrom(spec[1])
        self.bots[name].send(pb.PlayRequest(seek=seek))
        self._settle({name: [("seek_rejected", {"seek_id": "bad", "reason": "BAD_REQUEST"})]}, [name])
        self.shared.count("seek_refused")

    @rule(
        who=st.integers(0, 1), kind=st.sampled_from(["join_unknown", "join_too_many", "challenge", "leave"])
    )
    def ladder_request_refused(self, who: int, kind: str) -> None:
        name = self.names[who]
        if kind == "join_unknown":
            request = pb.PlayRequest(join_ladder=pb.JoinLadder(ladder="no-such-ladder"))
            want = [("ladder_rejected", {"reason": "LADDER_NOT_FOUND"})]
        elif kind == "join_too_many":
            request = pb.PlayRequest(join_ladder=pb.JoinLadder(ladder=LADDER, max_concurrent=17))
            want = [("ladder_rejected", {"reason": "BAD_REQUEST"})]
        elif kind == "challenge":
            request = pb.PlayRequest(challenge=pb.Challenge(ladder=LADDER, opponent=self._other(name)))
            want = [("ladder_rejected", {"reason": "CHALLENGE_REFUSED"})]
        else:
            request = pb.PlayRequest(leave_ladder=pb.LeaveLadder(ladder="no-such-ladder"))
            want = [("ladder_rejected", {"reason": "LADDER_NOT_FOUND"})]
        self.bots[name].send(request)
        self._settle({name: want}, [name])
        self.shared.count("ladder_refused")

    @rule(who=st.integers(0, 1), replace=st.booleans())
    def reconnect(self, who: int, replace: bool) -> None:
        """The bot's connection breaks (or a second one replaces it); its matches resume."""
        name = self.names[who]
        old = self.bots[name]
        if not replace:
            old.close()
        running = sorted(m.match_id for m in self.matches.values() if name in m.bots.values())
        self.bots[name] = new = self._connect(name, running)
        if replace:
            end = old.next()
            while not isinstance(end, Ended):
                end = old.next()  # anything still in flight on the old call first
            reason, problems = check_call_end(end.error)
            assert not problems and reason == "REPLACED", (end, problems)
            old.close()
        expected: dict[str, list[Expected]] = {name: []}
        for match_id in running:
            match = self.matches[match_id]
            expected[name].append(("match_started", {"match_id": match_id, "resumed": True}))
            if match.pending is not None and match.bots[match.pending[1]] == name:
                expected[name].append(("turn", {"turn": match}))
        self._settle(expected, [name])
        del new
        self.shared.count("replaced" if replace else "reconnects")

    @invariant()
    def model_and_arbiter_agree_on_running_matches(self) -> None:
        async def running() -> list[str]:
            hosting = self.shared.server.server.arbiter.hosting
            return sorted({m for n in self.names for m in hosting.running_ids(n)})

        assert self.shared.server.call(running()) == sorted(self.matches)

    def teardown(self) -> None:
        for bot in self.bots.values():
            bot.close()
