"""The HTTP API of ``tablerag serve`` (FastAPI): versioned under ``/v1``, OpenAPI at ``/docs``.

Every endpoint reads; none writes user data (feedback goes to the query log). The answering
core is synchronous and runs in the thread pool; the event stream of ``POST /v1/ask`` with
``Accept: text/event-stream`` forwards the request's trace as it happens (``queued``,
``started``, ``route``, ``retrieval``, ``schema``, ``model``, ``sql``, ``step``) and ends with
``answer`` (the envelope) or ``error`` (the error shape). A client that goes away cancels its
request: no further model call is made for it and the log records it as ``cancelled``.

``GET /`` serves the web page (``api/static/``: plain HTML, CSS and JavaScript that call only
the ``/v1`` endpoints), with a content security policy that runs only its own scripts.
"""

from __future__ import annotations

import asyncio
import difflib
import json
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated, Any, Literal

import anyio
from fastapi import APIRouter, Depends, FastAPI, Header, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import FileResponse, JSONResponse, Response, StreamingResponse
from fastapi.staticfiles import StaticFiles
from fastapi_offline import FastAPIOffline
from mcp.server.transport_security import TransportSecuritySettings
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from tablerag import __version__
from tablerag.answer import Answer
from tablerag.api import errors
from tablerag.api.access import Access, Caller
from tablerag.api.charts import ChartStore
from tablerag.api.errors import ApiError
from tablerag.api.mcp import CALLER as MCP_CALLER
from tablerag.api.mcp import build as build_mcp
from tablerag.api.schemas import (
    AskIn,
    AskOut,
    FeedbackIn,
    FeedbackOut,
    Health,
    HistoryItem,
    HitOut,
    SourceOut,
    SqlIn,
    SqlOut,
    TableOut,
)
from tablerag.api.shapes import hits_out, sql_out, table_out, tables_named
from tablerag.errors import ConfigError
from tablerag.request import Event
from tablerag.runtime import Runtime
from tablerag.sql.sensitive import rules_from
from tablerag.store import querylog

STATIC = Path(__file__).resolve().parent / "static"
"""The web page's files (HTML, CSS, JavaScript), served as they are: no build step."""
PAGE_HEADERS = {
    # the page loads nothing from elsewhere and runs only its own scripts (issue 32)
    "Content-Security-Policy": "default-src 'self'; img-src 'self' blob:; object-src 'none'; "
    "base-uri 'none'; frame-ancestors 'none'; form-action 'self'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}
SVG_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'",
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "private, max-age=3600",
}
MAX_BODY_BYTES = 1 << 20
"""Largest request body read (a question is capped far lower, ``serve_max_question_chars``)."""

_ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"description": text, "content": {"application/json": {}}}
    for code, text in (
        (400, "Invalid JSON."),
        (401, "Token missing, unknown or revoked."),
        (404, "Not found."),
        (413, "Too large."),
        (422, "Invalid request, or SQL the gate refused."),
        (429, "Rate limit reached."),
        (503, "Busy, or the model, database or workspace is unavailable."),
        (504, "Timed out."),
    )
}


def create_app(
    runtime: Runtime,
    *,
    access: Access,
    cors_origins: tuple[str, ...] = (),
    owns_runtime: bool = False,
) -> FastAPI:
    """The API over ``runtime``; ``access`` says who may call it; with ``owns_runtime`` the
    runtime is closed (its workspace copies deleted) when the server shuts down."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # Every request waiting in the queue holds a worker thread; room for all of them.
        limiter = anyio.to_thread.current_default_thread_limiter()
        limiter.total_tokens = max(
            limiter.total_tokens, runtime.admission.slots + runtime.admission.queue_max + 16
        )
        try:
            async with mcp_server.session_manager.run():
                yield
        finally:
            # here, not after uvicorn.run returns: uvicorn re-raises SIGTERM once it has shut down
            if owns_runtime:
                runtime.close()

    app = FastAPIOffline(  # /docs and /redoc from the package's files, not a CDN
        title="tablerag",
        version=__version__,
        summary="Questions over documents and tables: numbers from SQL, answers with sources.",
        responses=_ERRORS,
        lifespan=lifespan,
    )
    app.state.runtime, app.state.access = runtime, access
    app.state.charts = ChartStore()
    errors.install(app)
    app.middleware("http")(_framing)
    if cors_origins:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=list(cors_origins),
            allow_methods=["GET", "POST"],
            allow_headers=["Authorization", "Content-Type", "Accept"],
        )
    app.include_router(service)
    app.include_router(v1)
    mcp_server = build_mcp(runtime)
    app.router.routes.append(Route(MCP_PATH, endpoint=_mcp_endpoint(mcp_server, access)))
    app.include_router(page)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app


MCP_PATH = "/mcp"
"""Where the MCP server's tools answer (streamable HTTP) under ``tablerag serve``."""


