"""/healthz (the process is up), /readyz (index loaded, store reachable, warm), /metrics."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from starlette.concurrency import run_in_threadpool

from rag.live import index_problem

router = APIRouter(tags=["operations"])
WARM_WAIT = 2.0  # seconds /readyz waits for a warm-up about to finish before it says "warming"


@router.get("/healthz")
async def healthz() -> dict:
    return {"status": "ok"}


@router.get("/readyz", responses={503: {"description": "starting, warming up, or the index is empty, "
                                                  "unreachable, or a new generation could not be "
                                                  "opened; see Retry-After"}})
async def readyz(request: Request) -> JSONResponse:
    """Ready when the generation it serves is readable and consistent, and warm (``warmup.py``:
    one question has been answered, so the next ones are as fast as any). Reports the generation
    served next to the newest one known (the local stamp, or the published one)."""
    live = getattr(request.app.state, "live", None)
    if live is None:
        return JSONResponse(status_code=503, headers={"Retry-After": "5"},
                            content={"code": "starting", "message": "the engine is still loading."})
    try:
        engine = await run_in_threadpool(live.current)
        chunks = await run_in_threadpool(engine.library.vectors.count)
        papers = await run_in_threadpool(engine.library.catalog.count)
        problem = await run_in_threadpool(index_problem, live)
        generations = {"generation": engine.library.stamp.generation,
                       "newest_generation": await run_in_threadpool(live.newest)}
    except Exception as exc:  # the store itself is unreachable or broken
        return JSONResponse(status_code=503, headers={"Retry-After": "30"}, content={
            "code": "store_unavailable", "message": f"the vector store does not answer ({exc})."})
    warmup = getattr(request.app.state, "warmup", None)
    if warmup is not None and not await run_in_threadpool(warmup.done.wait, WARM_WAIT):
        return JSONResponse(status_code=503, headers={"Retry-After": "2"}, content={
            "code": "warming", "message": "the first question is being answered to load what is "
            "lazy (embedder, index pages, models); ready in a few seconds.", **generations})
    if chunks == 0:
        return JSONResponse(status_code=503, headers={"Retry-After": "30"}, content={
            "code": "index_empty", "message": "the index is empty; run `rag ingest`.", **generations})
    if problem:
        code = "index_inconsistent" if live.problem is None else "index_not_current"
        return JSONResponse(status_code=503, headers={"Retry-After": "30"}, content={
            "code": code, "message": problem, **generations})
    return JSONResponse({"status": "ready", "papers": papers, "chunks": chunks, **generations,
                         "generator": engine.generator.name})


@router.get("/metrics", include_in_schema=False)
async def metrics() -> Response:
    return Response(generate_latest(), media_type=CONTENT_TYPE_LATEST)
