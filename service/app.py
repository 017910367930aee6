"""The HTTP service: ``create_app(settings)`` builds the engine once in the lifespan; routes get
it through dependencies (tests swap parts with ``app.dependency_overrides``). Every error
becomes a JSON problem in one place, ``problems.py``."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles
from starlette.concurrency import run_in_threadpool

from rag.engine import Engine, build_engine
from rag.index.collections import in_collection
from rag.index.library import open_library
from rag.live import LiveEngine
from rag.settings import Settings, load_settings
from service import collections
from service.collections import Collections
from service.conversations import ConversationLog
from service.guards import BodyLimit, KeyRequired, RateLimiter
from service.problems import Observe, install
from service.routes import ask, export, health, openai_compat, papers
from service.schemas import problems
from service.slack import mount_slack
from service.warmup import WarmUp

log = logging.getLogger(__name__)
STATIC = Path(__file__).parent / "static"


def create_app(settings: Settings | None = None, engine: Engine | None = None) -> FastAPI:
    settings = settings or load_settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        first = engine if engine is not None else await run_in_threadpool(_first_engine, settings)
        app.state.live = LiveEngine(settings, first)
        app.state.collections = Collections(settings, app.state.live)
        app.state.warmup = WarmUp()
        app.state.warmup.start(app.state.live)
        app.state.log = ConversationLog(settings.data_dir / "service.sqlite")
        yield
        warm = await run_in_threadpool(app.state.warmup.finish)
        app.state.log.close()
        app.state.collections.close()
        if engine is None and warm:
            app.state.live.close()
        else:
            app.state.live.stop()  # the caller's engine stays the caller's to close

    app = FastAPI(title="abstract-rag", lifespan=lifespan, version="0.1.0",
                  description="Questions over paper abstracts; every claim cited.")
    app.state.settings = settings
    app.state.limiter = RateLimiter(settings.service.rate_limit_per_minute)
    install(app)
    # Inner to outer: the body cap, the key check, then Observe (metrics and the last word on
    # errors) outside everything, so 401s, 413s and 500s are counted too.
    app.add_middleware(BodyLimit, max_bytes=settings.service.max_body_bytes)
    app.add_middleware(KeyRequired, settings=settings.service)
    app.add_middleware(Observe)

    for router in (ask.router, openai_compat.router, papers.router, export.router, collections.router):
        # ?collection=NAME (service.deps.get_engine) can name no collection, filters can match no
        # paper: both are a 404 problem on every route that reads a collection
        app.include_router(router, responses=problems(404))
    app.include_router(health.router)
    mount_slack(app, settings)  # /slack/* when RAG_SLACK__BOT_TOKEN and RAG_SLACK__SIGNING_SECRET are set

    @app.get("/", include_in_schema=False)
    async def page() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    document_limits(app, settings)
    return app


def document_limits(app: FastAPI, settings: Settings) -> None:
    """/openapi.json states the question's cap as configured (RAG_ANSWER__MAX_QUESTION_CHARS)."""
    default = app.openapi
    limit = settings.answer.max_question_chars

    def openapi() -> dict:
        if app.openapi_schema is None:
            schema = default()
            models = schema["components"]["schemas"]
            models["AskRequest"]["properties"]["question"]["maxLength"] = limit
            models["ChatCompletionRequest"]["properties"]["messages"]["contains"]["properties"][
                "content"]["maxLength"] = limit
            for parameter in schema["paths"]["/api/search"]["get"]["parameters"]:
                if parameter["name"] == "q":
                    parameter["schema"]["maxLength"] = limit
        return app.openapi_schema or schema

    app.openapi = openapi  # type: ignore[method-assign]


def _first_engine(settings: Settings) -> Engine:
    """The engine over the live generation; its catalogue keeps one snapshot (an ingest running
    beside the service is seen when it has finished, through the generation stamp)."""
    return build_engine(settings, library=open_library(settings, pinned=True))


def service_settings() -> Settings:
    """Settings from the environment, tuned for serving: unless RAG_EMBEDDING__THREADS says
    otherwise, each embedding runs on one onnxruntime thread, so concurrent requests use the
    cores side by side (measured on 2 cores: 13.1 req/s at p95 814 ms vs 10.3 req/s at p95
    1023 ms with all threads per request; benchmarks/http_load.py)."""
    settings = in_collection(load_settings())  # RAG_COLLECTION names the collection served
    if "threads" not in settings.embedding.model_fields_set:
        settings = settings.model_copy(update={"embedding": settings.embedding.model_copy(update={"threads": 1})})
    return settings


def app_factory() -> FastAPI:
    """For `uvicorn --factory service.app:app_factory` and `rag serve` (settings from env)."""
    return create_app(service_settings())


def uvicorn_options(settings: Settings) -> dict[str, object]:
    """How uvicorn treats X-Forwarded-For/-Proto: believed only from the configured proxies.
    (uvicorn's own default believes them from 127.0.0.1, so anyone on the machine, or behind a
    local proxy that passes the header through, could pick their own client address and slip
    past the per-client rate limit.)"""
    proxies = settings.service.trusted_proxies
    return {"proxy_headers": bool(proxies), "forwarded_allow_ips": ",".join(proxies) or None}
