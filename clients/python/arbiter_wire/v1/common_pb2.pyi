import datetime

from google.protobuf import duration_pb2 as _duration_pb2
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Game(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    GAME_UNSPECIFIED: _ClassVar[Game]
    GAME_TORRENT: _ClassVar[Game]
    GAME_FRAVAN: _ClassVar[Game]
    GAME_SURGE: _ClassVar[Game]

class Seat(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SEAT_UNSPECIFIED: _ClassVar[Seat]
    SEAT_1: _ClassVar[Seat]
    SEAT_2: _ClassVar[Seat]

class Colour(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    COLOUR_UNSPECIFIED: _ClassVar[Colour]
    COLOUR_BLACK: _ClassVar[Colour]
    COLOUR_WHITE: _ClassVar[Colour]
    COLOUR_BLUE: _ClassVar[Colour]
    COLOUR_ORANGE: _ClassVar[Colour]

class EndReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    END_REASON_UNSPECIFIED: _ClassVar[EndReason]
    END_REASON_TWO_PASSES: _ClassVar[EndReason]
    END_REASON_BOARD_EMPTY: _ClassVar[EndReason]
    END_REASON_NO_CHANGE_NO_STONES: _ClassVar[EndReason]
    END_REASON_NO_CHANGE_NOBODY_PLACED: _ClassVar[EndReason]
    END_REASON_ROUND_LIMIT: _ClassVar[EndReason]
    END_REASON_TIMEOUT: _ClassVar[EndReason]
    END_REASON_ILLEGAL_ACTION: _ClassVar[EndReason]
    END_REASON_MALFORMED_ACTION: _ClassVar[EndReason]
    END_REASON_ABORTED: _ClassVar[EndReason]

class ErrorReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ERROR_REASON_UNSPECIFIED: _ClassVar[ErrorReason]
    ERROR_REASON_MALFORMED_ACTION: _ClassVar[ErrorReason]
    ERROR_REASON_ILLEGAL_ACTION: _ClassVar[ErrorReason]
    ERROR_REASON_NOT_YOUR_TURN: _ClassVar[ErrorReason]
    ERROR_REASON_STALE_TURN: _ClassVar[ErrorReason]
    ERROR_REASON_UNKNOWN_MATCH: _ClassVar[ErrorReason]
    ERROR_REASON_CLOCK_EXPIRED: _ClassVar[ErrorReason]
    ERROR_REASON_BAD_TOKEN: _ClassVar[ErrorReason]
    ERROR_REASON_REPLACED: _ClassVar[ErrorReason]
    ERROR_REASON_BAD_REQUEST: _ClassVar[ErrorReason]
    ERROR_REASON_SHUTTING_DOWN: _ClassVar[ErrorReason]
    ERROR_REASON_RESOURCE_EXHAUSTED: _ClassVar[ErrorReason]
    ERROR_REASON_LADDER_NOT_FOUND: _ClassVar[ErrorReason]
    ERROR_REASON_BOT_DISABLED: _ClassVar[ErrorReason]
    ERROR_REASON_CHALLENGE_REFUSED: _ClassVar[ErrorReason]
    ERROR_REASON_RATE_LIMITED: _ClassVar[ErrorReason]
    ERROR_REASON_EVENT_NOT_FOUND: _ClassVar[ErrorReason]
    ERROR_REASON_EVENT_CLOSED: _ClassVar[ErrorReason]
    ERROR_REASON_EVENT_FULL: _ClassVar[ErrorReason]
    ERROR_REASON_INVITE_ONLY: _ClassVar[ErrorReason]
    ERROR_REASON_GAME_NOT_ACCEPTED: _ClassVar[ErrorReason]
GAME_UNSPECIFIED: Game
GAME_TORRENT: Game
GAME_FRAVAN: Game
GAME_SURGE: Game
SEAT_UNSPECIFIED: Seat
SEAT_1: Seat
SEAT_2: Seat
COLOUR_UNSPECIFIED: Colour
COLOUR_BLACK: Colour
COLOUR_WHITE: Colour
COLOUR_BLUE: Colour
COLOUR_ORANGE: Colour
END_REASON_UNSPECIFIED: EndReason
END_REASON_TWO_PASSES: EndReason
END_REASON_BOARD_EMPTY: EndReason
END_REASON_NO_CHANGE_NO_STONES: EndReason
END_REASON_NO_CHANGE_NOBODY_PLACED: EndReason
END_REASON_ROUND_LIMIT: EndReason
END_REASON_TIMEOUT: EndReason
END_REASON_ILLEGAL_ACTION: EndReason
END_REASON_MALFORMED_ACTION: EndReason
END_REASON_ABORTED: EndReason
ERROR_REASON_UNSPECIFIED: ErrorReason
ERROR_REASON_MALFORMED_ACTION: ErrorReason
ERROR_REASON_ILLEGAL_ACTION: ErrorReason
ERROR_REASON_NOT_YOUR_TURN: ErrorReason
ERROR_REASON_STALE_TURN: ErrorReason
ERROR_REASON_UNKNOWN_MATCH: ErrorReason
ERROR_REASON_CLOCK_EXPIRED: ErrorReason
ERROR_REASON_BAD_TOKEN: ErrorReason
ERROR_REASON_REPLACED: ErrorReason
ERROR_REASON_BAD_REQUEST: ErrorReason
ERROR_REASON_SHUTTING_DOWN: ErrorReason
ERROR_REASON_RESOURCE_EXHAUSTED: ErrorReason
ERROR_REASON_LADDER_NOT_FOUND: ErrorReason
ERROR_REASON_BOT_DISABLED: ErrorReason
ERROR_REASON_CHALLENGE_REFUSED: ErrorReason
ERROR_REASON_RATE_LIMITED: ErrorReason
ERROR_REASON_EVENT_NOT_FOUND: ErrorReason
ERROR_REASON_EVENT_CLOSED: ErrorReason
ERROR_REASON_EVENT_FULL: ErrorReason
ERROR_REASON_INVITE_ONLY: ErrorReason
ERROR_REASON_GAME_NOT_ACCEPTED: ErrorReason

class FlankOptions(_message.Message):
    __slots__ = ("size",)
    SIZE_FIELD_NUMBER: _ClassVar[int]
    size: int
    def __init__(self, size: _Optional[int] = ...) -> None: ...

class SurgeOptions(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GameSpec(_message.Message):
    __slots__ = ("game", "flank", "surge")
    GAME_FIELD_NUMBER: _ClassVar[int]
    FLANK_FIELD_NUMBER: _ClassVar[int]
    SURGE_FIELD_NUMBER: _ClassVar[int]
    game: Game
    flank: FlankOptions
    surge: SurgeOptions
    def __init__(self, game: _Optional[_Union[Game, str]] = ..., flank: _Optional[_Union[FlankOptions, _Mapping]] = ..., surge: _Optional[_Union[SurgeOptions, _Mapping]] = ...) -> None: ...

class TimeControl(_message.Message):
    __slots__ = ("base", "increment", "per_decision")
    BASE_FIELD_NUMBER: _ClassVar[int]
    INCREMENT_FIELD_NUMBER: _ClassVar[int]
    PER_DECISION_FIELD_NUMBER: _ClassVar[int]
    base: _duration_pb2.Duration
    increment: _duration_pb2.Duration
    per_decision: _duration_pb2.Duration
    def __init__(self, base: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., increment: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., per_decision: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ...) -> None: ...

class Clock(_message.Message):
    __slots__ = ("seat", "remaining")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    REMAINING_FIELD_NUMBER: _ClassVar[int]
    seat: Seat
    remaining: _duration_pb2.Duration
    def __init__(self, seat: _Optional[_Union[Seat, str]] = ..., remaining: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ...) -> None: ...

class Result(_message.Message):
    __slots__ = ("winner_seat", "winner_colour", "seat_1_score", "seat_2_score", "reason", "detail", "faulty_seat", "seat_1_colour", "seat_2_colour")
    WINNER_SEAT_FIELD_NUMBER: _ClassVar[int]
    WINNER_COLOUR_FIELD_NUMBER: _ClassVar[int]
    SEAT_1_SCORE_FIELD_NUMBER: _ClassVar[int]
    SEAT_2_SCORE_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    FAULTY_SEAT_FIELD_NUMBER: _ClassVar[int]
    SEAT_1_COLOUR_FIELD_NUMBER: _ClassVar[int]
    SEAT_2_COLOUR_FIELD_NUMBER: _ClassVar[int]
    winner_seat: Seat
    winner_colour: Colour
    seat_1_score: int
    seat_2_score: int
    reason: EndReason
    detail: str
    faulty_seat: Seat
    seat_1_colour: Colour
    seat_2_colour: Colour
    def __init__(self, winner_seat: _Optional[_Union[Seat, str]] = ..., winner_colour: _Optional[_Union[Colour, str]] = ..., seat_1_score: _Optional[int] = ..., seat_2_score: _Optional[int] = ..., reason: _Optional[_Union[EndReason, str]] = ..., detail: _Optional[str] = ..., faulty_seat: _Optional[_Union[Seat, str]] = ..., seat_1_colour: _Optional[_Union[Colour, str]] = ..., seat_2_colour: _Optional[_Union[Colour, str]] = ...) -> None: ...