def _mcp_endpoint(server: Any, access: Access) -> ASGIApp:
    """The MCP server's streamable-HTTP app behind the same tokens and rates as ``/v1``.

    Stateless (each call stands alone) and answered as JSON. On loopback without tokens the
    SDK's DNS-rebinding check admits only loopback Host and Origin headers; with tokens the
    token is the check.
    """
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=not access.require_token,
        allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*"],
        allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"],
    )
    inner = server.streamable_http_app(
        streamable_http_path=MCP_PATH,
        stateless_http=True,
        json_response=True,
        transport_security=security,
    )
    (route,) = [r for r in inner.routes if getattr(r, "path", None) == MCP_PATH]
    return _Guarded(route.app, access)


class _Guarded:
    """An ASGI app behind :class:`Access` (a class, so Starlette mounts it as ASGI as is)."""

    def __init__(self, app: ASGIApp, access: Access) -> None:
        self.app, self.access = app, access

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        authorization = dict(scope.get("headers") or ()).get(b"authorization")
        try:
            caller = self.access.check(authorization.decode("latin-1") if authorization else None)
        except Exception as exc:  # noqa: BLE001 - 401/429 in the API's error shape
            await errors.respond(exc, uuid.uuid4().hex)(scope, receive, send)
            return
        bound = MCP_CALLER.set(caller.token_id)  # the query log names the token, as on /v1
        try:
            await self.app(scope, receive, send)
        finally:
            MCP_CALLER.reset(bound)


async def _framing(
    request: Request, call_next: Callable[[Request], Awaitable[Response]]
) -> Response:
    """A request id on every request and response; a body over :data:`MAX_BODY_BYTES` is
    refused before it is read."""
    request.state.request_id = uuid.uuid4().hex
    length = request.headers.get("content-length")
    if length is not None and (not length.isdigit() or int(length) > MAX_BODY_BYTES):
        err = ApiError(
            413,
            "too_large",
            f"The request body is larger than {MAX_BODY_BYTES} bytes; send a shorter "
            "question or query.",
        )
        return errors.respond(err, request.state.request_id)
    response = await call_next(request)
    response.headers["X-Request-Id"] = request.state.request_id
    if request.url.path == "/" or request.url.path.startswith("/static/"):
        response.headers.update(PAGE_HEADERS)
    return response


def _runtime(request: Request) -> Runtime:
    runtime: Runtime = request.app.state.runtime
    return runtime


def _caller(request: Request, authorization: Annotated[str | None, Header()] = None) -> Caller:
    access: Access = request.app.state.access
    return access.check(authorization)


def _charts(request: Request) -> ChartStore:
    charts: ChartStore = request.app.state.charts
    return charts


RT = Annotated[Runtime, Depends(_runtime)]
Who = Annotated[Caller, Depends(_caller)]
Charts = Annotated[ChartStore, Depends(_charts)]
service = APIRouter()
page = APIRouter(include_in_schema=False)
v1 = APIRouter(prefix="/v1", dependencies=[Depends(_caller)])


@service.get("/healthz", response_model=Health, tags=["service"])
def healthz(runtime: RT) -> Health:
    """200 once the runtime is loaded."""
    return Health(
        status="ok",
        version=__version__,
        generation=runtime.generation,
        model=runtime.llm.spec,
        active=runtime.admission.active,
        waiting=runtime.admission.waiting,
    )


