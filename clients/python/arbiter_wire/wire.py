"""Protocol-buffer bytes written directly, for the arbiter's hottest message (the Turn).

Building a ``Turn`` as protobuf objects and serialising it costs more than writing its bytes:
most of a Torrent Turn is two repeated fields (an event number per point, a name per empty
point) whose elements have few distinct values, so their encodings are made once and joined.

What is written here must be byte for byte what ``SerializeToString`` gives for the same
message (fields in field-number order; proto3 scalars left out when zero, empty or false;
sub-messages written whenever they are set, even when empty; repeated numbers packed).
``tests/server/test_encode.py`` holds it to that.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

#: Wire types of a field's tag.
VARINT = 0
LEN = 2

_MASK64 = (1 << 64) - 1


def varint(value: int) -> bytes:
    """The base-128 varint of ``value``; a negative value as its 64-bit two's complement (10
    bytes), as protobuf writes negative int32 and int64 fields."""
    value &= _MASK64
    out = bytearray()
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


#: Values below this have their varints made once, at import (event numbers, lengths, enums); a
#: bounded table, not a cache: turn ids and nanoseconds take every value and are encoded anew.
SMALL_LIMIT = 1 << 12
_SMALL = [varint(value) for value in range(SMALL_LIMIT)]


def _varint(value: int) -> bytes:
    return _SMALL[value] if 0 <= value < SMALL_LIMIT else varint(value)


def tag(number: int, wire_type: int) -> bytes:
    return varint(number << 3 | wire_type)


def length_delimited(field_tag: bytes, body: bytes) -> bytes:
    """A field of wire type LEN (a string, bytes, a sub-message or a packed list): always written."""
    return field_tag + _varint(len(body)) + body


def scalar(field_tag: bytes, value: int) -> bytes:
    """A proto3 varint field (an int, enum or bool): nothing when it is zero."""
    return field_tag + _varint(int(value)) if value else b""


def text(field_tag: bytes, value: str) -> bytes:
    """A proto3 string field: nothing when it is empty."""
    if not value:
        return b""
    data = value.encode()
    return field_tag + _varint(len(data)) + data


def packed(field_tag: bytes, values: Sequence[int]) -> bytes:
    """A packed repeated varint field (``repeated uint32``): nothing when there are no values."""
    try:
        body = bytes(values)  # each value below 128 is its own varint: one byte, as it is
    except ValueError:  # a value of 256 or more (or a negative one)
        body = b""
    if not body.isascii() or (not body and values):
        if min(values) >= 0 and max(values) < SMALL_LIMIT:  # the usual case: from the table, in C
            body = b"".join(map(_SMALL.__getitem__, values))
        else:
            body = b"".join([_varint(value) for value in values])
    return field_tag + _varint(len(body)) + body if body else b""


class StringFields(dict[str, bytes]):
    """The encodings of one repeated string field's values (tag, length, UTF-8), made once each:
    ``b"".join(map(cache.__getitem__, values))`` writes the whole field."""

    def __init__(self, number: int) -> None:
        super().__init__()
        self.field_tag = tag(number, LEN)

    def __missing__(self, value: str) -> bytes:
        data = value.encode()
        encoded = self[value] = self.field_tag + _varint(len(data)) + data
        return encoded


_SECONDS = tag(1, VARINT)
_NANOS = tag(2, VARINT)


def duration(seconds: float) -> bytes:
    """The body of a google.protobuf.Duration of ``seconds``, split as ``convert.duration_pb``
    splits it."""
    whole = int(seconds)
    nanos = round((seconds - whole) * 1e9)
    return scalar(_SECONDS, whole) + scalar(_NANOS, nanos)


class EncodedResponse:
    """An ``arbiter.v1.PlayResponse`` already serialised, with the few methods of a message the
    sessions ask for (its size, which of its ``kind`` fields is set). The transport's serialiser
    sends ``data`` as it is (``serialize_response``)."""

    __slots__ = ("data", "kind")

    def __init__(self, data: bytes, kind: str) -> None:
        self.data = data
        self.kind = kind

    def ByteSize(self) -> int:  # noqa: N802 - the name protobuf messages give it
        return len(self.data)

    def HasField(self, name: str) -> bool:  # noqa: N802
        return name == self.kind

    def WhichOneof(self, group: str) -> str | None:  # noqa: N802
        return self.kind if group == "kind" else None

    def SerializeToString(self) -> bytes:  # noqa: N802
        return self.data


def serialize_response(message: object) -> bytes:
    """The serialiser of the Play stream's responses: an ``EncodedResponse`` as it is, a message
    by ``SerializeToString``."""
    if type(message) is EncodedResponse:
        return message.data
    serialise: Callable[[], bytes] = getattr(message, "SerializeToString")  # noqa: B009
    return serialise()
