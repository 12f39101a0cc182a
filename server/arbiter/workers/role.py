"""One worker's part in ``arbiter serve --processes N`` (docs/processes.md).

Each worker hosts the matches of the bots it holds. The directory says which worker holds a
bot; a Play call reaching another worker is answered with a ``Redirect`` there. A worker pairs
seeks in its own lobby, so both bots of a match are always in one process; a seek left alone
for ``MOVE_SEEK_AFTER`` on a worker other than worker 0 is moved to worker 0 (the bot is
redirected there and seeks again), where every lone seeker ends up. Ladders run on worker 0.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import structlog

from ..cluster import Placement
from ..hosting.host import MatchHosting
from ..ladder.host import LadderHost
from ..lobby import FifoMatchmaker, Seek
from ..lobby.matchmaker import Matchmaker
from ..sessions.registry import MemoryMailbox, SessionRegistry
from ..sessions.session import BotSession
from .directory import WorkerDirectory

log = structlog.get_logger("arbiter")

#: Seconds a seek waits unpaired on a worker other than worker 0 before its bot is sent to
#: worker 0 to seek there. Short, since a lone seeker only meets a lone seeker of another worker
#: there; long enough that most seeks pair where they arrived (a bot whose match just ended
#: usually finds another one seeking again within this time on a busy worker).
MOVE_SEEK_AFTER = 0.5
#: Seconds between two looks at the bots this worker holds without a session (released once
#: their matches here are over) and at the ladder requests waiting for a bot's matches to end.
SWEEP_EVERY = 0.25


def tag_logs(index: int) -> None:
    """Every log line of this process says ``"worker": index`` (call after configuring logs)."""

    def add_worker(
        _logger: object, _name: str, event: structlog.types.EventDict
    ) -> structlog.types.EventDict:
        event.setdefault("worker", index)
        return event

    structlog.configure(processors=[add_worker, *structlog.get_config()["processors"]])


#: Hosts that bind every interface: a worker bound there is named by 127.0.0.1 in redirects.
WILDCARD_HOSTS = frozenset({"0.0.0.0", "::", "[::]", ""})



class Node(Protocol):
    """What a worker's role uses of its arbiter (``arbiter.node.Arbiter``): the arbiter hands
    itself to the role, which so depends on this surface, not on the node module."""

    hosting: MatchHosting
    sessions: SessionRegistry
    matchmaker: Matchmaker
    ladders: LadderHost | None
    stopping: bool

    def result_unsent(self, bot: str) -> bool: ...

    def redirect(self, session: BotSession, placement: Placement) -> None: ...

@dataclass(frozen=True)
class WorkerStart:
    """What the supervisor tells a worker: its index, the directory's folder, its own host."""

    index: int
    state: Path
    #: Where the worker's own port is bound (``--process-host``, else ``--host``).
    bind_host: str

    @property
    def advertised_host(self) -> str:
        """The host redirects name for this worker's own port."""
        return "127.0.0.1" if self.bind_host in WILDCARD_HOSTS else self.bind_host

    def role(self, arbiter: Node, public_address: str) -> WorkerRole:
        return WorkerRole(arbiter, WorkerDirectory(self.state, self.index), public_address)


