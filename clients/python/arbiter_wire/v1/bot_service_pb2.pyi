import datetime

from arbiter_wire.v1 import common_pb2 as _common_pb2
from arbiter_wire.v1 import flank_pb2 as _flank_pb2
from arbiter_wire.v1 import surge_pb2 as _surge_pb2
from google.protobuf import duration_pb2 as _duration_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.rpc import status_pb2 as _status_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class TimeoutPolicy(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TIMEOUT_POLICY_UNSPECIFIED: _ClassVar[TimeoutPolicy]
    TIMEOUT_POLICY_LOSS: _ClassVar[TimeoutPolicy]
    TIMEOUT_POLICY_DEFAULT_ACTION: _ClassVar[TimeoutPolicy]

class IllegalActionPolicy(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ILLEGAL_ACTION_POLICY_UNSPECIFIED: _ClassVar[IllegalActionPolicy]
    ILLEGAL_ACTION_POLICY_FORFEIT: _ClassVar[IllegalActionPolicy]
    ILLEGAL_ACTION_POLICY_REJECT: _ClassVar[IllegalActionPolicy]

class RedirectReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    REDIRECT_REASON_UNSPECIFIED: _ClassVar[RedirectReason]
    REDIRECT_REASON_MATCHES: _ClassVar[RedirectReason]
    REDIRECT_REASON_LADDER: _ClassVar[RedirectReason]
    REDIRECT_REASON_DRAINING: _ClassVar[RedirectReason]

class EventFormat(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    EVENT_FORMAT_UNSPECIFIED: _ClassVar[EventFormat]
    EVENT_FORMAT_ROUND_ROBIN: _ClassVar[EventFormat]
    EVENT_FORMAT_DOUBLE_ROUND_ROBIN: _ClassVar[EventFormat]
    EVENT_FORMAT_SWISS: _ClassVar[EventFormat]
    EVENT_FORMAT_KNOCKOUT: _ClassVar[EventFormat]
    EVENT_FORMAT_ARENA: _ClassVar[EventFormat]

class EventStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    EVENT_STATUS_UNSPECIFIED: _ClassVar[EventStatus]
    EVENT_STATUS_SCHEDULED: _ClassVar[EventStatus]
    EVENT_STATUS_RUNNING: _ClassVar[EventStatus]
    EVENT_STATUS_FINISHED: _ClassVar[EventStatus]
    EVENT_STATUS_CANCELLED: _ClassVar[EventStatus]
TIMEOUT_POLICY_UNSPECIFIED: TimeoutPolicy
TIMEOUT_POLICY_LOSS: TimeoutPolicy
TIMEOUT_POLICY_DEFAULT_ACTION: TimeoutPolicy
ILLEGAL_ACTION_POLICY_UNSPECIFIED: IllegalActionPolicy
ILLEGAL_ACTION_POLICY_FORFEIT: IllegalActionPolicy
ILLEGAL_ACTION_POLICY_REJECT: IllegalActionPolicy
REDIRECT_REASON_UNSPECIFIED: RedirectReason
REDIRECT_REASON_MATCHES: RedirectReason
REDIRECT_REASON_LADDER: RedirectReason
REDIRECT_REASON_DRAINING: RedirectReason
EVENT_FORMAT_UNSPECIFIED: EventFormat
EVENT_FORMAT_ROUND_ROBIN: EventFormat
EVENT_FORMAT_DOUBLE_ROUND_ROBIN: EventFormat
EVENT_FORMAT_SWISS: EventFormat
EVENT_FORMAT_KNOCKOUT: EventFormat
EVENT_FORMAT_ARENA: EventFormat
EVENT_STATUS_UNSPECIFIED: EventStatus
EVENT_STATUS_SCHEDULED: EventStatus
EVENT_STATUS_RUNNING: EventStatus
EVENT_STATUS_FINISHED: EventStatus
EVENT_STATUS_CANCELLED: EventStatus

class PlayRequest(_message.Message):
    __slots__ = ("seek", "move", "join_ladder", "leave_ladder", "challenge", "enter_event", "withdraw_event")
    SEEK_FIELD_NUMBER: _ClassVar[int]
    MOVE_FIELD_NUMBER: _ClassVar[int]
    JOIN_LADDER_FIELD_NUMBER: _ClassVar[int]
    LEAVE_LADDER_FIELD_NUMBER: _ClassVar[int]
    CHALLENGE_FIELD_NUMBER: _ClassVar[int]
    ENTER_EVENT_FIELD_NUMBER: _ClassVar[int]
    WITHDRAW_EVENT_FIELD_NUMBER: _ClassVar[int]
    seek: Seek
    move: Move
    join_ladder: JoinLadder
    leave_ladder: LeaveLadder
    challenge: Challenge
    enter_event: EnterEvent
    withdraw_event: WithdrawEvent
    def __init__(self, seek: _Optional[_Union[Seek, _Mapping]] = ..., move: _Optional[_Union[Move, _Mapping]] = ..., join_ladder: _Optional[_Union[JoinLadder, _Mapping]] = ..., leave_ladder: _Optional[_Union[LeaveLadder, _Mapping]] = ..., challenge: _Optional[_Union[Challenge, _Mapping]] = ..., enter_event: _Optional[_Union[EnterEvent, _Mapping]] = ..., withdraw_event: _Optional[_Union[WithdrawEvent, _Mapping]] = ...) -> None: ...

class EnterEvent(_message.Message):
    __slots__ = ("event", "spec")
    EVENT_FIELD_NUMBER: _ClassVar[int]
    SPEC_FIELD_NUMBER: _ClassVar[int]
    event: str
    spec: _common_pb2.GameSpec
    def __init__(self, event: _Optional[str] = ..., spec: _Optional[_Union[_common_pb2.GameSpec, _Mapping]] = ...) -> None: ...

class WithdrawEvent(_message.Message):
    __slots__ = ("event",)
    EVENT_FIELD_NUMBER: _ClassVar[int]
    event: str
    def __init__(self, event: _Optional[str] = ...) -> None: ...

class JoinLadder(_message.Message):
    __slots__ = ("ladder", "max_concurrent")
    LADDER_FIELD_NUMBER: _ClassVar[int]
    MAX_CONCURRENT_FIELD_NUMBER: _ClassVar[int]
    ladder: str
    max_concurrent: int
    def __init__(self, ladder: _Optional[str] = ..., max_concurrent: _Optional[int] = ...) -> None: ...

class LeaveLadder(_message.Message):
    __slots__ = ("ladder",)
    LADDER_FIELD_NUMBER: _ClassVar[int]
    ladder: str
    def __init__(self, ladder: _Optional[str] = ...) -> None: ...

class Challenge(_message.Message):
    __slots__ = ("ladder", "opponent", "challenge_id")
    LADDER_FIELD_NUMBER: _ClassVar[int]
    OPPONENT_FIELD_NUMBER: _ClassVar[int]
    CHALLENGE_ID_FIELD_NUMBER: _ClassVar[int]
    ladder: str
    opponent: str
    challenge_id: str
    def __init__(self, ladder: _Optional[str] = ..., opponent: _Optional[str] = ..., challenge_id: _Optional[str] = ...) -> None: ...

class Seek(_message.Message):
    __slots__ = ("spec", "time_control", "seek_id")
    SPEC_FIELD_NUMBER: _ClassVar[int]
    TIME_CONTROL_FIELD_NUMBER: _ClassVar[int]
    SEEK_ID_FIELD_NUMBER: _ClassVar[int]
    spec: _common_pb2.GameSpec
    time_control: _common_pb2.TimeControl
    seek_id: str
    def __init__(self, spec: _Optional[_Union[_common_pb2.GameSpec, _Mapping]] = ..., time_control: _Optional[_Union[_common_pb2.TimeControl, _Mapping]] = ..., seek_id: _Optional[str] = ...) -> None: ...

class Move(_message.Message):
    __slots__ = ("match_id", "turn_id", "action")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    TURN_ID_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    turn_id: int
    action: Action
    def __init__(self, match_id: _Optional[str] = ..., turn_id: _Optional[int] = ..., action: _Optional[_Union[Action, _Mapping]] = ...) -> None: ...

class Action(_message.Message):
    __slots__ = ("flank", "surge")
    FLANK_FIELD_NUMBER: _ClassVar[int]
    SURGE_FIELD_NUMBER: _ClassVar[int]
    flank: _flank_pb2.FlankAction
    surge: _surge_pb2.SurgeAction
    def __init__(self, flank: _Optional[_Union[_flank_pb2.FlankAction, _Mapping]] = ..., surge: _Optional[_Union[_surge_pb2.SurgeAction, _Mapping]] = ...) -> None: ...

class Observation(_message.Message):
    __slots__ = ("flank", "surge")
    FLANK_FIELD_NUMBER: _ClassVar[int]
    SURGE_FIELD_NUMBER: _ClassVar[int]
    flank: _flank_pb2.FlankObservation
    surge: _surge_pb2.SurgeObservation
    def __init__(self, flank: _Optional[_Union[_flank_pb2.FlankObservation, _Mapping]] = ..., surge: _Optional[_Union[_surge_pb2.SurgeObservation, _Mapping]] = ...) -> None: ...

class LegalActions(_message.Message):
    __slots__ = ("flank", "surge")
    FLANK_FIELD_NUMBER: _ClassVar[int]
    SURGE_FIELD_NUMBER: _ClassVar[int]
    flank: _flank_pb2.FlankLegal
    surge: _surge_pb2.SurgeLegal
    def __init__(self, flank: _Optional[_Union[_flank_pb2.FlankLegal, _Mapping]] = ..., surge: _Optional[_Union[_surge_pb2.SurgeLegal, _Mapping]] = ...) -> None: ...

class PlayResponse(_message.Message):
    __slots__ = ("welcome", "match_started", "turn", "move_rejected", "move_acknowledged", "match_ended", "seek_rejected", "seek_pending", "ladder_joined", "ladder_rejected", "redirect", "event_entered", "event_rejected", "event_withdrawn", "event_ended")
    WELCOME_FIELD_NUMBER: _ClassVar[int]
    MATCH_STARTED_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    MOVE_REJECTED_FIELD_NUMBER: _ClassVar[int]
    MOVE_ACKNOWLEDGED_FIELD_NUMBER: _ClassVar[int]
    MATCH_ENDED_FIELD_NUMBER: _ClassVar[int]
    SEEK_REJECTED_FIELD_NUMBER: _ClassVar[int]
    SEEK_PENDING_FIELD_NUMBER: _ClassVar[int]
    LADDER_JOINED_FIELD_NUMBER: _ClassVar[int]
    LADDER_REJECTED_FIELD_NUMBER: _ClassVar[int]
    REDIRECT_FIELD_NUMBER: _ClassVar[int]
    EVENT_ENTERED_FIELD_NUMBER: _ClassVar[int]
    EVENT_REJECTED_FIELD_NUMBER: _ClassVar[int]
    EVENT_WITHDRAWN_FIELD_NUMBER: _ClassVar[int]
    EVENT_ENDED_FIELD_NUMBER: _ClassVar[int]
    welcome: Welcome
    match_started: MatchStarted
    turn: Turn
    move_rejected: MoveRejected
    move_acknowledged: MoveAcknowledged
    match_ended: MatchEnded
    seek_rejected: SeekRejected
    seek_pending: SeekPending
    ladder_joined: LadderJoined
    ladder_rejected: LadderRejected
    redirect: Redirect
    event_entered: EventEntered
    event_rejected: EventRejected
    event_withdrawn: EventWithdrawn
    event_ended: EventEnded
    def __init__(self, welcome: _Optional[_Union[Welcome, _Mapping]] = ..., match_started: _Optional[_Union[MatchStarted, _Mapping]] = ..., turn: _Optional[_Union[Turn, _Mapping]] = ..., move_rejected: _Optional[_Union[MoveRejected, _Mapping]] = ..., move_acknowledged: _Optional[_Union[MoveAcknowledged, _Mapping]] = ..., match_ended: _Optional[_Union[MatchEnded, _Mapping]] = ..., seek_rejected: _Optional[_Union[SeekRejected, _Mapping]] = ..., seek_pending: _Optional[_Union[SeekPending, _Mapping]] = ..., ladder_joined: _Optional[_Union[LadderJoined, _Mapping]] = ..., ladder_rejected: _Optional[_Union[LadderRejected, _Mapping]] = ..., redirect: _Optional[_Union[Redirect, _Mapping]] = ..., event_entered: _Optional[_Union[EventEntered, _Mapping]] = ..., event_rejected: _Optional[_Union[EventRejected, _Mapping]] = ..., event_withdrawn: _Optional[_Union[EventWithdrawn, _Mapping]] = ..., event_ended: _Optional[_Union[EventEnded, _Mapping]] = ...) -> None: ...

class Redirect(_message.Message):
    __slots__ = ("address", "join_token", "join_token_expires_in", "reason", "ladder")
    ADDRESS_FIELD_NUMBER: _ClassVar[int]
    JOIN_TOKEN_FIELD_NUMBER: _ClassVar[int]
    JOIN_TOKEN_EXPIRES_IN_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    LADDER_FIELD_NUMBER: _ClassVar[int]
    address: str
    join_token: str
    join_token_expires_in: _duration_pb2.Duration
    reason: RedirectReason
    ladder: str
    def __init__(self, address: _Optional[str] = ..., join_token: _Optional[str] = ..., join_token_expires_in: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., reason: _Optional[_Union[RedirectReason, str]] = ..., ladder: _Optional[str] = ...) -> None: ...

class LadderJoined(_message.Message):
    __slots__ = ("ladder", "spec", "time_control", "timeout_policy", "illegal_action_policy", "rated", "max_concurrent", "bot_version", "resumed_from_pause")
    LADDER_FIELD_NUMBER: _ClassVar[int]
    SPEC_FIELD_NUMBER: _ClassVar[int]
    TIME_CONTROL_FIELD_NUMBER: _ClassVar[int]
    TIMEOUT_POLICY_FIELD_NUMBER: _ClassVar[int]
    ILLEGAL_ACTION_POLICY_FIELD_NUMBER: _ClassVar[int]
    RATED_FIELD_NUMBER: _ClassVar[int]
    MAX_CONCURRENT_FIELD_NUMBER: _ClassVar[int]
    BOT_VERSION_FIELD_NUMBER: _ClassVar[int]
    RESUMED_FROM_PAUSE_FIELD_NUMBER: _ClassVar[int]
    ladder: str
    spec: _common_pb2.GameSpec
    time_control: _common_pb2.TimeControl
    timeout_policy: TimeoutPolicy
    illegal_action_policy: IllegalActionPolicy
    rated: bool
    max_concurrent: int
    bot_version: str
    resumed_from_pause: str
    def __init__(self, ladder: _Optional[str] = ..., spec: _Optional[_Union[_common_pb2.GameSpec, _Mapping]] = ..., time_control: _Optional[_Union[_common_pb2.TimeControl, _Mapping]] = ..., timeout_policy: _Optional[_Union[TimeoutPolicy, str]] = ..., illegal_action_policy: _Optional[_Union[IllegalActionPolicy, str]] = ..., rated: _Optional[bool] = ..., max_concurrent: _Optional[int] = ..., bot_version: _Optional[str] = ..., resumed_from_pause: _Optional[str] = ...) -> None: ...

class LadderRejected(_message.Message):
    __slots__ = ("status", "ladder", "challenge_id")
    STATUS_FIELD_NUMBER: _ClassVar[int]
    LADDER_FIELD_NUMBER: _ClassVar[int]
    CHALLENGE_ID_FIELD_NUMBER: _ClassVar[int]
    status: _status_pb2.Status
    ladder: str
    challenge_id: str
    def __init__(self, status: _Optional[_Union[_status_pb2.Status, _Mapping]] = ..., ladder: _Optional[str] = ..., challenge_id: _Optional[str] = ...) -> None: ...

class SeekPending(_message.Message):
    __slots__ = ("seek_id", "waiting", "spec")
    SEEK_ID_FIELD_NUMBER: _ClassVar[int]
    WAITING_FIELD_NUMBER: _ClassVar[int]
    SPEC_FIELD_NUMBER: _ClassVar[int]
    seek_id: str
    waiting: int
    spec: _common_pb2.GameSpec
    def __init__(self, seek_id: _Optional[str] = ..., waiting: _Optional[int] = ..., spec: _Optional[_Union[_common_pb2.GameSpec, _Mapping]] = ...) -> None: ...

class SeekRejected(_message.Message):
    __slots__ = ("status", "seek_id")
    STATUS_FIELD_NUMBER: _ClassVar[int]
    SEEK_ID_FIELD_NUMBER: _ClassVar[int]
    status: _status_pb2.Status
    seek_id: str
    def __init__(self, status: _Optional[_Union[_status_pb2.Status, _Mapping]] = ..., seek_id: _Optional[str] = ...) -> None: ...

class Welcome(_message.Message):
    __slots__ = ("bot_name", "resumed_match_ids", "server_version", "default_time_control", "ended_match_ids", "bot_version", "ladder_pauses")
    BOT_NAME_FIELD_NUMBER: _ClassVar[int]
    RESUMED_MATCH_IDS_FIELD_NUMBER: _ClassVar[int]
    SERVER_VERSION_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_TIME_CONTROL_FIELD_NUMBER: _ClassVar[int]
    ENDED_MATCH_IDS_FIELD_NUMBER: _ClassVar[int]
    BOT_VERSION_FIELD_NUMBER: _ClassVar[int]
    LADDER_PAUSES_FIELD_NUMBER: _ClassVar[int]
    bot_name: str
    resumed_match_ids: _containers.RepeatedScalarFieldContainer[str]
    server_version: str
    default_time_control: _common_pb2.TimeControl
    ended_match_ids: _containers.RepeatedScalarFieldContainer[str]
    bot_version: str
    ladder_pauses: _containers.RepeatedCompositeFieldContainer[LadderPause]
    def __init__(self, bot_name: _Optional[str] = ..., resumed_match_ids: _Optional[_Iterable[str]] = ..., server_version: _Optional[str] = ..., default_time_control: _Optional[_Union[_common_pb2.TimeControl, _Mapping]] = ..., ended_match_ids: _Optional[_Iterable[str]] = ..., bot_version: _Optional[str] = ..., ladder_pauses: _Optional[_Iterable[_Union[LadderPause, _Mapping]]] = ...) -> None: ...

class LadderPause(_message.Message):
    __slots__ = ("ladder", "reason")
    LADDER_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    ladder: str
    reason: str
    def __init__(self, ladder: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class MatchStarted(_message.Message):
    __slots__ = ("match_id", "spec", "seat", "colour", "opponent_name", "time_control", "seed_commitment", "resumed", "timeout_policy", "illegal_action_policy", "clocks", "seek_id", "observation", "ladder")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SPEC_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    COLOUR_FIELD_NUMBER: _ClassVar[int]
    OPPONENT_NAME_FIELD_NUMBER: _ClassVar[int]
    TIME_CONTROL_FIELD_NUMBER: _ClassVar[int]
    SEED_COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    RESUMED_FIELD_NUMBER: _ClassVar[int]
    TIMEOUT_POLICY_FIELD_NUMBER: _ClassVar[int]
    ILLEGAL_ACTION_POLICY_FIELD_NUMBER: _ClassVar[int]
    CLOCKS_FIELD_NUMBER: _ClassVar[int]
    SEEK_ID_FIELD_NUMBER: _ClassVar[int]
    OBSERVATION_FIELD_NUMBER: _ClassVar[int]
    LADDER_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    spec: _common_pb2.GameSpec
    seat: _common_pb2.Seat
    colour: _common_pb2.Colour
    opponent_name: str
    time_control: _common_pb2.TimeControl
    seed_commitment: str
    resumed: bool
    timeout_policy: TimeoutPolicy
    illegal_action_policy: IllegalActionPolicy
    clocks: _containers.RepeatedCompositeFieldContainer[_common_pb2.Clock]
    seek_id: str
    observation: Observation
    ladder: str
    def __init__(self, match_id: _Optional[str] = ..., spec: _Optional[_Union[_common_pb2.GameSpec, _Mapping]] = ..., seat: _Optional[_Union[_common_pb2.Seat, str]] = ..., colour: _Optional[_Union[_common_pb2.Colour, str]] = ..., opponent_name: _Optional[str] = ..., time_control: _Optional[_Union[_common_pb2.TimeControl, _Mapping]] = ..., seed_commitment: _Optional[str] = ..., resumed: _Optional[bool] = ..., timeout_policy: _Optional[_Union[TimeoutPolicy, str]] = ..., illegal_action_policy: _Optional[_Union[IllegalActionPolicy, str]] = ..., clocks: _Optional[_Iterable[_Union[_common_pb2.Clock, _Mapping]]] = ..., seek_id: _Optional[str] = ..., observation: _Optional[_Union[Observation, _Mapping]] = ..., ladder: _Optional[str] = ...) -> None: ...

class Turn(_message.Message):
    __slots__ = ("match_id", "turn_id", "observation", "legal", "clocks", "decision_limit", "seat", "colour")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    TURN_ID_FIELD_NUMBER: _ClassVar[int]
    OBSERVATION_FIELD_NUMBER: _ClassVar[int]
    LEGAL_FIELD_NUMBER: _ClassVar[int]
    CLOCKS_FIELD_NUMBER: _ClassVar[int]
    DECISION_LIMIT_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    COLOUR_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    turn_id: int
    observation: Observation
    legal: LegalActions
    clocks: _containers.RepeatedCompositeFieldContainer[_common_pb2.Clock]
    decision_limit: _duration_pb2.Duration
    seat: _common_pb2.Seat
    colour: _common_pb2.Colour
    def __init__(self, match_id: _Optional[str] = ..., turn_id: _Optional[int] = ..., observation: _Optional[_Union[Observation, _Mapping]] = ..., legal: _Optional[_Union[LegalActions, _Mapping]] = ..., clocks: _Optional[_Iterable[_Union[_common_pb2.Clock, _Mapping]]] = ..., decision_limit: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., seat: _Optional[_Union[_common_pb2.Seat, str]] = ..., colour: _Optional[_Union[_common_pb2.Colour, str]] = ...) -> None: ...

class MoveRejected(_message.Message):
    __slots__ = ("match_id", "turn_id", "status", "may_retry")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    TURN_ID_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    MAY_RETRY_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    turn_id: int
    status: _status_pb2.Status
    may_retry: bool
    def __init__(self, match_id: _Optional[str] = ..., turn_id: _Optional[int] = ..., status: _Optional[_Union[_status_pb2.Status, _Mapping]] = ..., may_retry: _Optional[bool] = ...) -> None: ...

class MoveAcknowledged(_message.Message):
    __slots__ = ("match_id", "turn_id")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    TURN_ID_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    turn_id: int
    def __init__(self, match_id: _Optional[str] = ..., turn_id: _Optional[int] = ...) -> None: ...

class MatchEnded(_message.Message):
    __slots__ = ("match_id", "result", "final_observation", "seed", "seat", "actions")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    FINAL_OBSERVATION_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ACTIONS_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    result: _common_pb2.Result
    final_observation: Observation
    seed: str
    seat: _common_pb2.Seat
    actions: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, match_id: _Optional[str] = ..., result: _Optional[_Union[_common_pb2.Result, _Mapping]] = ..., final_observation: _Optional[_Union[Observation, _Mapping]] = ..., seed: _Optional[str] = ..., seat: _Optional[_Union[_common_pb2.Seat, str]] = ..., actions: _Optional[_Iterable[str]] = ...) -> None: ...

class EventEntered(_message.Message):
    __slots__ = ("event", "spec", "time_control", "timeout_policy", "illegal_action_policy", "format", "starts_at", "entrants", "seed", "status")
    EVENT_FIELD_NUMBER: _ClassVar[int]
    SPEC_FIELD_NUMBER: _ClassVar[int]
    TIME_CONTROL_FIELD_NUMBER: _ClassVar[int]
    TIMEOUT_POLICY_FIELD_NUMBER: _ClassVar[int]
    ILLEGAL_ACTION_POLICY_FIELD_NUMBER: _ClassVar[int]
    FORMAT_FIELD_NUMBER: _ClassVar[int]
    STARTS_AT_FIELD_NUMBER: _ClassVar[int]
    ENTRANTS_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    event: str
    spec: _common_pb2.GameSpec
    time_control: _common_pb2.TimeControl
    timeout_policy: TimeoutPolicy
    illegal_action_policy: IllegalActionPolicy
    format: EventFormat
    starts_at: _timestamp_pb2.Timestamp
    entrants: int
    seed: int
    status: EventStatus
    def __init__(self, event: _Optional[str] = ..., spec: _Optional[_Union[_common_pb2.GameSpec, _Mapping]] = ..., time_control: _Optional[_Union[_common_pb2.TimeControl, _Mapping]] = ..., timeout_policy: _Optional[_Union[TimeoutPolicy, str]] = ..., illegal_action_policy: _Optional[_Union[IllegalActionPolicy, str]] = ..., format: _Optional[_Union[EventFormat, str]] = ..., starts_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., entrants: _Optional[int] = ..., seed: _Optional[int] = ..., status: _Optional[_Union[EventStatus, str]] = ...) -> None: ...

class EventRejected(_message.Message):
    __slots__ = ("status", "event")
    STATUS_FIELD_NUMBER: _ClassVar[int]
    EVENT_FIELD_NUMBER: _ClassVar[int]
    status: _status_pb2.Status
    event: str
    def __init__(self, status: _Optional[_Union[_status_pb2.Status, _Mapping]] = ..., event: _Optional[str] = ...) -> None: ...

class EventWithdrawn(_message.Message):
    __slots__ = ("event", "removed")
    EVENT_FIELD_NUMBER: _ClassVar[int]
    REMOVED_FIELD_NUMBER: _ClassVar[int]
    event: str
    removed: bool
    def __init__(self, event: _Optional[str] = ..., removed: _Optional[bool] = ...) -> None: ...

class EventEnded(_message.Message):
    __slots__ = ("event", "status", "place", "points", "entrants")
    EVENT_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    PLACE_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    ENTRANTS_FIELD_NUMBER: _ClassVar[int]
    event: str
    status: EventStatus
    place: int
    points: float
    entrants: int
    def __init__(self, event: _Optional[str] = ..., status: _Optional[_Union[EventStatus, str]] = ..., place: _Optional[int] = ..., points: _Optional[float] = ..., entrants: _Optional[int] = ...) -> None: ...
