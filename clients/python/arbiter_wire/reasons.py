"""Machine-readable error reasons (google.rpc.ErrorInfo, AIP-193), shared by the arbiter and the SDK.

The names are ``ErrorReason`` values of ``arbiter/v1/common.proto`` without their prefix.
"""

from __future__ import annotations

from google.rpc import error_details_pb2, status_pb2

#: ErrorInfo.domain of every arbiter error.
DOMAIN = "arbiter.v1"

MALFORMED_ACTION = "MALFORMED_ACTION"
ILLEGAL_ACTION = "ILLEGAL_ACTION"
NOT_YOUR_TURN = "NOT_YOUR_TURN"
STALE_TURN = "STALE_TURN"
UNKNOWN_MATCH = "UNKNOWN_MATCH"
CLOCK_EXPIRED = "CLOCK_EXPIRED"
BAD_TOKEN = "BAD_TOKEN"
REPLACED = "REPLACED"
BAD_REQUEST = "BAD_REQUEST"
SHUTTING_DOWN = "SHUTTING_DOWN"
RESOURCE_EXHAUSTED = "RESOURCE_EXHAUSTED"
LADDER_NOT_FOUND = "LADDER_NOT_FOUND"
BOT_DISABLED = "BOT_DISABLED"
CHALLENGE_REFUSED = "CHALLENGE_REFUSED"
RATE_LIMITED = "RATE_LIMITED"
EVENT_NOT_FOUND = "EVENT_NOT_FOUND"
EVENT_CLOSED = "EVENT_CLOSED"
EVENT_FULL = "EVENT_FULL"
INVITE_ONLY = "INVITE_ONLY"
GAME_NOT_ACCEPTED = "GAME_NOT_ACCEPTED"

#: ErrorInfo.metadata key of a RATE_LIMITED refusal: whole milliseconds to wait before trying again.
RETRY_AFTER_MS = "retry_after_ms"


def error_info(status: status_pb2.Status) -> error_details_pb2.ErrorInfo | None:
    """The ErrorInfo detail of a google.rpc.Status, if it has one."""
    for detail in status.details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            return info
    return None


def retry_delay(status: status_pb2.Status) -> float | None:
    """Seconds to wait before trying again: the RetryInfo detail, else ErrorInfo's ``retry_after_ms``."""
    for detail in status.details:
        if detail.Is(error_details_pb2.RetryInfo.DESCRIPTOR):
            retry = error_details_pb2.RetryInfo()
            detail.Unpack(retry)
            return float(retry.retry_delay.ToTimedelta().total_seconds())
    info = error_info(status)
    if info is not None and RETRY_AFTER_MS in info.metadata:
        try:
            return int(info.metadata[RETRY_AFTER_MS]) / 1000
        except ValueError:
            return None
    return None


def reason_of(status: status_pb2.Status) -> str | None:
    """The ErrorInfo reason inside a status (``None`` when it has none)."""
    info = error_info(status)
    return None if info is None else str(info.reason)
