"""Which collection a request reads: ``?collection=NAME`` on any endpoint (the page's picker,
API clients), default the one the service was started with (RAG_COLLECTION, else ``demo``).
Each other collection gets its own live engine, opened at its first request and kept, so the
user's library and the demo are never mixed. GET /api/collections lists them."""

from __future__ import annotations

import threading

from fastapi import APIRouter, Depends, Request
from starlette.concurrency import run_in_threadpool

from rag.engine import Engine, build_engine, require_index
from rag.index.collections import in_collection, list_collections, name_of
from rag.index.library import open_library
from rag.live import LiveEngine
from rag.retrieve.facets import facets
from rag.settings import Settings
from service.deps import get_engine, guard
from service.guards import ApiError
from service.schemas import problems

router = APIRouter(tags=["papers"])


class Collections:
    """The service's engines, one per collection asked for (the first one built in the lifespan)."""

    def __init__(self, settings: Settings, first: LiveEngine) -> None:
        self.settings, self.default = settings, name_of(settings)
        self.live: dict[str, LiveEngine] = {self.default: first}
        self.lock = threading.Lock()

    def engine(self, name: str | None) -> Engine:
        name = (name or self.default).strip().lower()
        name = "demo" if name == "abstracts" else name
        if name not in self.live:
            with self.lock:
                if name not in self.live:
                    self.live[name] = self._open(name)
        return self.live[name].current()

    def _open(self, name: str) -> LiveEngine:
        known = {c.name for c in list_collections(self.settings) if c.papers}
        if name not in known:
            raise ApiError(404, "collection_not_found", f"there is no collection {name!r}; these have "
                           f"papers: {', '.join(sorted(known)) or 'none'}. Make one with "
                           f"`rag ingest FILES --collection {name}`.")
        settings = in_collection(self.settings, name)
        return LiveEngine(settings, build_engine(settings, library=open_library(settings, pinned=True)))

    def close(self) -> None:
        for name, live in self.live.items():
            if name != self.default:
                live.close()


def collections_of(request: Request) -> Collections:
    return request.app.state.collections


@router.get("/api/collections", summary="The collections this service can answer from",
            responses=problems(400, 401, 429, 500))
async def collections(request: Request, caller: str = Depends(guard)) -> list[dict]:
    chosen = collections_of(request)
    found = await run_in_threadpool(list_collections, chosen.settings)
    return [{"name": c.name, "papers": c.papers, "default": c.name == chosen.default} for c in found]



@router.get("/api/facets", summary="What there is to filter on: years, venues and authors, with counts",
            responses=problems(400, 401, 404, 422, 429, 500, 503))
async def catalogue_facets(engine: Engine = Depends(get_engine), caller: str = Depends(guard)) -> dict:
    require_index(engine)
    return await run_in_threadpool(facets, engine.library.catalog)
