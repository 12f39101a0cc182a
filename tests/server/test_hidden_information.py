"""Everything sent to a seat is observe(state, seat) of that moment, and nothing hidden leaks."""

import asyncio
import random

import pytest
from arbiter.match.match import MatchSetup
from arbiter_games import get_game
from arbiter_games.surge import SURGE
from arbiter_wire import convert

from .raw_client import connect, play_out, running_server


def decision_states(game, options, seed, actions):
    """The state at each decision the arbiter asked for (auto skips are not decisions)."""
    rules = get_game(game)
    state = rules.new_game(options, seed)
    states = []
    for text in actions:
        legal = rules.legal_actions(state)
        automatic = game == "surge" and len(legal) == 1 and rules.format_action(legal[0]) == "skip"
        if not automatic:
            states.append(state)
        state = rules.apply(state, rules.parse_action(text))
    return rules, states, state


@pytest.mark.parametrize("game,options", [("torrent", {"size": 5}), ("fravan", {"size": 5}), ("surge", {})])
def test_every_observation_sent_is_observe_of_that_moment(game, options):
    async def scenario():
        async with running_server() as server:
            alice = await connect(server, "alice")
            bob = await connect(server, "bob")
            await alice.seek(game, options)
            await bob.seek(game, options)
            rng = random.Random(11)
            ends = await asyncio.gather(
                play_out(alice, lambda t, legal: rng.choice(legal)),
                play_out(bob, lambda t, legal: rng.choice(legal)),
            )
            match = server.arbiter.hosting.recent[-1]
            await alice.close()
            await bob.close()
            return alice.received + bob.received, ends, match.seed

    received, (end_a, _), seed = asyncio.run(scenario())
    rules, states, final = decision_states(game, options, seed, end_a.actions)
    turns = [m.turn for m in received if m.WhichOneof("kind") == "turn"]
    assert sorted(t.turn_id for t in turns) == list(range(1, len(states) + 1))
    for turn in turns:
        seat = convert.SEAT_FROM_PB[turn.seat]
        expected = rules.observe(states[turn.turn_id - 1], seat)
        assert convert.observation_from_pb(game, turn.observation) == expected
    for message in received:
        if message.WhichOneof("kind") == "match_ended":
            ended = message.match_ended
            seat = convert.SEAT_FROM_PB[ended.seat]
            assert convert.observation_from_pb(game, ended.final_observation) == rules.observe(final, seat)


def _orders(seed):
    rng = random.Random(seed)
    order = [v for v in range(1, 11) for _ in (0, 1)]
    rng.shuffle(order)
    return order


def _scrub(message):
    """A message without what may differ legitimately: clocks, ids, the seed commitment."""
    copy = type(message)()
    copy.CopyFrom(message)
    kind = copy.WhichOneof("kind")
    body = getattr(copy, kind)
    for name in ("clocks", "decision_limit", "match_id", "seed_commitment"):
        if name in body.DESCRIPTOR.fields_by_name:
            body.ClearField(name)
    return copy


async def _seat1_messages(blue, orange):
    """Alice (Blue) plays biggest-first on the first free square; Bob takes his first square."""
    async with running_server() as server:
        alice = await connect(server, "alice")
        bob = await connect(server, "bob")
        state = SURGE.new_game_from_orders(blue, orange)
        server.arbiter.start_match(MatchSetup("surge", {}, {1: "alice", 2: "bob"}), initial_state=state)

        def alice_choice(turn, legal):
            top = max(a.value for a in legal)
            return next(a for a in legal if a.value == top)

        def bob_choice(turn, legal):
            return legal[0]  # the smallest value on the first free square

        await asyncio.gather(play_out(alice, alice_choice), play_out(bob, bob_choice))
        await alice.close()
        await bob.close()
        return [m for m in alice.received if m.WhichOneof("kind") in ("match_started", "turn")]


def test_surge_opponent_hidden_stones_do_not_change_what_a_seat_sees_before_the_reveal():
    blue = _orders(1)
    one, two = _orders(2), _orders(3)
    assert one[:3] != two[:3]
    first = asyncio.run(_seat1_messages(blue, one))
    second = asyncio.run(_seat1_messages(blue, two))
    before_a = [
        m
        for m in first
        if m.WhichOneof("kind") == "match_started" or m.turn.observation.surge.rounds_played == 0
    ]
    before_b = [
        m
        for m in second
        if m.WhichOneof("kind") == "match_started" or m.turn.observation.surge.rounds_played == 0
    ]
    assert len(before_a) == 2
    assert [_scrub(m) for m in before_a] == [_scrub(m) for m in before_b]


def test_surge_undrawn_order_and_hand_do_not_leak_over_several_rounds():
    """Orange orders equal in their first 6 stones: Bob's placements through round 4 are the same,
    his hand differs from the round-4 refill on, and Alice's view must not change until a differing
    stone could be revealed (her turn in round 5 still comes before Bob's round-5 placement)."""
    blue = _orders(4)
    one = _orders(5)
    two = one[:6] + sorted(one[6:])
    assert one[6] != two[6]  # Bob's hand differs from his round-4 refill on
    first = asyncio.run(_seat1_messages(blue, one))
    second = asyncio.run(_seat1_messages(blue, two))

    def upto_round5(messages):
        return [
            _scrub(m)
            for m in messages
            if m.WhichOneof("kind") == "match_started" or m.turn.observation.surge.round <= 5
        ]

    a, b = upto_round5(first), upto_round5(second)
    assert len(a) >= 5
    assert a == b
