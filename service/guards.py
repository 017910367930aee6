"""Who may call, how often, how much: API keys as Bearer tokens, a per-key (or per-client)
rate limit answered with 429 and Retry-After, and a cap on request body size."""

from __future__ import annotations

import hmac
import math
import threading
import time

from fastapi import Request
from starlette.middleware.base import BaseHTTPMiddleware
from starlette.responses import JSONResponse

from rag.settings import ServiceSettings


class ApiError(Exception):
    """An HTTP error with a stable code; rendered as a JSON problem in one place (app.py)."""

    def __init__(self, status: int, code: str, message: str, retry_after: int | None = None):
        super().__init__(message)
        self.status, self.code, self.message, self.retry_after = status, code, message, retry_after


class RateLimiter:
    """A token bucket per caller: ``per_minute`` requests, refilled continuously."""

    def __init__(self, per_minute: int) -> None:
        self.rate = per_minute / 60.0
        self.capacity = float(per_minute)
        self.buckets: dict[str, tuple[float, float]] = {}
        self.lock = threading.Lock()

    def check(self, caller: str) -> None:
        now = time.monotonic()
        with self.lock:
            tokens, last = self.buckets.get(caller, (self.capacity, now))
            tokens = min(self.capacity, tokens + (now - last) * self.rate)
            if tokens < 1.0:
                self.buckets[caller] = (tokens, now)
                wait = math.ceil((1.0 - tokens) / self.rate)
                raise ApiError(429, "rate_limited", f"too many requests; retry in {wait} s.", wait)
            self.buckets[caller] = (tokens - 1.0, now)


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


class BodyLimit(BaseHTTPMiddleware):
    def __init__(self, app, max_bytes: int) -> None:  # type: ignore[no-untyped-def]
        super().__init__(app)
        self.max_bytes = max_bytes

    async def dispatch(self, request, call_next):  # type: ignore[no-untyped-def]
        length = request.headers.get("content-length")
        if length and length.isdigit() and int(length) > self.max_bytes:
            return JSONResponse(status_code=413, content={
                "code": "body_too_large",
                "message": f"the request body is over {self.max_bytes} bytes; send the question only."})
        return await call_next(request)
