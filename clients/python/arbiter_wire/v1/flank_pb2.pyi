from arbiter_wire.v1 import common_pb2 as _common_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class FlankPlace(_message.Message):
    __slots__ = ("point",)
    POINT_FIELD_NUMBER: _ClassVar[int]
    point: str
    def __init__(self, point: _Optional[str] = ...) -> None: ...

class FlankPass(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class FlankSwap(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class FlankAction(_message.Message):
    __slots__ = ("place", "swap")
    PLACE_FIELD_NUMBER: _ClassVar[int]
    PASS_FIELD_NUMBER: _ClassVar[int]
    SWAP_FIELD_NUMBER: _ClassVar[int]
    place: FlankPlace
    swap: FlankSwap
    def __init__(self, place: _Optional[_Union[FlankPlace, _Mapping]] = ..., swap: _Optional[_Union[FlankSwap, _Mapping]] = ..., **kwargs) -> None: ...

class FlankLegal(_message.Message):
    __slots__ = ("points", "can_pass", "can_swap")
    POINTS_FIELD_NUMBER: _ClassVar[int]
    CAN_PASS_FIELD_NUMBER: _ClassVar[int]
    CAN_SWAP_FIELD_NUMBER: _ClassVar[int]
    points: _containers.RepeatedScalarFieldContainer[str]
    can_pass: bool
    can_swap: bool
    def __init__(self, points: _Optional[_Iterable[str]] = ..., can_pass: _Optional[bool] = ..., can_swap: _Optional[bool] = ...) -> None: ...

class FlankObservation(_message.Message):
    __slots__ = ("size", "seat", "colour", "to_move_seat", "to_move_colour", "board", "swapped", "action_count", "last_action", "first_pass_colour", "black_score", "white_score", "over", "events")
    SIZE_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    COLOUR_FIELD_NUMBER: _ClassVar[int]
    TO_MOVE_SEAT_FIELD_NUMBER: _ClassVar[int]
    TO_MOVE_COLOUR_FIELD_NUMBER: _ClassVar[int]
    BOARD_FIELD_NUMBER: _ClassVar[int]
    SWAPPED_FIELD_NUMBER: _ClassVar[int]
    ACTION_COUNT_FIELD_NUMBER: _ClassVar[int]
    LAST_ACTION_FIELD_NUMBER: _ClassVar[int]
    FIRST_PASS_COLOUR_FIELD_NUMBER: _ClassVar[int]
    BLACK_SCORE_FIELD_NUMBER: _ClassVar[int]
    WHITE_SCORE_FIELD_NUMBER: _ClassVar[int]
    OVER_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    size: int
    seat: _common_pb2.Seat
    colour: _common_pb2.Colour
    to_move_seat: _common_pb2.Seat
    to_move_colour: _common_pb2.Colour
    board: str
    swapped: bool
    action_count: int
    last_action: FlankAction
    first_pass_colour: _common_pb2.Colour
    black_score: int
    white_score: int
    over: bool
    events: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, size: _Optional[int] = ..., seat: _Optional[_Union[_common_pb2.Seat, str]] = ..., colour: _Optional[_Union[_common_pb2.Colour, str]] = ..., to_move_seat: _Optional[_Union[_common_pb2.Seat, str]] = ..., to_move_colour: _Optional[_Union[_common_pb2.Colour, str]] = ..., board: _Optional[str] = ..., swapped: _Optional[bool] = ..., action_count: _Optional[int] = ..., last_action: _Optional[_Union[FlankAction, _Mapping]] = ..., first_pass_colour: _Optional[_Union[_common_pb2.Colour, str]] = ..., black_score: _Optional[int] = ..., white_score: _Optional[int] = ..., over: _Optional[bool] = ..., events: _Optional[_Iterable[int]] = ...) -> None: ...
