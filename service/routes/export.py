"""GET /api/export: the papers an answer cited, as BibTeX, RIS or CSL-JSON for a reference
manager (the page's export links; the ids are the answer's citations' paper_id values)."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Query
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from rag.answer.export import FORMATS, export
from rag.engine import Engine
from rag.types import Paper
from service.deps import get_engine, guard
from service.guards import ApiError
from service.schemas import problems

router = APIRouter(tags=["papers"])
MAX_IDS = 100


def cited_papers(engine: Engine, ids: list[str]) -> list[Paper]:
    """The papers of ``ids`` in order; an unknown id is a 404 that names it."""
    found = [(pid, engine.library.catalog.get(pid)) for pid in ids]
    missing = [pid for pid, paper in found if paper is None]
    if missing:
        raise ApiError(404, "paper_not_found", f"no paper with id {', '.join(missing)} in this "
                       "collection; export the ids an answer's citations give.")
    return [paper for _, paper in found if paper is not None]


@router.get("/api/export", summary="The cited papers as BibTeX, RIS or CSL-JSON",
            responses={200: {"content": {m: {} for _, m, _ in FORMATS.values()}},
                       **problems(400, 401, 404, 422, 429, 500, 503)})
async def export_papers(ids: str = Query(..., min_length=1, max_length=2_000,
                                         description="paper ids, comma-separated", examples=["000-0001"]),
                        format: str = Query("bib", pattern="^(bib|ris|csl)$",  # noqa: A002
                                            description="bib (BibTeX), ris (RIS) or csl (CSL-JSON)"),
                        engine: Engine = Depends(get_engine), caller: str = Depends(guard)) -> Response:
    wanted = list(dict.fromkeys(i.strip() for i in ids.split(",") if i.strip()))
    if not wanted or len(wanted) > MAX_IDS:
        raise ApiError(422, "invalid_request", f"give 1 to {MAX_IDS} paper ids, comma-separated.")
    papers = await run_in_threadpool(cited_papers, engine, wanted)
    _, media_type, extension = FORMATS[format]
    return Response(export(papers, format).encode("utf-8"), media_type=media_type,
                    headers={"Content-Disposition": f'attachment; filename="cited.{extension}"'})
