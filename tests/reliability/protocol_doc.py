"""What docs/protocol.md promises about refusals: its errors table, read from the page itself."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import grpc
from arbiter_wire.v1 import bot_service_pb2 as pb
from google.protobuf import any_pb2
from google.rpc import error_details_pb2, status_pb2

PROTOCOL = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"
DOMAIN = "arbiter.v1"


@dataclass(frozen=True)
class Row:
    reason: str
    code: str
    arrives_as: str


def error_table() -> dict[str, Row]:
    """The rows of the table under "## Errors": reason -> (gRPC code, how it arrives)."""
    text = PROTOCOL.read_text(encoding="utf-8")
    section = text.split("\n## Errors\n", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        match = re.match(r"\| `([A-Z_]+)` \| `([A-Z_]+)` \| ([^|]+) \|", line)
        if match:
            rows[match.group(1)] = Row(match.group(1), match.group(2), match.group(3).strip())
    return rows


TABLE = error_table()


def error_info(status: status_pb2.Status) -> error_details_pb2.ErrorInfo | None:
    for detail in status.details:
        assert isinstance(detail, any_pb2.Any)
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            return info
    return None


def check_refusal(status: status_pb2.Status, arrives_as: str) -> list[str]:
    """Problems with a refusal's status against the table (empty when it is as documented)."""
    info = error_info(status)
    if info is None:
        return [f"{arrives_as} without ErrorInfo: {status}"]
    problems = []
    if info.domain != DOMAIN:
        problems.append(f"{arrives_as} {info.reason}: domain {info.domain!r}")
    row = TABLE.get(info.reason)
    if row is None:
        return [*problems, f"{arrives_as} with reason {info.reason}, which docs/protocol.md does not list"]
    code = grpc.StatusCode[row.code].value[0]
    if status.code != code:
        problems.append(f"{arrives_as} {info.reason}: code {status.code}, the table says {row.code}")
    if arrives_as not in row.arrives_as:
        problems.append(f"{info.reason} arrived as {arrives_as}; the table says {row.arrives_as!r}")
    return problems


def check_message(message: pb.PlayResponse) -> list[str]:
    """Problems with any refusal inside ``message`` (other messages have none)."""
    kind = message.WhichOneof("kind")
    if kind == "move_rejected":
        return check_refusal(message.move_rejected.status, "MoveRejected")
    if kind == "seek_rejected":
        return check_refusal(message.seek_rejected.status, "SeekRejected")
    if kind == "ladder_rejected":
        return check_refusal(message.ladder_rejected.status, "LadderRejected")
    return []


def reason_of(status: status_pb2.Status) -> str:
    info = error_info(status)
    return info.reason if info is not None else ""


def check_call_end(error: grpc.RpcError | None) -> tuple[str, list[str]]:
    """The reason a call ended with, and problems with it against the table ("end of the call")."""
    from grpc_status import rpc_status

    if error is None:
        return "", []
    rich = rpc_status.from_call(error)
    if rich is None:
        return "", [f"the call ended with {error.code()} without a rich status: {error.details()}"]
    return reason_of(rich), check_refusal(rich, "end of the call")
