"""Refusals as google.rpc.Status with an ErrorInfo detail (AIP-193): the code follows the reason."""

from __future__ import annotations

import math

from google.protobuf import any_pb2, duration_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2

from .reasons import (
    BAD_REQUEST,
    BAD_TOKEN,
    BOT_DISABLED,
    CHALLENGE_REFUSED,
    CLOCK_EXPIRED,
    DOMAIN,
    EVENT_CLOSED,
    EVENT_FULL,
    EVENT_NOT_FOUND,
    GAME_NOT_ACCEPTED,
    ILLEGAL_ACTION,
    INVITE_ONLY,
    LADDER_NOT_FOUND,
    MALFORMED_ACTION,
    NOT_YOUR_TURN,
    RATE_LIMITED,
    REPLACED,
    RESOURCE_EXHAUSTED,
    RETRY_AFTER_MS,
    SHUTTING_DOWN,
    STALE_TURN,
    UNKNOWN_MATCH,
)

#: The google.rpc.Code of each reason.
CODES: dict[str, int] = {
    MALFORMED_ACTION: code_pb2.INVALID_ARGUMENT,
    ILLEGAL_ACTION: code_pb2.FAILED_PRECONDITION,
    NOT_YOUR_TURN: code_pb2.FAILED_PRECONDITION,
    STALE_TURN: code_pb2.FAILED_PRECONDITION,
    UNKNOWN_MATCH: code_pb2.NOT_FOUND,
    CLOCK_EXPIRED: code_pb2.DEADLINE_EXCEEDED,
    BAD_TOKEN: code_pb2.UNAUTHENTICATED,
    REPLACED: code_pb2.ABORTED,
    BAD_REQUEST: code_pb2.INVALID_ARGUMENT,
    SHUTTING_DOWN: code_pb2.UNAVAILABLE,
    RESOURCE_EXHAUSTED: code_pb2.RESOURCE_EXHAUSTED,
    LADDER_NOT_FOUND: code_pb2.NOT_FOUND,
    BOT_DISABLED: code_pb2.PERMISSION_DENIED,
    CHALLENGE_REFUSED: code_pb2.FAILED_PRECONDITION,
    RATE_LIMITED: code_pb2.RESOURCE_EXHAUSTED,
    EVENT_NOT_FOUND: code_pb2.NOT_FOUND,
    EVENT_CLOSED: code_pb2.FAILED_PRECONDITION,
    EVENT_FULL: code_pb2.RESOURCE_EXHAUSTED,
    INVITE_ONLY: code_pb2.PERMISSION_DENIED,
    GAME_NOT_ACCEPTED: code_pb2.FAILED_PRECONDITION,
}


def status_for(reason: str, message: str, **metadata: str) -> status_pb2.Status:
    """A google.rpc.Status whose code follows ``reason`` and whose details hold an ErrorInfo."""
    info = error_details_pb2.ErrorInfo(reason=reason, domain=DOMAIN, metadata=metadata)
    detail = any_pb2.Any()
    detail.Pack(info)
    return status_pb2.Status(code=CODES[reason], message=message, details=[detail])


def rate_limited(message: str, wait: float) -> status_pb2.Status:
    """RESOURCE_EXHAUSTED with reason RATE_LIMITED: ErrorInfo metadata ``retry_after_ms`` (the wait
    in whole milliseconds, rounded up, at least 1) and the same wait as a google.rpc.RetryInfo."""
    millis = max(1, math.ceil(wait * 1000))
    status = status_for(RATE_LIMITED, message, **{RETRY_AFTER_MS: str(millis)})
    retry = error_details_pb2.RetryInfo(
        retry_delay=duration_pb2.Duration(seconds=millis // 1000, nanos=millis % 1000 * 1_000_000)
    )
    detail = any_pb2.Any()
    detail.Pack(retry)
    status.details.append(detail)
    return status
