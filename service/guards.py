"""Who may call, how often, how much: API keys as Bearer tokens on every path but the ones the
settings open, a per-key (or per-client) rate limit answered with 429 and Retry-After, and a
cap on the bytes of a request body actually read."""

from __future__ import annotations

import hmac
import json
import math
import time
from urllib.parse import unquote_to_bytes

from fastapi import Request
from limits import RateLimitItemPerMinute
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from rag.settings import ServiceSettings


class ApiError(Exception):
    """An HTTP error with a stable code; rendered as a JSON problem in one place (app.py)."""

    def __init__(self, status: int, code: str, message: str, retry_after: int | None = None):
        super().__init__(message)
        self.status, self.code, self.message, self.retry_after = status, code, message, retry_after


class RateLimiter:
    """At most ``per_minute`` requests per caller in any 60 s: ``limits``' moving window, in
    memory (each worker counts its own callers). Retry-After says when the oldest request of
    the window leaves it. (A hand-written token bucket did this before; benchmarks/libraries.py
    compares the two.)"""

    def __init__(self, per_minute: int) -> None:
        self.item = RateLimitItemPerMinute(per_minute)
        self.limiter = MovingWindowRateLimiter(MemoryStorage())

    def check(self, caller: str) -> None:
        if self.limiter.hit(self.item, caller):
            return
        reset = self.limiter.get_window_stats(self.item, caller).reset_time
        wait = max(1, math.ceil(reset - time.time()))
        raise ApiError(429, "rate_limited", f"too many requests; retry in {wait} s.", wait)


def url_must_be_utf8(scope: Scope) -> None:
    """The path and query string, %-escapes decoded, must be UTF-8 (Starlette would read an
    escape such as %FF as U+FFFD and the search would run on it)."""
    raw_path = scope.get("raw_path") or scope.get("path", "").encode("utf-8", "surrogateescape")
    for part, raw in (("path", raw_path), ("query string", scope.get("query_string", b""))):
        try:
            unquote_to_bytes(raw.replace(b"+", b" ")).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ApiError(400, "invalid_encoding", f"the {part} holds bytes that are not UTF-8 "
                           f"({exc.object[exc.start:exc.end].hex()}); send UTF-8, %-escaped.") from None


def caller_of(request: Request, settings: ServiceSettings) -> str:
    """The API key's identity (checked), or the client address when no keys are configured."""
    keys = [k.get_secret_value() for k in settings.api_keys]
    if not keys:
        return f"client:{request.client.host if request.client else '?'}"
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token:
        raise ApiError(401, "missing_api_key", "send an API key as 'Authorization: Bearer <key>'.")
    for index, key in enumerate(keys):
        if hmac.compare_digest(token.encode(), key.encode()):
            return f"key:{index}"
    raise ApiError(401, "invalid_api_key", "the API key is not valid; check RAG_SERVICE__API_KEYS.")


class BodyTooLarge(HTTPException):
    """Raised while reading a body that went over the cap; FastAPI lets HTTPExceptions through,
    and the app renders this one as a 413 problem (``body_too_large``)."""

    def __init__(self, max_bytes: int) -> None:
        super().__init__(413, f"the request body is over {max_bytes} bytes; send the question only.")


class BodyLimit:
    """Caps the bytes actually read, not what Content-Length claims: a chunked upload is cut off
    at the cap. A declared length over the cap is refused before anything is read."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app, self.max_bytes = app, max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = Headers(scope=scope).get("content-length", "")
        if length.isdigit() and int(length) > self.max_bytes:
            await problem(413, "body_too_large", BodyTooLarge(self.max_bytes).detail)(scope, receive, send)
            return
        read = 0
        kept = scope.setdefault("rag.body", [])  # what was read (at most the cap): error messages

        async def limited() -> Message:
            nonlocal read
            message = await receive()
            if message["type"] == "http.request":
                read += len(message.get("body", b""))
                if read > self.max_bytes:
                    raise BodyTooLarge(self.max_bytes)
                kept.append(message.get("body", b""))
            return message

        await self.app(scope, limited, send)


def why_unreadable(scope: Scope) -> str:
    """Why a body FastAPI could not parse is unreadable: not UTF-8, nested too deeply, or where
    the JSON breaks."""
    body = b"".join(scope.get("rag.body", []))
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        return f"the request body is not UTF-8 (byte 0x{body[exc.start]:02x} at {exc.start}); send UTF-8 JSON."
    try:
        json.loads(text)
    except RecursionError:
        return "the request body is JSON nested too deeply; send the documented fields (see /docs)."
    except ValueError as exc:
        return f"the request body is not valid JSON ({exc}); see /docs."
    return "the request body could not be read: send UTF-8 JSON."


def is_open(path: str, open_paths: list[str]) -> bool:
    """Paths that need no API key: exact matches, or everything under an entry ending in '/'.
    Slack's endpoints are always open to Bearer-less calls: Slack signs them instead. The chat
    page's own files (``/`` and ``/static/``) hold no data: the page asks for a key, keeps it in
    the browser and sends it with every API call (docs/operating.md, "The page with API keys")."""
    if path.startswith(("/slack/", "/static/")) or path == "/":
        return True
    return any(path == p or (p.endswith("/") and path.startswith(p)) for p in open_paths)


class KeyRequired:
    """With API keys configured, every path needs one (docs, schema, metrics and /v1/models
    included) except those the settings open (default: /healthz and /readyz)."""

    def __init__(self, app: ASGIApp, settings: ServiceSettings) -> None:
        self.app, self.settings = app, settings
        self.wrong = RateLimitItemPerMinute(settings.wrong_keys_per_minute)
        self.guesses = MovingWindowRateLimiter(MemoryStorage())

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and self.settings.api_keys and not is_open(
                scope["path"], self.settings.open_paths):
            request = Request(scope)
            address = f"address:{request.client.host if request.client else '?'}"
            try:
                if not self.guesses.test(self.wrong, address):
                    raise self._too_many(address)
                try:
                    caller_of(request, self.settings)
                except ApiError:
                    self.guesses.hit(self.wrong, address)
                    raise
            except ApiError as exc:
                headers = {"Retry-After": str(exc.retry_after)} if exc.retry_after else None
                await problem(exc.status, exc.code, exc.message, headers)(scope, receive, send)
                return
        await self.app(scope, receive, send)

    def _too_many(self, address: str) -> ApiError:
        reset = self.guesses.get_window_stats(self.wrong, address).reset_time
        wait = max(1, math.ceil(reset - time.time()))
        return ApiError(429, "too_many_wrong_keys", f"over {self.settings.wrong_keys_per_minute} "
                        f"requests from this address had a missing or wrong API key in the last "
                        f"minute; retry in {wait} s with a valid key.", wait)


def problem(status: int, code: str, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    """Every error the service answers: ``{code, message}``. Text a caller sent may hold lone
    surrogates, which UTF-8 cannot carry; they are escaped, so rendering a problem never fails."""
    safe = message.encode("utf-8", "backslashreplace").decode("utf-8")
    return JSONResponse(status_code=status, headers=headers, content={"code": code, "message": safe})