@v1.post("/ask", response_model=AskOut, tags=["answers"])
async def ask(body: AskIn, request: Request, who: Who, runtime: RT, charts: Charts) -> Response:
    """Answer a question: the answer envelope plus its id, or with ``Accept:
    text/event-stream`` the events of the work and the envelope at the end."""
    settings = runtime.settings
    question = body.question
    if len(question) > settings.serve_max_question_chars:
        raise ApiError(
            413,
            "too_large",
            f"The question has {len(question)} characters; the limit is "
            f"{settings.serve_max_question_chars} (serve_max_question_chars). Ask a "
            "shorter question.",
        )
    if not question.strip():
        raise ApiError(422, "empty_question", "The question is empty; send the question's text.")
    rq = runtime.request(question, session=body.session, today=body.today, origin="api")
    if "text/event-stream" in request.headers.get("accept", ""):
        if not runtime.admission.has_room():
            raise runtime.admission.busy()
        return _stream(runtime, rq, who, charts)
    answer = await run_in_threadpool(runtime.serve, rq, token_id=who.token_id)
    if answer.budget_exhausted == "seconds":
        raise ApiError(
            504,
            "timeout",
            f"The question's time limit ({rq.deadline.seconds:g} s) ran out before an answer "
            "was found; raise answer_max_seconds or ask a narrower question (what was done is "
            "in detail.answer).",
            {"answer": _envelope(rq.id, answer, charts, who)},
        )
    return JSONResponse(_envelope(rq.id, answer, charts, who))


@v1.get(
    "/answers/{answer_id}/chart.svg",
    tags=["answers"],
    response_class=Response,
    responses={200: {"content": {"image/svg+xml": {}}, "description": "The chart as SVG."}},
)
async def chart_svg(answer_id: str, who: Who, charts: Charts) -> Response:
    """The chart of a recent answer (the envelope's ``chart.svg`` names it), drawn on the
    server as SVG from the Vega-Lite spec in ``chart.spec``."""
    svg = await run_in_threadpool(charts.svg, answer_id, who.token_id)
    if svg is None:
        raise ApiError(
            404,
            "not_found",
            f"No chart for answer {answer_id!r}: its result called for none, or the server "
            "no longer holds it (it keeps the last answers' charts until it restarts); ask "
            "the question again.",
        )
    return Response(svg, media_type="image/svg+xml", headers=SVG_HEADERS)


@v1.post("/sql", response_model=SqlOut, tags=["data"])
def sql(body: SqlIn, runtime: RT) -> SqlOut:
    """Run one read-only query through the same gate and engines as the answers."""
    with runtime.use() as gen:
        sources = gen.qa.sources
        if not sources.sources:
            raise ApiError(404, "not_found", _NO_TABLES)
        located = sources.locate(body.sql)
        try:
            engine = sources.engine(located.source)
        except ConfigError as exc:
            raise ApiError(503, "database_unavailable", str(exc)) from exc
        result = engine.execute(located.sql)
    return sql_out(located.source.label, result)


@v1.get("/search", response_model=list[HitOut], tags=["documents"])
def search(
    runtime: RT,
    q: Annotated[str, Query(min_length=1, max_length=2000, description="Search text.")],
    k: Annotated[int, Query(ge=1, le=50)] = 5,
    mode: Literal["hybrid", "bm25", "dense"] = "hybrid",
) -> list[HitOut]:
    """The passages most relevant to ``q``."""
    if not q.strip():
        raise ApiError(422, "invalid_request", "The search text is empty.")
    with runtime.use() as gen:
        hits = gen.qa.search(q, k, mode=mode)
    return hits_out(hits)


@v1.get("/tables", response_model=list[TableOut], tags=["data"])
def tables(runtime: RT) -> list[TableOut]:
    """Every table questions are answered from."""
    with runtime.use() as gen:
        return [table_out(label, t) for label, t in tables_named(gen.qa.sources.sources, None)]


@v1.get("/tables/{name}", response_model=TableOut, tags=["data"])
def table(name: str, runtime: RT) -> TableOut:
    """One table with its columns (a hidden column shows no values)."""
    rules = rules_from(runtime.settings)
    with runtime.use() as gen:
        found = tables_named(gen.qa.sources.sources, name)
        if not found:
            known = [t.name for _, t in tables_named(gen.qa.sources.sources, None)]
            hint = difflib.get_close_matches(name, known, n=1)
            tail = f" Did you mean {hint[0]!r}?" if hint else " GET /v1/tables lists them."
            raise ApiError(404, "not_found", f"No table {name!r}.{tail}")
        label, info = found[0]
        return table_out(label, info, rules, profiles=_profiles(gen))


