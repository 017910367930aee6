"""Finding the papers for a question: dense (Chroma) and keyword (BM25) lists, each merged to
paper level, fused by reciprocal rank, filtered by metadata, optionally diversified (MMR)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from rag.index.catalog import Catalog
from rag.index.filters import MAX_LIST, Filters, VectorFilter
from rag.index.library import Library
from rag.retrieve.keyword import keyword_search
from rag.text.clean import normalise
from rag.text.lexicon import tokens
from rag.types import Chunk, ScoredChunk, ScoredPaper

MODES = ("hybrid", "dense", "keyword")


def rrf(rankings: Mapping[str, Sequence[str]], k: int = 60,
        weights: Mapping[str, float] | None = None) -> list[tuple[str, float]]:
    """Reciprocal-rank fusion: score(d) = sum over lists of weight / (k + rank of d)."""
    scores: dict[str, float] = {}
    for name, ids in rankings.items():
        weight = (weights or {}).get(name, 1.0)
        for rank, item in enumerate(ids, start=1):
            scores[item] = scores.get(item, 0.0) + weight / (k + rank)
    return sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))


def best_per_paper(hits: Sequence[ScoredChunk]) -> list[ScoredChunk]:
    """One hit per paper (its best chunk), best first."""
    best: dict[str, ScoredChunk] = {}
    for hit in hits:
        if hit.chunk.paper_id not in best or hit.score > best[hit.chunk.paper_id].score:
            best[hit.chunk.paper_id] = hit
    return sorted(best.values(), key=lambda h: -h.score)


def mmr(candidates: Sequence[str], vectors: Mapping[str, np.ndarray], query: np.ndarray, k: int,
        weight: float = 0.7) -> list[str]:
    """Maximal marginal relevance: trade similarity to the query against similarity to what is
    already chosen, so that a multi-paper answer does not read five near-identical papers."""
    chosen: list[str] = []
    pool = [c for c in candidates if c in vectors]
    while pool and len(chosen) < k:
        def gain(c: str) -> float:
            redundancy = max((float(vectors[c] @ vectors[s]) for s in chosen), default=0.0)
            return weight * float(vectors[c] @ query) - (1 - weight) * redundancy
        pick = max(pool, key=gain)
        chosen.append(pick)
        pool.remove(pick)
    return chosen + [c for c in candidates if c not in chosen][: max(0, k - len(chosen))]


def named_papers(methods: Mapping[str, list[str]], query: str) -> list[str]:
    """Papers whose introduced method name ("SupReMix", "K2") the query mentions verbatim:
    one lookup per word of the query (``methods`` is the catalogue's indexed lexicon)."""
    words = dict.fromkeys(w.lower() for w in tokens(query))
    return list(dict.fromkeys(pid for w in words for pid in methods.get(w, ())))


def vector_filter(catalog: Catalog, filters: Filters) -> VectorFilter | None:
    """The filters as the vector store gets them: a year range, and lists of venues, sources
    or papers only while they are short; a longer list is left to a check of the results."""
    if not filters.active:
        return None
    exact = True
    venues = sources = ids = None
    if filters.venue:
        venues = tuple(catalog.venues_matching(filters.venue))
    if filters.source:
        sources = tuple(catalog.sources_matching(filters.source))
    if filters.author:
        ids = tuple(catalog.paper_ids(Filters(author=filters.author), limit=MAX_LIST + 1))
    if venues is not None and len(venues) > MAX_LIST:
        venues, exact = None, False
    if sources is not None and len(sources) > MAX_LIST:
        sources, exact = None, False
    if ids is not None and len(ids) > MAX_LIST:
        ids, exact = None, False
    share = 1.0
    if not exact or (ids is None and venues is None and sources is None):
        share = max(catalog.count_matching(filters) / max(1, catalog.count()), 1e-4)
    if share >= 0.5:  # a wide filter: an unfiltered search, checked afterwards, is faster
        return VectorFilter(exact=False, share=share)
    return VectorFilter(filters.year_from, filters.year_to, venues, sources, ids, exact, share)


def dense_search(lib: Library, vector: np.ndarray, limit: int, filters: Filters) -> list[ScoredChunk]:
    plan = vector_filter(lib.catalog, filters)
    if plan is not None and plan.empty:
        return []
    if plan is None or plan.exact:
        return lib.vectors.query(vector, limit, plan)
    wider = min(max(limit, int(limit / plan.share * 2)), 3000)
    hits = lib.vectors.query(vector, wider, plan)
    keep = lib.catalog.filter_ids({h.chunk.paper_id for h in hits}, filters)
    return [h for h in hits if h.chunk.paper_id in keep][:limit]


def retrieve(lib: Library, query: str, k: int, *, filters: Filters = Filters(),
             mode: str = "hybrid", methods: Mapping[str, list[str]] | None = None) -> list[ScoredPaper]:
    settings = lib.settings.retrieval
    text = normalise(query)
    vector = lib.embedder.embed([text])[0]
    lists: dict[str, list[ScoredChunk]] = {}
    if mode in ("hybrid", "dense"):
        lists["dense"] = best_per_paper(dense_search(lib, vector, settings.candidates, filters))
    if mode in ("hybrid", "keyword"):
        lists["keyword"] = best_per_paper(keyword_search(lib.catalog, text, settings.candidates, filters,
                                                         settings.title_weight))
    if mode == "hybrid" and methods:
        named = named_papers(methods, query)
        if filters.active and named:
            allowed = lib.catalog.filter_ids(named, filters)
            named = [pid for pid in named if pid in allowed]
        lists["name"] = [ScoredChunk(_stub(pid), 1.0) for pid in named]
    if filters.active:
        without_abstract = lib.catalog.paper_ids(filters, abstract=False, limit=settings.candidates)
        if without_abstract:
            lists["metadata"] = [ScoredChunk(_stub(pid), 0.0) for pid in without_abstract]
    weights = {"dense": settings.dense_weight, "keyword": settings.keyword_weight,
               "name": settings.name_weight, "metadata": settings.metadata_weight}
    fused = rrf({name: [h.chunk.paper_id for h in hits] for name, hits in lists.items()},
                k=settings.rrf_k, weights=weights)
    pool = [pid for pid, _ in fused[: max(k, settings.mmr_pool if settings.mmr else k)]]
    return _assemble(lib, vector, pool, dict(fused), lists, k)


def _stub(paper_id: str) -> Chunk:
    """A placeholder chunk for lists that rank papers, not passages (name, metadata)."""
    return Chunk(id=f"{paper_id}#name", paper_id=paper_id, index=-1, text="", text_hash="")


def _assemble(lib: Library, vector: np.ndarray, pool: list[str], fused: dict[str, float],
              lists: Mapping[str, list[ScoredChunk]], k: int) -> list[ScoredPaper]:
    """Papers with their best real chunk, its cosine similarity and each list's rank."""
    papers = lib.catalog.get_many(pool)
    best: dict[str, ScoredChunk] = {}
    ranks: dict[str, list[tuple[str, int, float]]] = {pid: [] for pid in pool}
    for name, hits in lists.items():
        for rank, hit in enumerate(hits, start=1):
            pid = hit.chunk.paper_id
            if pid in ranks:
                ranks[pid].append((name, rank, round(hit.score, 4)))
                if hit.chunk.text and (pid not in best or name == "dense"):
                    best[pid] = hit
    unranked = [pid for pid in pool if pid not in best and pid in papers]
    for chunk in lib.catalog.chunks_of(unranked):  # found by name only: take its first chunk
        if chunk.paper_id not in best:
            best[chunk.paper_id] = ScoredChunk(chunk, 0.0)
    stored = lib.vectors.vectors_by_id([h.chunk.id for h in best.values()])
    vectors = {pid: stored[h.chunk.id] for pid, h in best.items() if h.chunk.id in stored}
    similarity = {pid: float(v @ vector) for pid, v in vectors.items()}
    order = pool
    if lib.settings.retrieval.mmr:
        order = mmr(pool, vectors, vector, k, lib.settings.retrieval.mmr_weight)
    out = []
    for pid in order[:k]:
        if pid in papers:
            top: Chunk | None = best[pid].chunk if pid in best else None
            out.append(ScoredPaper(papers[pid], fused[pid], top, similarity.get(pid, 0.0),
                                   tuple(ranks[pid])))
    return out
