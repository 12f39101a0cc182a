"""The store seen through the small protocols the rest of the arbiter asks for."""

from __future__ import annotations

from collections.abc import Mapping

import structlog
from arbiter_wire.v1 import bot_service_pb2 as pb

from ..sessions.auth import BotDirectory, hash_token
from ..sessions.identity import BotIdentity
from ..sessions.registry import MemoryMailbox
from ..store import SqlStore, StoreError
from .model import BotVersion, LadderConfig
from .ratings import RatingTally

log = structlog.get_logger("arbiter")


class StoreBots:
    """Tokens from the store: a running arbiter sees added, rotated and disabled bots at once."""

    def __init__(self, store: SqlStore) -> None:
        self.store = store

    def identify(self, token: str | None) -> BotIdentity | None:
        if not token:
            return None
        row = self.store.authenticate(token)
        # The hash it matched is the credential a rotate replaces (sessions/revocation.py).
        return None if row is None else BotIdentity(row.name, row.enabled, hash_token(token))


class BotsFromFlagsThenStore:
    """A quick local arbiter's --bot flags and tokens file first, then the store's bots."""

    def __init__(self, directory: BotDirectory, store_bots: StoreBots) -> None:
        self.directory = directory
        self.store_bots = store_bots

    def identify(self, token: str | None) -> BotIdentity | None:
        name = self.directory.authenticate(token)
        return BotIdentity(name) if name is not None else self.store_bots.identify(token)


def token_shared_with_store(directory: BotDirectory, store: SqlStore) -> str | None:
    """What is wrong when a bot of ``serve``'s --bot flags or tokens file has the token of another
    bot of the store (that token would name two bots), or None."""
    by_hash = store.bots_with_token_hashes(directory.hashes().values())
    for name, token_hash in sorted(directory.hashes().items()):
        other = by_hash.get(token_hash)
        if other is not None and other != name:
            return f"bot {name!r} (--bot or --tokens-file) uses the token of the store's bot {other!r}"
    return None


class StoreMailbox:
    """Results an absent bot missed, kept in the store (no cap, nothing lost to a restart).

    Mail the store cannot keep (a bot from ``serve --bot`` or a tokens file is not registered
    there, so its mail breaks a foreign key; or the database is away) waits in memory instead:
    the error must not stop the same result from going to the other seat.
    """

    def __init__(self, store: SqlStore) -> None:
        self.store = store
        self.memory = MemoryMailbox()

    def put(self, bot_name: str, message: pb.PlayResponse) -> None:
        try:
            self.store.add_mail(bot_name, message.match_ended.match_id, message.SerializeToString())
        except StoreError as exc:
            log.warning("mail_kept_in_memory", bot=bot_name, error=str(exc)[:200])
            self.memory.put(bot_name, message)

    def take(self, bot_name: str) -> list[pb.PlayResponse]:
        stored = [pb.PlayResponse.FromString(payload) for _, payload in self.store.take_mail(bot_name)]
        return stored + self.memory.take(bot_name)


class StoreLadders:
    """What the ladder host reads: ladders, ratings with their counts, pauses, failure runs."""

    def __init__(self, store: SqlStore) -> None:
        self.store = store

    def get_ladder(self, name: str) -> LadderConfig | None:
        return self.store.get_ladder(name)

    def registered(self, bot: str) -> bool:
        return self.store.get_bot(bot) is not None

    def ladder_tallies(self, ladder: str) -> Mapping[BotVersion, RatingTally]:
        return {row.version: row.tally for row in self.store.ratings(ladder)}

    def latest_versions(self, ladder: str) -> Mapping[str, BotVersion]:
        return self.store.latest_versions(ladder)

    def owner_of(self, bot: str) -> str:
        row = self.store.get_bot(bot)
        return "" if row is None else row.owner

    def take_challenge(
        self, ladder: str, challenger: str, opponent: str, now: float, limit: int, window: float
    ) -> bool:
        return self.store.take_challenge(ladder, challenger, opponent, now, limit, window)

    def admit_version(self, bot: str, version: str, now: float, limit: int, window: float) -> bool:
        return self.store.admit_version(bot, version, now, limit, window)

    def paused(self, ladder: str, bot: str) -> str | None:
        return self.store.paused(ladder, bot)

    def failures_in_a_row(self, ladder: str, bot: str) -> int:
        return self.store.failures_in_a_row(ladder, bot)

    def pauses_of(self, bot: str) -> Mapping[str, str]:
        return self.store.pauses_of(bot)

    def resume_bot(self, ladder: str, bot: str) -> None:
        self.store.resume_bot(ladder, bot)
