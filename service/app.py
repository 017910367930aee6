"""The HTTP service: ``create_app(settings)`` builds the engine once in the lifespan; routes get
it through dependencies (tests swap parts with ``app.dependency_overrides``). RagError and
ApiError become JSON problems here and only here."""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.concurrency import run_in_threadpool

from rag.engine import Engine, build_engine
from rag.library import open_library
from rag.live import LiveEngine
from rag.errors import IndexMismatchError, IndexNotFoundError, InputError, LLMError, RagError, StoreError
from rag.settings import Settings

from .conversations import ConversationLog
from .guards import ApiError, BodyLimit, RateLimiter
from .metrics import LATENCY, REQUESTS
from .routes import ask, health, openai_compat, papers
from .slack import mount_slack

log = logging.getLogger(__name__)
STATIC = Path(__file__).parent / "static"

_STATUS = {InputError: (422, "invalid_question"), IndexNotFoundError: (503, "index_empty"),
           IndexMismatchError: (503, "index_mismatch"), StoreError: (503, "store_unavailable"),
           LLMError: (502, "llm_unavailable")}


def create_app(settings: Settings | None = None, engine: Engine | None = None) -> FastAPI:
    settings = settings or Settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        first = engine or await run_in_threadpool(_first_engine, settings)
        app.state.live = LiveEngine(settings, first)
        app.state.log = ConversationLog(settings.data_dir / "service.sqlite")
        yield
        app.state.log.close()
        if engine is None:
            app.state.live.current().close()

    app = FastAPI(title="abstract-rag", lifespan=lifespan, version="0.1.0",
                  description="Questions over paper abstracts; every claim cited.")
    app.state.settings = settings
    app.state.limiter = RateLimiter(settings.service.rate_limit_per_minute)
    app.add_middleware(BodyLimit, max_bytes=settings.service.max_body_bytes)

    @app.middleware("http")
    async def measure(request: Request, call_next):  # type: ignore[no-untyped-def]
        started = time.perf_counter()
        response = await call_next(request)
        route = request.scope.get("route")
        path = getattr(route, "path", "unmatched")
        REQUESTS.labels(request.method, path, str(response.status_code)).inc()
        LATENCY.labels(path).observe(time.perf_counter() - started)
        return response

    @app.exception_handler(ApiError)
    async def api_error(request: Request, exc: ApiError) -> JSONResponse:
        headers = {"Retry-After": str(exc.retry_after)} if exc.retry_after else None
        return JSONResponse(status_code=exc.status, headers=headers,
                            content={"code": exc.code, "message": exc.message})

    @app.exception_handler(RagError)
    async def rag_error(request: Request, exc: RagError) -> JSONResponse:
        status, code = next((v for k, v in _STATUS.items() if isinstance(exc, k)), (400, "bad_request"))
        headers = {"Retry-After": "30"} if status == 503 else None
        return JSONResponse(status_code=status, headers=headers, content={"code": code, "message": str(exc)})

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0] if exc.errors() else {}
        where = ".".join(str(p) for p in first.get("loc", ()) if p != "body")
        return JSONResponse(status_code=422, content={
            "code": "invalid_request", "message": f"{where or 'request'}: {first.get('msg', 'invalid')}"})

    @app.exception_handler(Exception)
    async def unexpected(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unexpected error on %s", request.url.path)
        return JSONResponse(status_code=500, content={
            "code": "internal_error", "message": "something went wrong on our side; it was logged."})

    for router in (ask.router, openai_compat.router, papers.router, health.router):
        app.include_router(router)
    mount_slack(app, settings)  # /slack/* when RAG_SLACK__BOT_TOKEN and RAG_SLACK__SIGNING_SECRET are set

    @app.get("/", include_in_schema=False)
    async def page() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app


def _first_engine(settings: Settings) -> Engine:
    """The engine over the live generation; its catalogue keeps one snapshot (an ingest running
    beside the service is seen when it has finished, through the generation stamp)."""
    return build_engine(settings, library=open_library(settings, pinned=True))


def service_settings() -> Settings:
    """Settings from the environment, tuned for serving: unless RAG_EMBEDDING__THREADS says
    otherwise, each embedding runs on one onnxruntime thread, so concurrent requests use the
    cores side by side (measured on 2 cores: 13.1 req/s at p95 814 ms vs 10.3 req/s at p95
    1023 ms with all threads per request; benchmarks/http_load.py)."""
    settings = Settings()
    if "threads" not in settings.embedding.model_fields_set:
        settings = settings.model_copy(update={"embedding": settings.embedding.model_copy(update={"threads": 1})})
    return settings


def app_factory() -> FastAPI:
    """For `uvicorn --factory service.app:app_factory` and `rag serve` (settings from env)."""
    return create_app(service_settings())
