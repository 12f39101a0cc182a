"""Rejections as google.rpc.Status with an ErrorInfo detail (AIP-193)."""

from __future__ import annotations

import grpc
from google.protobuf import any_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2

from ..protocol.reasons import (
    BAD_REQUEST,
    BAD_TOKEN,
    CLOCK_EXPIRED,
    DOMAIN,
    ILLEGAL_ACTION,
    MALFORMED_ACTION,
    NOT_YOUR_TURN,
    REPLACED,
    RESOURCE_EXHAUSTED,
    SHUTTING_DOWN,
    STALE_TURN,
    UNKNOWN_MATCH,
    reason_of,
)

__all__ = [
    "BAD_REQUEST",
    "BAD_TOKEN",
    "CLOCK_EXPIRED",
    "CODES",
    "DOMAIN",
    "ILLEGAL_ACTION",
    "MALFORMED_ACTION",
    "NOT_YOUR_TURN",
    "REPLACED",
    "RESOURCE_EXHAUSTED",
    "SHUTTING_DOWN",
    "STALE_TURN",
    "UNKNOWN_MATCH",
    "Rejection",
    "reason_of",
    "status_for",
]

CODES: dict[str, grpc.StatusCode] = {
    MALFORMED_ACTION: grpc.StatusCode.INVALID_ARGUMENT,
    ILLEGAL_ACTION: grpc.StatusCode.FAILED_PRECONDITION,
    NOT_YOUR_TURN: grpc.StatusCode.FAILED_PRECONDITION,
    STALE_TURN: grpc.StatusCode.FAILED_PRECONDITION,
    UNKNOWN_MATCH: grpc.StatusCode.NOT_FOUND,
    CLOCK_EXPIRED: grpc.StatusCode.DEADLINE_EXCEEDED,
    BAD_TOKEN: grpc.StatusCode.UNAUTHENTICATED,
    REPLACED: grpc.StatusCode.ABORTED,
    BAD_REQUEST: grpc.StatusCode.INVALID_ARGUMENT,
    SHUTTING_DOWN: grpc.StatusCode.UNAVAILABLE,
    RESOURCE_EXHAUSTED: grpc.StatusCode.RESOURCE_EXHAUSTED,
}


def status_for(reason: str, message: str, **metadata: str) -> status_pb2.Status:
    """A google.rpc.Status whose code follows ``reason`` and whose details hold an ErrorInfo."""
    info = error_details_pb2.ErrorInfo(reason=reason, domain=DOMAIN, metadata=metadata)
    detail = any_pb2.Any()
    detail.Pack(info)
    code = CODES[reason].value[0]
    assert code != code_pb2.OK
    return status_pb2.Status(code=code, message=message, details=[detail])


class Rejection(Exception):
    """A domain refusal carrying its machine-readable reason."""

    def __init__(self, reason: str, message: str, may_retry: bool = False) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message
        self.may_retry = may_retry

    def status(self) -> status_pb2.Status:
        return status_for(self.reason, self.message)
