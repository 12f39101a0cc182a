"""The seed stays secret until the match ends: MatchStarted carries only its commitment, a resumed
MatchStarted the same one, and no message before MatchEnded holds the seed (as bytes or as hex).
MatchEnded reveals it, and it hashes to the commitment."""

import asyncio
import hashlib
import random

import pytest
from arbiter.match.match import MatchSetup
from arbiter_wire import convert

from .raw_client import TOKENS, RawBot, connect, play_out, running_server

SEED = hashlib.sha256(b"arbiter trust-secrets seed").digest()


def seed_forms(seed):
    """What a leak of ``seed`` could look like inside a serialised message."""
    return {
        "bytes": seed,
        "hex": seed.hex().encode("ascii"),
        "HEX": seed.hex().upper().encode("ascii"),
    }


def leaks(messages, seed):
    """(index, kind, form) of every message whose bytes contain the seed in some form."""
    found = []
    for index, message in enumerate(messages):
        data = message.SerializeToString()
        for form, needle in seed_forms(seed).items():
            if needle in data:
                found.append((index, message.WhichOneof("kind"), form))
    return found


def before_match_ended(messages):
    out = []
    for message in messages:
        if message.WhichOneof("kind") == "match_ended":
            break
        out.append(message)
    return out


def of_kind(messages, kind):
    return [getattr(m, kind) for m in messages if m.WhichOneof("kind") == kind]


def test_the_seed_stays_secret_across_a_reconnect():
    async def scenario():
        async with running_server() as server:
            alice = await connect(server, "alice")
            bob = await connect(server, "bob")
            match = server.arbiter.start_match(MatchSetup("surge", {}, {1: "alice", 2: "bob"}, seed=SEED))
            alice_done = asyncio.create_task(play_out(alice))
            await bob.expect("match_started")
            for _ in range(2):  # Bob plays two placements...
                turn = await bob.expect("turn")
                await bob.move(turn.match_id, turn.turn_id, convert.legal_from_pb(turn.legal)[0])
            unanswered = await bob.expect("turn")  # ...and loses his connection on the third
            await bob.close()
            bob_again = RawBot(server.address, TOKENS["bob"])
            welcome = await bob_again.expect("welcome")
            resumed = await bob_again.expect("match_started")
            resent = await bob_again.expect("turn")
            await bob_again.move(resent.match_id, resent.turn_id, convert.legal_from_pb(resent.legal)[0])
            bob_end = await play_out(bob_again)
            alice_end = await alice_done
            await alice.close()
            await bob_again.close()
            return match, welcome, unanswered, resent, resumed, alice, bob, bob_again, alice_end, bob_end

    match, welcome, unanswered, resent, resumed, alice, bob, bob_again, alice_end, bob_end = asyncio.run(
        scenario()
    )
    commitment = hashlib.sha256(SEED).hexdigest()
    assert match.seed == SEED and match.end is not None
    # The reconnect really happened mid-match: the match was resumed and the open turn re-sent.
    assert list(welcome.resumed_match_ids) == [match.id]
    assert resent.turn_id == unanswered.turn_id and resent.match_id == match.id

    [first_bob] = of_kind(bob.received, "match_started")
    [first_alice] = of_kind(alice.received, "match_started")
    assert not first_bob.resumed and not first_alice.resumed
    assert resumed.resumed and resumed.match_id == match.id
    assert first_bob.seed_commitment == first_alice.seed_commitment == commitment
    assert resumed.seed_commitment == first_bob.seed_commitment

    streams = {"alice": alice.received, "bob (first)": bob.received, "bob (again)": bob_again.received}
    assert of_kind(bob.received, "match_ended") == []  # the first connection left before the end
    for name, messages in streams.items():
        assert leaks(before_match_ended(messages), SEED) == [], name

    for end in (alice_end, bob_end):
        assert end.seed == SEED.hex()
        assert hashlib.sha256(bytes.fromhex(end.seed)).hexdigest() == commitment


@pytest.mark.parametrize("game,options", [("surge", {}), ("torrent", {"size": 5}), ("fravan", {"size": 5})])
def test_match_started_never_carries_the_seed(game, options):
    """As the hidden-information tests play: two bots seek, the arbiter picks the seed."""

    async def scenario():
        async with running_server() as server:
            alice = await connect(server, "alice")
            bob = await connect(server, "bob")
            await alice.seek(game, options)
            await bob.seek(game, options)
            rng = random.Random(5)
            ends = await asyncio.gather(
                play_out(alice, lambda t, legal: rng.choice(legal)),
                play_out(bob, lambda t, legal: rng.choice(legal)),
            )
            match = server.arbiter.hosting.recent[-1]
            await alice.close()
            await bob.close()
            return alice.received + bob.received, ends, match.seed

    received, ends, seed = asyncio.run(scenario())
    assert len(seed) == 32
    started = of_kind(received, "match_started")
    turns = of_kind(received, "turn")
    assert len(started) == 2 and turns
    chance = game == "surge"
    for message in started:
        assert message.seed_commitment == (hashlib.sha256(seed).hexdigest() if chance else "")
    opening = [m for m in received if m.WhichOneof("kind") in ("match_started", "turn")]
    assert leaks(opening, seed) == []
    assert leaks([m for m in received if m.WhichOneof("kind") != "match_ended"], seed) == []
    for end in ends:
        # Revealed only where there is chance to check; a game without chance keeps its seed.
        assert end.seed == (seed.hex() if chance else "")
