"""Errors become JSON problems ``{code, message}`` here and only here: RagError, ApiError, HTTP
errors (unknown routes, wrong methods, unreadable bodies), validation errors, and anything
unexpected. ``Observe`` is the outermost layer: it counts every response in /metrics, 500s
included, and turns an unexpected exception into one 500 problem, logged once."""

from __future__ import annotations

import logging
import time

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from rag.errors import (
    IndexMismatchError,
    IndexNotFoundError,
    InputError,
    LLMError,
    NoMatchError,
    RagError,
    StoreError,
)
from service.guards import ApiError, problem, why_unreadable
from service.metrics import LATENCY, REQUESTS

log = logging.getLogger(__name__)

_STATUS = {NoMatchError: (404, "no_matching_papers"), InputError: (422, "invalid_question"),
           IndexNotFoundError: (503, "index_empty"),
           IndexMismatchError: (503, "index_mismatch"), StoreError: (503, "store_unavailable"),
           LLMError: (502, "llm_unavailable")}
_HTTP_CODES = {400: "invalid_body", 401: "unauthorized", 404: "not_found", 405: "method_not_allowed",
               413: "body_too_large", 415: "unsupported_media_type"}
INTERNAL = "something went wrong on our side; it was logged."


def install(app: FastAPI) -> None:
    """Register the problem handlers on ``app``."""

    @app.exception_handler(ApiError)
    async def api_error(request: Request, exc: ApiError) -> JSONResponse:
        headers = {"Retry-After": str(exc.retry_after)} if exc.retry_after else None
        return problem(exc.status, exc.code, exc.message, headers)

    @app.exception_handler(RagError)
    async def rag_error(request: Request, exc: RagError) -> JSONResponse:
        status, code = next((v for k, v in _STATUS.items() if isinstance(exc, k)), (400, "bad_request"))
        return problem(status, code, str(exc), {"Retry-After": "30"} if status == 503 else None)

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, exc: HTTPException) -> JSONResponse:
        if exc.status_code == 404 and exc.detail == "Not Found":
            message = f"no such endpoint: {request.method} {request.url.path}; see /docs."
        elif exc.status_code == 405:
            message = f"{request.method} is not allowed on {request.url.path}; see /docs."
        elif exc.status_code == 400:
            message = why_unreadable(request.scope)
        else:
            message = str(exc.detail)
        return problem(exc.status_code, _HTTP_CODES.get(exc.status_code, "http_error"), message,
                       dict(exc.headers) if exc.headers else None)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = exc.errors()
        first = max(errors, key=lambda e: len(e.get("loc", ()))) if errors else {}
        if first.get("type") == "json_invalid":
            return problem(400, "invalid_body", "the request body is not valid JSON: "
                           f"{(first.get('ctx') or {}).get('error', 'decode error')}.")
        kind = request.headers.get("content-type", "").split(";")[0].strip()
        if first.get("loc") == ("body",) and kind and kind != "application/json":
            return problem(422, "invalid_request", f"the body was sent as {kind}, so it was not read "
                           "as JSON; send it with 'Content-Type: application/json'.")
        if first.get("type") == "extra_forbidden":
            where = ".".join(str(p) for p in first.get("loc", ()) if p != "body")
            return problem(422, "invalid_request", f"unknown field {where!r}; see /docs for the fields.")
        # the deepest error says most; union branch names ("list[ContentPart]") are noise
        where = ".".join(str(p) for p in first.get("loc", ())
                         if p != "body" and not any(c in str(p) for c in "[("))
        return problem(422, "invalid_request", f"{where or 'request'}: {first.get('msg', 'invalid')}")


class Observe:
    """Outermost: metrics for every response (by route template, so ids do not explode the
    label set) and the last word on unexpected exceptions: one log line with the traceback,
    one 500 problem, and nothing re-raised for the server to log a second time."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started, status = time.perf_counter(), 500
        response_started = False

        async def watch(message: Message) -> None:
            nonlocal status, response_started
            if message["type"] == "http.response.start":
                status, response_started = message["status"], True
            await send(message)

        try:
            await self.app(scope, receive, watch)
        except Exception:
            log.exception("unexpected error on %s %s", scope.get("method"), scope.get("path"))
            status = 500
            if not response_started:
                await problem(500, "internal_error", INTERNAL)(scope, receive, send)
        finally:
            route = scope.get("route")  # its template without converters: /api/papers/{paper_id}
            path = getattr(route, "path_format", None) or getattr(route, "path", "unmatched")
            REQUESTS.labels(scope.get("method", "?"), path, str(status)).inc()
            LATENCY.labels(path).observe(time.perf_counter() - started)
