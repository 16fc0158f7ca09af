"""The one place that turns an error into an HTTP response, and the one JSON shape it has.

Every error response of the API is::

    {"error": {"status": 422, "code": "sql_rejected", "message": "…one sentence and a fix…",
               "detail": {...}}, "request_id": "…"}

``code`` is stable (clients switch on it), ``message`` is for people, ``detail`` holds the
structured fields of the error (the gate's issues, the retry delay). The tree of
:mod:`tablerag.errors` maps to statuses here and nowhere else (STYLE.md 8.3):

=========================================  ======  ====================
error                                      status  code
=========================================  ======  ====================
invalid JSON body                          400     ``invalid_json``
missing or bad token                       401     ``unauthorized``
unknown table, answer id or route          404     ``not_found``
the text index is missing or stale         409     ``index_unavailable``
question or body too large                 413     ``too_large``
a field of the body or query is wrong      422     ``invalid_request``
``SQLRejected``                            422     ``sql_rejected``
``QueryFailed``                            422     ``query_failed``
``ServiceBusy`` (a token's rate limit)     429     ``rate_limited``
``ServiceBusy`` (the queue is full)        503     ``busy``
``WorkspaceError``                         503     ``workspace_unavailable``
``EngineError`` (a database is down)       503     ``database_unavailable``
``ProviderError``                          503     ``model_unavailable``
``QueryTimeout`` / ``ProviderTimeout``     504     ``timeout``
``ConfigError`` (the server's settings)    500     ``server_config``
anything else                              500     ``internal``
=========================================  ======  ====================

A 500 never carries the exception's text or a traceback: the message gives the request id to
find the traceback in the server's log.
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass, field
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from tablerag.errors import (
    ConfigError,
    EngineError,
    ProviderError,
    ProviderTimeout,
    QueryFailed,
    QueryTimeout,
    RetrievalError,
    ServiceBusy,
    SQLRejected,
    TableragError,
    WorkspaceError,
)

log = logging.getLogger(__name__)


@dataclass
class ApiError(Exception):
    """An error the API raises itself (not found, too large, unauthorized…)."""

    status: int
    code: str
    message: str
    detail: dict[str, Any] = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)

    def __str__(self) -> str:
        return self.message


class RateLimited(ServiceBusy):
    """A token made more requests than its rate allows (429, not the queue's 503)."""


def problem(exc: BaseException) -> ApiError:
    """The HTTP status, code, message and detail of ``exc``."""
    if isinstance(exc, ApiError):
        return exc
    if isinstance(exc, ServiceBusy):
        retry = {"Retry-After": str(max(1, round(exc.retry_after_s)))}
        detail = {"retry_after_s": exc.retry_after_s}
        if isinstance(exc, RateLimited):
            return ApiError(429, "rate_limited", str(exc), detail, retry)
        return ApiError(503, "busy", str(exc), detail, retry)
    if isinstance(exc, SQLRejected):
        issues = [
            {"code": i.code, "message": i.message, "span": list(i.span) if i.span else None}
            for i in exc.issues
        ]
        return ApiError(422, "sql_rejected", str(exc), {"issues": issues})
    if isinstance(exc, QueryTimeout):
        return ApiError(504, "timeout", str(exc), {"time_limit_ms": exc.time_limit_ms})
    if isinstance(exc, ProviderTimeout):
        return ApiError(504, "timeout", str(exc))
    if isinstance(exc, QueryFailed):
        return ApiError(422, "query_failed", str(exc))
    if isinstance(exc, EngineError):
        return ApiError(503, "database_unavailable", str(exc))
    if isinstance(exc, ProviderError):
        return ApiError(503, "model_unavailable", str(exc))
    if isinstance(exc, WorkspaceError):
        return ApiError(503, "workspace_unavailable", str(exc))
    if isinstance(exc, RetrievalError):
        return ApiError(409, "index_unavailable", str(exc))
    if isinstance(exc, ConfigError):
        return ApiError(500, "server_config", str(exc))
    if isinstance(exc, TableragError):
        return ApiError(500, "internal", str(exc))
    ref = uuid.uuid4().hex[:12]
    log.error("internal error %s", ref, exc_info=exc)
    return ApiError(
        500,
        "internal",
        f"Internal error (reference {ref}); the server's log has the details. Please report it.",
        {"reference": ref},
    )


def body(err: ApiError, request_id: str | None = None) -> dict[str, Any]:
    """The JSON error shape."""
    return {
        "error": {
            "status": err.status,
            "code": err.code,
            "message": err.message,
            "detail": err.detail,
        },
        "request_id": request_id,
    }


def respond(exc: BaseException, request_id: str | None = None) -> JSONResponse:
    """The response of ``exc``."""
    err = problem(exc)
    return JSONResponse(body(err, request_id), status_code=err.status, headers=err.headers)


def _request_id(request: Request) -> str | None:
    return getattr(request.state, "request_id", None)


def install(app: FastAPI) -> None:
    """Route every error of ``app`` through :func:`respond`."""

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = exc.errors()
        if any(e.get("type") == "json_invalid" for e in errors):
            first = next(e for e in errors if e.get("type") == "json_invalid")
            where = (first.get("ctx") or {}).get("error", "")
            err = ApiError(
                400,
                "invalid_json",
                f"The request body is not valid JSON ({where}); send a JSON object such as "
                '{"question": "…"} with Content-Type: application/json.',
            )
            return respond(err, _request_id(request))
        fields = [
            {
                "field": ".".join(str(p) for p in e.get("loc", ()) if p != "body"),
                "problem": str(e.get("msg", "")),
            }
            for e in errors
        ]
        shown = "; ".join(f"{f['field'] or 'body'}: {f['problem']}" for f in fields[:3])
        err = ApiError(
            422,
            "invalid_request",
            f"The request is not valid ({shown}); see /docs for the fields.",
            {"fields": fields},
        )
        return respond(err, _request_id(request))

    @app.exception_handler(StarletteHTTPException)
    async def http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        codes = {404: "not_found", 405: "method_not_allowed", 401: "unauthorized"}
        text = {
            404: f"No such endpoint {request.url.path!r}; see /docs for the API.",
            405: f"{request.method} is not allowed on {request.url.path!r}; see /docs.",
        }
        err = ApiError(
            exc.status_code,
            codes.get(exc.status_code, "http_error"),
            text.get(exc.status_code, str(exc.detail)),
            headers=dict(exc.headers or {}),
        )
        return respond(err, _request_id(request))

    @app.exception_handler(ApiError)
    async def api(request: Request, exc: ApiError) -> JSONResponse:
        return respond(exc, _request_id(request))

    @app.exception_handler(TableragError)
    async def tablerag(request: Request, exc: TableragError) -> JSONResponse:
        return respond(exc, _request_id(request))

    @app.exception_handler(Exception)
    async def anything(request: Request, exc: Exception) -> JSONResponse:
        return respond(exc, _request_id(request))
