"""Retrieval and the paper catalogue: /api/search, /api/papers, /api/papers/{id}."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Query
from starlette.concurrency import run_in_threadpool

from rag.engine import Engine, require_index, search
from rag.index.filters import Filters
from rag.types import Paper
from service.deps import get_engine, guard
from service.guards import ApiError
from service.schemas import QUESTION_CAP, VISIBLE, YEARS, PaperOut, problems

router = APIRouter(tags=["papers"])
MAX_PAGE = 10_000_000  # 2 billion papers at the largest size: far from SQLite's 64-bit offsets


def paper_out(paper: Paper) -> PaperOut:
    return PaperOut(id=paper.id, label=paper.label, abstract=paper.abstract,
                    has_abstract=paper.has_abstract, title=paper.title, authors=list(paper.authors),
                    year=paper.year, venue=paper.venue, url=paper.url, doi=paper.doi,
                    arxiv_id=paper.arxiv_id, link=paper.link, source=paper.source,
                    aliases=list(paper.aliases))


@router.get("/api/search", summary="Retrieval only: papers for a query, with each retriever's rank",
            responses=problems(400, 401, 422, 429, 500, 503))
async def search_papers(q: str = Query(..., min_length=1, max_length=QUESTION_CAP, pattern=VISIBLE,
                                       examples=["contrastive regression"]),
                        k: int = Query(5, ge=1, le=100),
                        author: str | None = Query(None, max_length=200),
                        year: str | None = Query(None, max_length=20, pattern=YEARS,
                                                 examples=["2023-2025"]),
                        mode: str = Query("hybrid", pattern="^(hybrid|dense|keyword)$"),
                        engine: Engine = Depends(get_engine), caller: str = Depends(guard)) -> list[dict]:
    hits = await run_in_threadpool(search, engine, q, k, filters=Filters.parse(author=author, year=year),
                                   mode=mode)
    return [{"paper": paper_out(h.paper).model_dump(), "score": round(h.score, 5),
             "similarity": round(h.similarity, 4),
             "ranks": [{"retriever": n, "rank": r, "score": s} for n, r, s in h.ranks],
             "passage": h.best_chunk.text if h.best_chunk else ""} for h in hits]


@router.get("/api/papers/{paper_id:path}", response_model=PaperOut,
            summary="One paper (aliases resolve; an id may hold `/`, as Zotero's do: send it URL-encoded or as is)",
            responses=problems(400, 401, 404, 429, 500, 503))
async def get_paper(paper_id: str, engine: Engine = Depends(get_engine),
                    caller: str = Depends(guard)) -> PaperOut:
    paper = await run_in_threadpool(engine.library.catalog.get, paper_id)
    if paper is None:
        await run_in_threadpool(require_index, engine)  # not found because nothing is indexed?
        raise ApiError(404, "paper_not_found", f"no paper with id {paper_id!r}; ids look like 000-0001.")
    return paper_out(paper)


@router.get("/api/papers", summary="Papers, paged, filtered by author substring and/or text",
            responses=problems(400, 401, 422, 429, 500, 503))
async def list_papers(author: str | None = Query(None, max_length=200),
                      q: str | None = Query(None, max_length=500),
                      page: int = Query(1, ge=1, le=MAX_PAGE), size: int = Query(20, ge=1, le=200),
                      engine: Engine = Depends(get_engine), caller: str = Depends(guard)) -> dict:
    await run_in_threadpool(require_index, engine)
    total, papers = await run_in_threadpool(engine.library.catalog.page, Filters(author=author),
                                            q or "", (page - 1) * size, size)
    return {"total": total, "page": page, "size": size,
            "items": [paper_out(p).model_dump() for p in papers]}
