from arbiter_wire.v1 import common_pb2 as _common_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class SurgePlace(_message.Message):
    __slots__ = ("value", "square")
    VALUE_FIELD_NUMBER: _ClassVar[int]
    SQUARE_FIELD_NUMBER: _ClassVar[int]
    value: int
    square: str
    def __init__(self, value: _Optional[int] = ..., square: _Optional[str] = ...) -> None: ...

class SurgeSkip(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SurgeAction(_message.Message):
    __slots__ = ("place", "skip")
    PLACE_FIELD_NUMBER: _ClassVar[int]
    SKIP_FIELD_NUMBER: _ClassVar[int]
    place: SurgePlace
    skip: SurgeSkip
    def __init__(self, place: _Optional[_Union[SurgePlace, _Mapping]] = ..., skip: _Optional[_Union[SurgeSkip, _Mapping]] = ...) -> None: ...

class SurgeLegal(_message.Message):
    __slots__ = ("values", "squares")
    VALUES_FIELD_NUMBER: _ClassVar[int]
    SQUARES_FIELD_NUMBER: _ClassVar[int]
    values: _containers.RepeatedScalarFieldContainer[int]
    squares: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, values: _Optional[_Iterable[int]] = ..., squares: _Optional[_Iterable[str]] = ...) -> None: ...

class SurgeStone(_message.Message):
    __slots__ = ("square", "colour", "value")
    SQUARE_FIELD_NUMBER: _ClassVar[int]
    COLOUR_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    square: str
    colour: _common_pb2.Colour
    value: int
    def __init__(self, square: _Optional[str] = ..., colour: _Optional[_Union[_common_pb2.Colour, str]] = ..., value: _Optional[int] = ...) -> None: ...

class SurgeObservation(_message.Message):
    __slots__ = ("seat", "colour", "round", "rounds_played", "over", "your_turn", "to_move", "first_placer", "face_up", "face_down", "hand", "supply", "opponent_hand_size", "opponent_supply_size", "blue_score", "orange_score", "removed_blue", "removed_orange")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    COLOUR_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    ROUNDS_PLAYED_FIELD_NUMBER: _ClassVar[int]
    OVER_FIELD_NUMBER: _ClassVar[int]
    YOUR_TURN_FIELD_NUMBER: _ClassVar[int]
    TO_MOVE_FIELD_NUMBER: _ClassVar[int]
    FIRST_PLACER_FIELD_NUMBER: _ClassVar[int]
    FACE_UP_FIELD_NUMBER: _ClassVar[int]
    FACE_DOWN_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    SUPPLY_FIELD_NUMBER: _ClassVar[int]
    OPPONENT_HAND_SIZE_FIELD_NUMBER: _ClassVar[int]
    OPPONENT_SUPPLY_SIZE_FIELD_NUMBER: _ClassVar[int]
    BLUE_SCORE_FIELD_NUMBER: _ClassVar[int]
    ORANGE_SCORE_FIELD_NUMBER: _ClassVar[int]
    REMOVED_BLUE_FIELD_NUMBER: _ClassVar[int]
    REMOVED_ORANGE_FIELD_NUMBER: _ClassVar[int]
    seat: _common_pb2.Seat
    colour: _common_pb2.Colour
    round: int
    rounds_played: int
    over: bool
    your_turn: bool
    to_move: _common_pb2.Colour
    first_placer: _common_pb2.Colour
    face_up: _containers.RepeatedCompositeFieldContainer[SurgeStone]
    face_down: _containers.RepeatedCompositeFieldContainer[SurgeStone]
    hand: _containers.RepeatedScalarFieldContainer[int]
    supply: _containers.RepeatedScalarFieldContainer[int]
    opponent_hand_size: int
    opponent_supply_size: int
    blue_score: int
    orange_score: int
    removed_blue: _containers.RepeatedScalarFieldContainer[int]
    removed_orange: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, seat: _Optional[_Union[_common_pb2.Seat, str]] = ..., colour: _Optional[_Union[_common_pb2.Colour, str]] = ..., round: _Optional[int] = ..., rounds_played: _Optional[int] = ..., over: _Optional[bool] = ..., your_turn: _Optional[bool] = ..., to_move: _Optional[_Union[_common_pb2.Colour, str]] = ..., first_placer: _Optional[_Union[_common_pb2.Colour, str]] = ..., face_up: _Optional[_Iterable[_Union[SurgeStone, _Mapping]]] = ..., face_down: _Optional[_Iterable[_Union[SurgeStone, _Mapping]]] = ..., hand: _Optional[_Iterable[int]] = ..., supply: _Optional[_Iterable[int]] = ..., opponent_hand_size: _Optional[int] = ..., opponent_supply_size: _Optional[int] = ..., blue_score: _Optional[int] = ..., orange_score: _Optional[int] = ..., removed_blue: _Optional[_Iterable[int]] = ..., removed_orange: _Optional[_Iterable[int]] = ...) -> None: ...
