"""The ladder on the web: standings, bot pages, replays, live spectating, and a JSON API.

``create_app(store, live=None)`` builds the FastAPI application. Pages are rendered on the server
(Jinja2 templates, boards and charts as inline SVG) and work without JavaScript; a little script
(``static/match.js``, ``static/live.js``) steps through replays and follows live matches over
server-sent events. Every page has a twin under ``/api/`` (OpenAPI description at
``/openapi.json``, a page of it at ``/docs``). Every answer carries the headers of
``headers.SecurityHeaders`` (a Content-Security-Policy that allows only the host's own files).

What a spectator gets of a running match comes only from ``live`` (a ``LiveHub``), which holds
public views and nothing else; a match's record is served only after the match has ended.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

from fastapi import FastAPI, HTTPException, Query, Request
from fastapi.encoders import jsonable_encoder as jsonable
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response, StreamingResponse
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from starlette.exceptions import HTTPException as StarletteHTTPException

from .. import __version__
from ..log_repeats import guard_logging
from ..security.ratelimit import address_key
from ..sessions.human import HumanSeats
from ..store import SqlStore
from ..store.export import ndjson_lines
from . import fragments, pages
from .accounts import AccountSettings, add_account_routes
from .guard import WebLimits, protocol_class
from .headers import EMBED_POLICY, SecurityHeaders
from .live import LiveHub, LiveMatch, TooManySpectators, Update, end_event
from .models import (
    BotPage,
    LadderPage,
    LadderSummary,
    LiveMatchOut,
    MatchPage,
    MatchSummary,
    Problem,
    WholeHistoryPage,
)
from .play import add_play_routes
from .svg import rating_chart

TEMPLATES = Path(__file__).parent / "templates"
STATIC = Path(__file__).parent / "static"
#: Seconds between keep-alive comments on an event stream.
HEARTBEAT = 15.0
#: Seconds a match's event stream waits for a running match the hub has not seen yet.
LIVE_WAIT = 5.0
STREAM_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


def _when(epoch: float | None) -> str:
    return "-" if epoch is None else time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(epoch))


def _seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}s"


def _schema_type(schema: dict[str, Any] | None) -> str:
    """A parameter's type as the API page shows it (``integer``, ``string or null``)."""
    if not schema:
        return "-"
    if "anyOf" in schema:
        return " or ".join(_schema_type(part) for part in schema["anyOf"])
    return str(schema.get("type", "-"))


