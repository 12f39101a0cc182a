"""A person's seat (issue 23, ``sessions/human.py``), in process on memory ladders: the guest's
match takes one of the bot's ladder slots (the ladder starts none in it, and schedules once it is
free), the seat sees what a bot's seat gets, and its answers are judged by the match."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any, cast

import pytest
from arbiter.ladder.model import LadderConfig
from arbiter.node import Arbiter, ArbiterConfig
from arbiter.sessions.auth import BotDirectory
from arbiter.sessions.human import PlayRefused
from arbiter_games import IllegalAction, get_game
from arbiter_games.timecontrol import TimeControl

CONTROL = TimeControl(base=300.0, increment=1.0)
T5 = LadderConfig("t5", "torrent", {"size": 5}, CONTROL, rated=False)


def arbiter() -> Arbiter:
    return Arbiter(ArbiterConfig(bots=BotDirectory()), ladders=[T5])


def test_a_guests_match_takes_the_bots_ladder_slot_until_it_ends() -> None:
    async def scenario() -> None:
        node = arbiter()
        gus = node.attach("gus")
        node.join_ladder(gus, "t5", 1)
        person = node.people.start("gus", "torrent", {"size": 5}, CONTROL, seat=1)
        assert node.hosting.count_running("gus", "t5") == 1
        # No second guest in the slot, and the ladder starts no match in it either.
        with pytest.raises(PlayRefused) as refused:
            node.people.start("gus", "torrent", {"size": 5}, CONTROL, address="other")
        assert refused.value.reason == "NO_FREE_SLOT"
        hal = node.attach("hal")
        node.join_ladder(hal, "t5", 1)
        assert node.ladders is not None and node.ladders.schedule("t5") == 0
        assert len(node.hosting.matches) == 1
        # The guest's match ends: its slot frees once the bot has been told, and the ladder
        # schedules gus again.
        match = node.hosting.matches[person.match_id]
        match.abort("the guest left")
        await asyncio.sleep(0.01)
        assert node.hosting.count_running("gus", "t5") == 1
        assert [m.facts.ladder for m in node.hosting.matches.values()] == ["t5"]
        # A person's seat has no session and no mailbox: its results are not kept for it.
        assert node.sessions.take_mail(person.name) == []

    asyncio.run(scenario())


def test_a_guests_seat_sees_its_observation_and_the_engines_refusal() -> None:
    async def scenario() -> None:
        node = arbiter()
        node.join_ladder(node.attach("gus"), "t5", 1)
        person = node.people.start("gus", "torrent", {"size": 5}, CONTROL, seat=1)
        view = node.people.view(person.match_id, person.token)
        match = node.hosting.matches[person.match_id]
        game = get_game("torrent")
        assert view["observation"] == dataclasses.asdict(cast(Any, game.observe(match.state, 1)))
        assert view["legal"] == [game.format_action(a) for a in game.legal_actions(match.state)]
        assert view["to_move"] == 1 and view["turn_id"] is not None and not view["over"]
        with pytest.raises(IllegalAction) as engine:
            game.apply(match.state, game.parse_action("swap"))
        with pytest.raises(PlayRefused) as refused:
            node.people.move(person.match_id, person.token, "swap", None)
        assert (refused.value.status, refused.value.reason) == (400, "ILLEGAL_ACTION")
        assert refused.value.message == str(engine.value)
        with pytest.raises(PlayRefused) as wrong:
            node.people.view(person.match_id, "not-the-token")
        assert wrong.value.status == 404
        after = node.people.move(person.match_id, person.token, "c3", view["turn_id"])
        assert after["to_move"] == 2 and after["legal"] == [] and after["turn_id"] is None
        assert match.actions[0]["action"] == "c3" and match.bots[2] == "gus"

    asyncio.run(scenario())