class WorkerRole:
    """Worker ``directory.index`` of an arbiter of several processes."""

    def __init__(self, arbiter: Node, directory: WorkerDirectory, public_address: str) -> None:
        self.arbiter = arbiter
        self.directory = directory
        self.index = directory.index
        #: The shared address: a bot whose holder has not said where it listens yet goes there.
        self.public_address = public_address
        #: Bots held here without a session: their matches (or results) are still here.
        self.held: set[str] = set()
        #: Bots whose ladder request waits for their matches here to end: bot -> ladder.
        self.moving: dict[str, str] = {}
        self._sweeper: asyncio.Task[None] | None = None

    # --- where a bot plays ---------------------------------------------------------------------
    def place_bot(self, bot: str) -> Placement | None:
        """None: the bot is held here now (its session opens); else where it must go."""
        holder = self.directory.claim(bot)
        if holder == self.index:
            self.held.discard(bot)
            return None
        address = self.directory.address_of(holder) or self.public_address
        return Placement(address, "", 0.0, "matches")

    def _to_worker_0(self, reason: str, ladder: str = "") -> Placement:
        return Placement(self.directory.address_of(0) or self.public_address, "", 0.0, reason, ladder)

    def busy(self, bot: str) -> bool:
        """Whether the bot must stay here: matches running, a result unsent or waiting in memory."""
        arbiter = self.arbiter
        if arbiter.hosting.running_ids(bot) or arbiter.result_unsent(bot):
            return True
        mailbox = arbiter.sessions.mailbox
        return isinstance(mailbox, MemoryMailbox) and bot in mailbox.boxes

    def session_closed(self, bot: str) -> None:
        """The bot's live session here ended: it is released now, or once its matches are over."""
        if self.arbiter.sessions.connected(bot):
            return
        if self.busy(bot):
            self.held.add(bot)
            return
        self.held.discard(bot)
        self.directory.release(bot)

    def hold_hosted(self) -> None:
        """Hold the bots of every match hosted here (those rebuilt from the store, on worker 0)."""
        for match in self.arbiter.hosting.matches.values():
            for bot in set(match.bots.values()):
                if self.directory.claim(bot) == self.index and not self.arbiter.sessions.connected(bot):
                    self.held.add(bot)

    # --- seeks ---------------------------------------------------------------------------------
    def seek_waiting(self, seek: Seek) -> None:
        """A seek waits unpaired: on a worker other than 0 it is moved after ``MOVE_SEEK_AFTER``."""
        session = self.arbiter.sessions.sessions.get(seek.bot)
        if self.index != 0 and session is not None:
            asyncio.get_running_loop().call_later(MOVE_SEEK_AFTER, self._move_seek, seek, session)

    def _move_seek(self, seek: Seek, session: BotSession) -> None:
        arbiter = self.arbiter
        if arbiter.stopping or session.closed or arbiter.sessions.sessions.get(seek.bot) is not session:
            return
        matchmaker = arbiter.matchmaker
        if not isinstance(matchmaker, FifoMatchmaker) or not matchmaker.holds(seek):
            return  # paired here, or given up
        if self.busy(seek.bot):  # it plays here: its seek waits here until its matches are over
            asyncio.get_running_loop().call_later(MOVE_SEEK_AFTER, self._move_seek, seek, session)
            return
        log.info("seek_moved", bot=seek.bot, seek_id=seek.seek_id, to_worker=0)
        arbiter.redirect(session, self._to_worker_0("matches"))

    # --- ladders -------------------------------------------------------------------------------
    def ladder_elsewhere(self, session: BotSession, ladder: str) -> bool:
        """Whether a ladder request is for worker 0 (True: the bot is sent there, now or once its
        matches here are over); False: answer it here."""
        if self.index == 0 or self.arbiter.ladders is None:
            return False
        if self.busy(session.bot_name):
            self.moving[session.bot_name] = ladder
        else:
            self.arbiter.redirect(session, self._to_worker_0("ladder", ladder))
        return True

    # --- the sweep -----------------------------------------------------------------------------
    def serving(self, address: str) -> None:
        """The worker serves: its own ``address`` goes into the directory and the sweep starts
        (call on the running loop)."""
        self.directory.register(address)
        if self._sweeper is None:
            self._sweeper = asyncio.get_running_loop().create_task(self._sweep_often())

    def stop(self) -> None:
        if self._sweeper is not None:
            self._sweeper.cancel()
            self._sweeper = None

    async def _sweep_often(self) -> None:
        while True:
            await asyncio.sleep(SWEEP_EVERY)
            try:
                self.sweep()
            except Exception:
                log.exception("worker_sweep_failed")

    def sweep(self) -> None:
        """Release the held bots that have nothing left here; send on the ladder requests whose
        bots' matches here are over."""
        sessions = self.arbiter.sessions
        for bot in list(self.held):
            if sessions.connected(bot):
                self.held.discard(bot)  # its session releases it when it ends
            else:
                self.session_closed(bot)
        for bot, ladder in list(self.moving.items()):
            session = sessions.sessions.get(bot)
            if session is None:
                del self.moving[bot]
            elif not self.busy(bot) and not self.arbiter.stopping:
                del self.moving[bot]
                self.arbiter.redirect(session, self._to_worker_0("ladder", ladder))