@v1.get("/sources", response_model=list[SourceOut], tags=["data"])
def sources(runtime: RT) -> list[SourceOut]:
    """The sources ingested into the workspace."""
    with runtime.use() as gen:
        return [
            SourceOut(
                location=r.location,
                kind=r.kind,
                format=r.format,
                ingested_at=r.ingested_at,
                tables=list(r.tables),
                chunks=r.chunks,
            )
            for r in gen.records
        ]


@v1.post("/feedback", response_model=FeedbackOut, status_code=201, tags=["answers"])
def feedback(body: FeedbackIn, who: Who, runtime: RT) -> FeedbackOut:
    """Say whether an answer was right, wrong, or asked for something not in the data."""
    ok = querylog.add_feedback(
        runtime.path, body.answer_id, body.rating, body.comment, token_id=who.token_id
    )
    if not ok:
        raise ApiError(
            404,
            "not_found",
            f"No answer {body.answer_id!r} in the query log; use the `id` of a POST "
            "/v1/ask answer.",
        )
    return FeedbackOut(answer_id=body.answer_id, rating=body.rating)


@v1.get("/history", response_model=list[HistoryItem], tags=["answers"])
def history(
    who: Who,
    runtime: RT,
    session: str | None = None,
    status: str | None = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
) -> list[HistoryItem]:
    """Questions answered before, newest first (a token sees its own only)."""
    found = querylog.entries(
        runtime.path, session=session, status=status, token_id=who.token_id, limit=limit
    )
    return [
        HistoryItem(
            id=e.id,
            asked_at=e.asked_at,
            question=e.question,
            status=e.status,
            session=e.session,
            path=e.path,
            answer=e.answer,
            feedback=list(e.feedback),
        )
        for e in found
    ]


_NO_TABLES = "The workspace has no tables; ingest some with `tablerag ingest`."


@page.get("/")
def index() -> FileResponse:
    """The web page: ask, watch the work, check the answer, give feedback (issue 32)."""
    return FileResponse(STATIC / "index.html", media_type="text/html; charset=utf-8")


def _envelope(answer_id: str, answer: Answer, charts: ChartStore, who: Caller) -> dict[str, Any]:
    chart = charts.chart(answer_id, answer, who.token_id)
    return {"id": answer_id, **answer.model_dump(mode="json"), "chart": chart}


def _profiles(gen: Any) -> Any:
    catalog = gen.qa.catalog
    return catalog.profiles if catalog is not None else {}


def _sse(kind: str, data: Any) -> str:
    return f"event: {kind}\ndata: {json.dumps(data, ensure_ascii=False, default=str)}\n\n"


def _stream(runtime: Runtime, rq: Any, who: Caller, charts: ChartStore) -> StreamingResponse:
    """The events of ``rq`` as server-sent events; a client that leaves cancels it."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()

    def forward(event: Event) -> None:
        loop.call_soon_threadsafe(queue.put_nowait, ("event", event))

    rq.trace.listener = forward

    async def work() -> None:
        try:
            answer = await anyio.to_thread.run_sync(
                lambda: runtime.serve(rq, token_id=who.token_id)
            )
            await queue.put(("answer", answer))
        except Exception as exc:  # noqa: BLE001 - becomes the stream's error event
            await queue.put(("error", exc))

    async def events() -> AsyncIterator[str]:
        task = asyncio.create_task(work())
        try:
            while True:
                kind, item = await queue.get()
                if kind == "event":
                    yield _sse(item.kind, {"at_ms": item.at_ms, **item.data})
                elif kind == "answer":
                    yield _sse("answer", _envelope(rq.id, item, charts, who))
                    return
                else:
                    yield _sse("error", errors.body(errors.problem(item), rq.id))
                    return
        finally:
            if not task.done():
                rq.cancelled.set()  # the client went away: stop at the next model call

    return StreamingResponse(
        events(),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )


__all__ = ["MAX_BODY_BYTES", "create_app"]