def create_app(  # noqa: C901 - the routes are small closures over the store, one after another
    store: SqlStore,
    live: LiveHub | None = None,
    connected: Callable[[str], bool] | None = None,
    live_wait: float = LIVE_WAIT,
    notice: str | None = None,
    accounts: AccountSettings | None = None,
    people: HumanSeats | None = None,
) -> FastAPI:
    """The web application over ``store``; ``live`` follows running matches; ``connected`` tells
    whether a bot has a session now (known only inside the arbiter's process); ``live_wait``: the
    seconds a match's event stream waits for a running match the store knows and ``live`` has not
    seen yet (``arbiter web`` sees a new match at its next poll); ``notice`` is said at the top of
    every page (the demo says how long it lasts); ``accounts``: the owners' pages' settings
    (``web.accounts``; by default sign-up by invite, the cookies' key kept in the store);
    ``people``: the arbiter's persons' seats, whose play routes (``web.play``) are served only
    when given (``arbiter serve --guests-play``)."""
    app = FastAPI(
        title="Arbiter",
        version=__version__,
        description="Ladders, standings, bots and matches of an Arbiter game server (read only)."
        if people is None
        else "Ladders, standings, bots and matches of an Arbiter game server; guests play bots (/api/play).",
        # FastAPI's own /docs and /redoc pages load their scripts from a CDN and run inline ones:
        # the pages' policy allows neither, so /docs is a page of this app (below).
        docs_url=None,
        redoc_url=None,
    )
    app.add_middleware(SecurityHeaders)
    app.mount("/static", StaticFiles(directory=str(STATIC)), name="static")
    templates = Jinja2Templates(directory=str(TEMPLATES))
    templates.env.filters["when"] = _when
    templates.env.filters["seconds"] = _seconds
    templates.env.globals["standings_rows"] = fragments.standings_rows
    templates.env.globals["notice"] = notice
    templates.env.globals["status_of"] = pages.shown_status
    templates.env.globals["schema_type"] = _schema_type
    cache = pages.ReplayCache()
    add_account_routes(app, store, templates, accounts or AccountSettings(), connected)
    app.state.store = store
    app.state.live = live

    def not_found(what: str) -> HTTPException:
        return HTTPException(status_code=404, detail=f"no {what}")

    def html(request: Request, name: str, **context: Any) -> HTMLResponse:
        return templates.TemplateResponse(request, name, context)

    errors: dict[int | str, dict[str, Any]] = {404: {"model": Problem}}

    def wants_html(request: Request) -> bool:
        """A browser asking for a page (not the API, not a script): errors come as HTML."""
        path = request.url.path
        if path.startswith(("/api/", "/openapi", "/static/")) or path.endswith("/events"):
            return False
        return "text/html" in request.headers.get("accept", "")

    def error_page(request: Request, status: int, detail: str, headers: dict[str, str] | None) -> Response:
        if not wants_html(request):
            return JSONResponse({"detail": detail}, status_code=status, headers=headers)
        context = {"status": status, "detail": detail}
        return templates.TemplateResponse(request, "error.html", context, status_code=status, headers=headers)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        return error_page(request, exc.status_code, str(exc.detail), getattr(exc, "headers", None))

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, exc: RequestValidationError) -> Response:
        if not wants_html(request):
            return JSONResponse({"detail": jsonable(exc.errors())}, status_code=422)
        problems = "; ".join(
            f"{'.'.join(str(part) for part in error.get('loc', ()))}: {error.get('msg', '')}"
            for error in exc.errors()
        )
        return error_page(request, 400, f"bad request ({problems})", None)

    # --- the JSON API ---------------------------------------------------------------------------
    @app.get("/api/ladders", response_model=list[LadderSummary], tags=["api"])
    def api_ladders() -> list[LadderSummary]:
        """Every ladder, with its live match count and its top bots."""
        return pages.index(store, live)

    @app.get("/api/ladders/{name}", response_model=LadderPage, responses=errors, tags=["api"])
    def api_ladder(name: str) -> LadderPage:
        """A ladder's standings."""
        page = pages.ladder_page(store, live, name)
        if page is None:
            raise not_found(f"ladder {name!r}")
        return page

    @app.get(
        "/api/ladders/{name}/whole-history", response_model=WholeHistoryPage, responses=errors, tags=["api"]
    )
    def api_whole_history(name: str) -> WholeHistoryPage:
        """A ladder's whole-history standings: every rated result fitted at once (Bradley-Terry,
        Elo scale, 95% intervals), as `arbiter ladders standings --method whole-history`."""
        page = pages.whole_history_page(store, live, name)
        if page is None:
            raise not_found(f"ladder {name!r}")
        return page

    def bot_page(name: str, before: int | None, limit: int, opponents_from: int) -> BotPage:
        page = pages.bot_page(store, name, connected, before, limit, opponents_from)
        if page is None:
            raise not_found(f"bot {name!r}")
        return page

    before_query = Query(default=None, ge=1, description="matches that ended before this one (a `next`)")
    opponents_query = Query(default=0, ge=0, description="the head-to-head table from this row")

    @app.get("/api/bots/{name}", response_model=BotPage, responses=errors, tags=["api"])
    def api_bot(
        name: str,
        before: int | None = before_query,
        limit: int = Query(default=pages.RECENT, ge=1, le=pages.MATCHES_MAX),
        opponents_from: int = opponents_query,
    ) -> BotPage:
        """A bot: ratings, results per version, rating history (at most 500 points), a page of
        its matches, a page of its head-to-head table, failures, connection."""
        return bot_page(name, before, limit, opponents_from)

    @app.get("/api/matches", response_model=list[MatchSummary], tags=["api"])
    def api_matches(
        ladder: str | None = None,
        bot: str | None = None,
        status: str | None = Query(default=None, pattern="^(running|finished|aborted)$"),
        limit: int = Query(default=50, ge=1, le=500),
    ) -> list[MatchSummary]:
        """The latest matches (newest first), of a ladder, a bot and a status if given."""
        rows = store.match_rows(ladder=ladder, bot=bot, status=status, limit=limit)
        return pages.match_summaries(store, rows)

    @app.get("/api/matches/{match_id}", response_model=MatchPage, responses=errors, tags=["api"])
    def api_match(match_id: str) -> MatchPage:
        """A match: its moves and each position's public view (while it runs: what spectators see)."""
        found = pages.match_page(store, live, cache, match_id)
        if found is None:
            raise not_found(f"match {match_id!r}")
        return found[0]

    @app.get(
        "/api/matches/{match_id}/record",
        response_model=dict[str, Any],
        responses=errors,
        tags=["api"],
    )
    def api_record(match_id: str) -> JSONResponse:
        """The match's JSON record (docs/records.md), once it has ended."""
        record = store.match_record(match_id)
        if record is None:
            raise not_found(f"record of match {match_id!r} (it has not ended, or is unknown)")
        headers = {"Content-Disposition": f'attachment; filename="match-{match_id}.json"'}
        return JSONResponse(record, headers=headers)

    @app.get(
        "/api/ladders/{name}/matches.ndjson",
        responses={200: {"content": {"application/x-ndjson": {}}}, 404: {"model": Problem}},
        response_class=StreamingResponse,
        tags=["api"],
    )
    def api_ladder_matches(
        name: str,
        after: int = Query(0, ge=0, description="Only matches that finished after this finishing number."),
        limit: int | None = Query(None, ge=1, description="At most this many matches (default: all)."),
    ) -> StreamingResponse:
        """Every finished match of the ladder with its record, one JSON object per line, in
        finishing order: `{"sequence": N, "match_id": ID, "ladder": NAME, "record": {...}}`.
        Resume a cut download with `after` set to the last `sequence` received."""
        if store.get_ladder(name) is None:
            raise not_found(f"ladder {name!r}")
        return StreamingResponse(ndjson_lines(store, name, after, limit), media_type="application/x-ndjson")

    @app.get("/api/live", response_model=list[LiveMatchOut], tags=["api"])
    def api_live() -> list[LiveMatchOut]:
        """The matches being played now, each with the latest position spectators may see."""
        return [pages.live_match_out(match) for match in _running()]

    def _running() -> list[LiveMatch]:
        return live.running() if live is not None else []

    # --- pages ------------------------------------------------------------------------------------
    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    def index(request: Request) -> HTMLResponse:
        recent = pages.match_summaries(store, store.match_rows(limit=20))
        tv = pages.featured(store, live)
        return html(request, "index.html", ladders=pages.index(store, live), recent=recent, tv=tv)

    @app.get("/ladders", response_class=HTMLResponse, include_in_schema=False)
    def ladders(request: Request) -> HTMLResponse:
        return html(request, "ladders.html", ladders=pages.index(store, live))

    @app.get("/ladders/{name}", response_class=HTMLResponse, include_in_schema=False)
    def ladder(request: Request, name: str) -> HTMLResponse:
        page = pages.ladder_page(store, live, name)
        if page is None:
            raise not_found(f"ladder {name!r}")
        recent = store.match_rows(ladder=name, limit=20)
        return html(request, "ladder.html", page=page, recent=pages.match_summaries(store, recent))

    @app.get("/ladders/{name}/whole-history", response_class=HTMLResponse, include_in_schema=False)
    def whole_history(request: Request, name: str) -> HTMLResponse:
        page = pages.whole_history_page(store, live, name)
        if page is None:
            raise not_found(f"ladder {name!r}")
        return html(request, "whole_history.html", page=page)

    @app.get("/bots/{name}", response_class=HTMLResponse, include_in_schema=False)
    def bot(
        request: Request, name: str, before: int | None = before_query, opponents_from: int = opponents_query
    ) -> HTMLResponse:
        page = bot_page(name, before, pages.RECENT, opponents_from)
        chart = rating_chart(page.history)
        return html(request, "bot.html", page=page, before=before, opponents_from=opponents_from, chart=chart)

    def match_view(request: Request, match_id: str, step: int | None, template: str) -> HTMLResponse:
        found = pages.match_page(store, live, cache, match_id)
        if found is None:
            raise not_found(f"match {match_id!r}")
        page, replay, running = found
        if replay is not None:
            last = len(replay.views) - 1
            shown = last if step is None else max(0, min(step, last))
            return html(
                request, template, page=page, step=shown, last=last, board=replay.svg(shown), live=False
            )
        frames = running.visible() if running is not None else []
        board = frames[-1].svg if frames else ""
        last = frames[-1].ply if frames else 0
        return html(request, template, page=page, step=last, last=last, board=board, live=True)

    @app.get("/matches/{match_id}", response_class=HTMLResponse, include_in_schema=False)
    def match(request: Request, match_id: str, step: int | None = None) -> HTMLResponse:
        return match_view(request, match_id, step, "match.html")

    @app.get("/embed/matches/{match_id}", response_class=HTMLResponse, include_in_schema=False)
    def embedded(request: Request, match_id: str, step: int | None = None) -> HTMLResponse:
        """One board and its controls, no site around it, for other sites to frame."""
        answer = match_view(request, match_id, step, "embed.html")
        answer.headers["content-security-policy"] = EMBED_POLICY
        return answer

    @app.get("/matches/{match_id}/board/{step}", include_in_schema=False)
    def board(match_id: str, step: int) -> Response:
        replay = cache.get(store, match_id)
        if replay is None or not 0 <= step < len(replay.views):
            raise not_found(f"step {step} of an ended match {match_id!r}")
        return Response(replay.svg(step), media_type="image/svg+xml")

    @app.get("/docs", response_class=HTMLResponse, include_in_schema=False)
    def api_docs(request: Request) -> HTMLResponse:
        return html(request, "api.html", spec=app.openapi())

    @app.get("/live", response_class=HTMLResponse, include_in_schema=False)
    def live_page(request: Request) -> HTMLResponse:
        matches = _running()
        return html(request, "live.html", matches=matches, live_on=live is not None)

    @app.get("/matches/{match_id}/events", include_in_schema=False)
    async def match_events(request: Request, match_id: str) -> Response:
        if live is None:
            raise not_found(f"live match {match_id!r} (this web server does not follow matches)")
        if live.get(match_id) is None:
            # Not followed (yet): a match that has just started may be in the store before it is
            # in the hub. 404 only for a match the store does not know.
            row = await asyncio.to_thread(store.match_row, match_id)
            if row is None:
                raise not_found(f"match {match_id!r}")
            if row.status == "running" and await live.arrival(match_id, live_wait) is None:
                row = await asyncio.to_thread(store.match_row, match_id)
                if row is not None and row.status == "running":
                    return PlainTextResponse(
                        f"match {match_id} is not followed here yet: try again later\n",
                        503,
                        headers={"Retry-After": "2"},
                    )
            if live.get(match_id) is None:  # it has ended: the stream says so
                return StreamingResponse(
                    iter([end_event(match_id)]), media_type="text/event-stream", headers=STREAM_HEADERS
                )
        return _stream(request, match_id)

    @app.get("/live/events", include_in_schema=False)
    async def live_events(request: Request) -> Response:
        if live is None:
            raise not_found("live view (this web server does not follow matches)")
        return _stream(request, None)

    def _stream(request: Request, match_id: str | None) -> Response:
        assert live is not None
        hub = live
        address = address_key(request.client.host if request.client is not None else "")
        try:
            queue = hub.subscribe(match_id, address)
        except TooManySpectators as exc:
            # 429 for one address's streams, 503 when the node has all it takes; try again later.
            code = 429 if exc.per_address else 503
            return PlainTextResponse(f"{exc}: try again later\n", code, headers={"Retry-After": "10"})
        if match_id is None:
            backlog = [(m.match_id, m.visible()[-1:]) for m in hub.running()]
        else:
            found = hub.get(match_id)
            backlog = [(match_id, found.visible() if found is not None else [])]

        async def events() -> AsyncIterator[str]:
            try:
                for _mid, frames in backlog:
                    for shown in frames:
                        yield shown.event
                        # A turn of the loop between frames: a spectator gone meanwhile is seen
                        # as gone after one failed write, not written to on and on (asyncio
                        # warns "socket.send() raised exception." from the fifth).
                        await asyncio.sleep(0)
                found = hub.get(match_id) if match_id is not None else None
                if found is not None and found.ended_at is not None:
                    yield end_event(match_id or "")
                    return
                while True:
                    try:
                        update: Update = await asyncio.wait_for(queue.get(), HEARTBEAT)
                    except TimeoutError:
                        if await request.is_disconnected():
                            return
                        yield ": keep-alive\n\n"
                        continue
                    mid, frame = update
                    if frame is None:
                        yield end_event(mid)
                        if match_id is not None:
                            return
                    else:
                        yield frame.event  # encoded once for every spectator
                        await asyncio.sleep(0)  # as above: queued frames come without a turn
            finally:
                hub.unsubscribe(match_id, queue, address)

        return StreamingResponse(events(), media_type="text/event-stream", headers=STREAM_HEADERS)

    if people is not None:
        add_play_routes(app, people)
    return app


