"""Errors the SDK raises, and reading the rich status (google.rpc.Status + ErrorInfo) of a failed call."""

from __future__ import annotations

from dataclasses import dataclass

import grpc
from arbiter_wire.reasons import (
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
    error_info,
    reason_of,
)
from google.rpc import status_pb2

__all__ = [
    "BAD_REQUEST",
    "BAD_TOKEN",
    "CLOCK_EXPIRED",
    "DOMAIN",
    "ILLEGAL_ACTION",
    "MALFORMED_ACTION",
    "NOT_YOUR_TURN",
    "REPLACED",
    "RESOURCE_EXHAUSTED",
    "SHUTTING_DOWN",
    "STALE_TURN",
    "UNKNOWN_MATCH",
    "ArbiterError",
    "AuthenticationError",
    "BadRequestError",
    "ConnectError",
    "ReplacedError",
    "RichStatus",
    "reason_of",
    "rich_status",
    "status_code_name",
]

_STATUS_DETAILS_KEY = "grpc-status-details-bin"


class ArbiterError(Exception):
    """The arbiter ended the session for a reason the SDK does not retry."""

    def __init__(self, message: str, code: grpc.StatusCode | None = None, reason: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.reason = reason


class AuthenticationError(ArbiterError):
    """The token is missing or wrong (UNAUTHENTICATED, reason BAD_TOKEN): fix the token, do not retry."""


class ReplacedError(ArbiterError):
    """Another connection with the same token took over this bot's session (ABORTED, reason REPLACED)."""


class BadRequestError(ArbiterError):
    """The arbiter cannot act on a request, for example an unknown game or bad options (INVALID_ARGUMENT)."""


class ConnectError(ArbiterError):
    """No connection to the arbiter (no Welcome) within the connect timeout since the session
    started: a wrong address, or no arbiter running there. Reconnects after a Welcome never raise it."""


@dataclass(frozen=True)
class RichStatus:
    """The parts of a failed call's status a bot acts on."""

    code: grpc.StatusCode
    message: str
    reason: str | None
    domain: str | None


def rich_status(error: grpc.RpcError) -> RichStatus:
    """Code, message and ErrorInfo reason of a failed call (the trailer ``rpc_status.from_call`` reads)."""
    code_fn = getattr(error, "code", None)
    code = code_fn() if callable(code_fn) else grpc.StatusCode.UNKNOWN
    details_fn = getattr(error, "details", None)
    message = (details_fn() if callable(details_fn) else "") or ""
    trailers_fn = getattr(error, "trailing_metadata", None)
    trailers = trailers_fn() if callable(trailers_fn) else None
    for key, value in trailers or ():
        if key == _STATUS_DETAILS_KEY and isinstance(value, bytes):
            try:
                status = status_pb2.Status.FromString(value)
            except Exception:  # noqa: BLE001 - a garbled trailer must not hide the call's own code
                break
            info = error_info(status)
            reason = None if info is None else str(info.reason)
            domain = None if info is None else str(info.domain)
            return RichStatus(code, status.message or message, reason, domain)
    return RichStatus(code, message, None, None)


def status_code_name(code: int) -> str:
    """The name of a numeric gRPC status code (``9`` -> ``FAILED_PRECONDITION``)."""
    for member in grpc.StatusCode:
        if member.value[0] == code:
            return str(member.name)
    return str(code)
