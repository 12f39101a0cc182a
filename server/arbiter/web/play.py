"""Play a bot as a guest over JSON (issue 23; ``arbiter serve --web ... --guests-play``).

Three routes: ``POST /api/play`` starts a match against a connected bot and answers its id and the
seat's secret token; ``GET /api/play/{match_id}`` is the seat's view; ``POST
/api/play/{match_id}/moves`` answers its turn. The two routes of a match want the token in the
``X-Play-Token`` header: the match id alone lets nobody read or move for the seat, and a page of
another site cannot send that header (no CORS here), so no cross-site request can move either.
The matching logic is ``sessions.human``'s: the same match code referees the bot and the person.
"""

from __future__ import annotations

from typing import Annotated, Any

from arbiter_games.timecontrol import TimeControl
from fastapi import FastAPI, Header, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

from ..security.ratelimit import address_key
from ..sessions.human import HumanSeats, PlayRefused

#: The header that carries a seat's secret token.
TOKEN_HEADER = "X-Play-Token"
#: A route's token parameter (the header; absent: None, answered 404).
PlayToken = Annotated[str | None, Header(alias=TOKEN_HEADER)]
#: What a route answers: a view, or a problem with its status.
Answer = dict[str, Any] | JSONResponse


class PlayRequest(BaseModel):
    bot: str = Field(description="The connected bot to play (joined to a ladder of the game).")
    game: str = Field(description="torrent, fravan or surge")
    options: dict[str, int] = Field(default_factory=dict, description='Its options, e.g. {"size": 5}.')
    base: float = Field(60.0, gt=0, description="Seconds on each clock.")
    increment: float = Field(0.0, ge=0, description="Seconds added to a clock per decision.")
    seat: int | None = Field(None, description="1 or 2 (default: drawn at random).")


class MoveRequest(BaseModel):
    action: str = Field(description="An action's text, one of the view's legal actions.")
    turn_id: int | None = Field(None, description="The turn answered (default: the seat's pending turn).")


class PlayResult(BaseModel):
    reason: str
    winner_seat: int | None
    you_won: bool | None
    scores: dict[str, int]
    detail: str | None


class SeatView(BaseModel):
    """What the person's seat is shown: what a bot's seat gets (its observation, legal actions
    as text, the server's clock reading in seconds left per seat)."""

    match_id: str
    game: str
    options: dict[str, int]
    seat: int
    colour: str
    bot: str
    observation: dict[str, Any]
    to_move: int | None
    turn_id: int | None
    legal: list[str]
    clocks: dict[str, float | None]
    over: bool
    result: PlayResult | None


class PlayStarted(SeatView):
    token: str = Field(description=f"The seat's secret: send it as the {TOKEN_HEADER} header.")


class PlayProblem(BaseModel):
    detail: str
    reason: str


def _refused(exc: PlayRefused) -> JSONResponse:
    return JSONResponse({"detail": exc.message, "reason": exc.reason}, status_code=exc.status)


def add_play_routes(app: FastAPI, people: HumanSeats) -> None:
    """The three play routes on ``app``, over the arbiter's persons' seats. The handlers are
    coroutines: they run on the arbiter's loop, as its matches do."""
    problems: dict[int | str, dict[str, Any]] = {
        status: {"model": PlayProblem} for status in (400, 404, 409, 429)
    }

    @app.post("/api/play", response_model=PlayStarted, responses=problems, tags=["play"])
    async def start_play(body: PlayRequest, request: Request) -> Answer:
        """Start a match as a guest against a connected bot that has a free slot on a ladder of
        this game and options (unrated; the bot's ladder slot is taken while it runs)."""
        address = address_key(request.client.host if request.client is not None else "")
        try:
            control = TimeControl(base=body.base, increment=body.increment)
            person = people.start(body.bot, body.game, body.options, control, address, body.seat)
            view = people.view(person.match_id, person.token)
        except ValueError as exc:  # a time control out of bounds
            return _refused(PlayRefused(400, "BAD_REQUEST", str(exc)))
        except PlayRefused as exc:
            return _refused(exc)
        return {**view, "token": person.token}

    @app.get("/api/play/{match_id}", response_model=SeatView, responses=problems, tags=["play"])
    async def play_view(match_id: str, token: PlayToken = None) -> Answer:
        """The seat's view now (poll it while the bot thinks)."""
        try:
            return people.view(match_id, token)
        except PlayRefused as exc:
            return _refused(exc)

    @app.post("/api/play/{match_id}/moves", response_model=SeatView, responses=problems, tags=["play"])
    async def play_move(match_id: str, body: MoveRequest, token: PlayToken = None) -> Answer:
        """Answer the seat's turn: the new view, or 400 (illegal or malformed: the engine's
        reason) or 409 (not the seat's turn, or the match is over)."""
        try:
            return people.move(match_id, token, body.action, body.turn_id)
        except PlayRefused as exc:
            return _refused(exc)