class WebServer:
    """``app`` served by uvicorn inside the running asyncio loop (``arbiter serve --web``,
    ``arbiter web``), with ``limits`` on slow and many clients (``guard.WebLimits``; the cap is
    fitted to the open-files limit after ``other_connections``, the gRPC port's cap)."""

    def __init__(
        self,
        app: FastAPI,
        host: str,
        port: int,
        limits: WebLimits | None = None,
        other_connections: int = 0,
    ) -> None:
        import uvicorn

        class Embedded(uvicorn.Server):
            @contextlib.contextmanager
            def capture_signals(self) -> Iterator[None]:  # the host process handles signals
                yield

        self.limits = (limits or WebLimits()).fitted(other_connections)
        config = uvicorn.Config(
            app, log_level="warning", access_log=False, lifespan="off", http=protocol_class(self.limits)
        )
        guard_logging()  # after uvicorn has set up its loggers
        self.server = Embedded(config)
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self.socket = socket.socket(family, socket.SOCK_STREAM)
        self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            self.socket.bind((host, port))
        except OSError as exc:
            self.socket.close()
            raise OSError(f"cannot serve the web pages on {host}:{port}: {exc.strerror or exc}") from exc
        self.socket.listen(128)
        self.socket.setblocking(False)
        self.host = host
        self.port = int(self.socket.getsockname()[1])
        self._task: asyncio.Task[None] | None = None

    @property
    def address(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    async def start(self) -> None:
        self._task = asyncio.create_task(self.server.serve(sockets=[self.socket]))
        while not self.server.started:
            if self._task.done():
                self._task.result()
                raise OSError(f"the web server did not start on {self.address}")
            await asyncio.sleep(0.01)

    async def stop(self) -> None:
        self.server.should_exit = True
        self.server.force_exit = True  # event streams never end by themselves
        if self._task is not None:
            try:
                await asyncio.wait_for(self._task, 5)
            except TimeoutError:
                self._task.cancel()
        self.socket.close()


__all__ = ["WebServer", "create_app"]
