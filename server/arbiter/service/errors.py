"""Rejections as google.rpc.Status with an ErrorInfo detail (AIP-193)."""

from __future__ import annotations

import grpc
from google.protobuf import any_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2

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
}


def status_for(reason: str, message: str, **metadata: str) -> status_pb2.Status:
    """A google.rpc.Status whose code follows ``reason`` and whose details hold an ErrorInfo."""
    info = error_details_pb2.ErrorInfo(reason=reason, domain=DOMAIN, metadata=metadata)
    detail = any_pb2.Any()
    detail.Pack(info)
    code = CODES[reason].value[0]
    assert code != code_pb2.OK
    return status_pb2.Status(code=code, message=message, details=[detail])


def reason_of(status: status_pb2.Status) -> str | None:
    """The ErrorInfo reason inside a status, if any."""
    for detail in status.details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            return str(info.reason)
    return None


class Rejection(Exception):
    """A domain refusal carrying its machine-readable reason."""

    def __init__(self, reason: str, message: str, may_retry: bool = False) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message
        self.may_retry = may_retry

    def status(self) -> status_pb2.Status:
        return status_for(self.reason, self.message)
