"""Every limit and setting both sides of the wire read: one home, so the arbiter and the SDK agree."""

from __future__ import annotations

from arbiter_games.policy import ILLEGAL_FORFEIT, ILLEGAL_REJECT, TIMEOUT_DEFAULT_ACTION, TIMEOUT_LOSS

from .v1 import bot_service_pb2 as pb

#: The largest request the arbiter reads; a bot's messages (a seek, a move) are far smaller.
MAX_REQUEST_BYTES = 64 * 1024
#: Seeks one bot may have open at once (SeekRejected RESOURCE_EXHAUSTED beyond it).
SEEK_LIMIT = 16
#: Bytes of replies waiting unread for one session before the arbiter closes it (RESOURCE_EXHAUSTED).
OUTBOX_BYTES_LIMIT = 4 * 1024 * 1024
#: The call metadata key a bot names its version with, and the longest version accepted.
BOT_VERSION_METADATA = "arbiter-bot-version"
MAX_BOT_VERSION_LENGTH = 64
#: What a bot that names no version plays as.
UNVERSIONED = "unversioned"
#: The most matches at once a bot may ask for on one ladder.
MAX_LADDER_CONCURRENCY = 16

#: Keepalive: a ping every 20 s; a connection counts as dead 10 s after an unanswered ping.
KEEPALIVE_TIME_MS = 20_000
KEEPALIVE_TIMEOUT_MS = 10_000
#: The shortest interval between a client's pings that the arbiter accepts.
MIN_PING_INTERVAL_MS = 10_000

#: The client channel options of the SDK (keepalive as above).
CLIENT_CHANNEL_OPTIONS: tuple[tuple[str, int], ...] = (
    ("grpc.keepalive_time_ms", KEEPALIVE_TIME_MS),
    ("grpc.keepalive_timeout_ms", KEEPALIVE_TIMEOUT_MS),
    ("grpc.keepalive_permit_without_calls", 1),
    ("grpc.http2.max_pings_without_data", 0),
    # No BDP pings: gRPC pings the sender as data arrives to size its receive window for large
    # transfers; a bot's messages are small, and each ping costs both ends (docs/benchmarks.md).
    ("grpc.http2.bdp_probe", 0),
)

#: Policy words (configuration, ``arbiter_games.policy``) and their wire enums.
TIMEOUT_POLICY_TO_PB: dict[str, pb.TimeoutPolicy] = {
    TIMEOUT_LOSS: pb.TIMEOUT_POLICY_LOSS,
    TIMEOUT_DEFAULT_ACTION: pb.TIMEOUT_POLICY_DEFAULT_ACTION,
}
TIMEOUT_POLICY_FROM_PB = {v: k for k, v in TIMEOUT_POLICY_TO_PB.items()}
ILLEGAL_POLICY_TO_PB: dict[str, pb.IllegalActionPolicy] = {
    ILLEGAL_FORFEIT: pb.ILLEGAL_ACTION_POLICY_FORFEIT,
    ILLEGAL_REJECT: pb.ILLEGAL_ACTION_POLICY_REJECT,
}
ILLEGAL_POLICY_FROM_PB = {v: k for k, v in ILLEGAL_POLICY_TO_PB.items()}
