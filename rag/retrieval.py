"""Finding the papers for a question: dense (Chroma) and keyword (BM25) lists, each merged to
paper level, fused by reciprocal rank, filtered by metadata, optionally diversified (MMR)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from .keyword import keyword_search
from .library import Library
from .settings import parse_years  # noqa: F401  (re-exported: callers filter by year here)
from .text import content_hash, normalise
from .types import Chunk, Paper, ScoredChunk, ScoredPaper

MODES = ("hybrid", "dense", "keyword")


@dataclass(frozen=True)
class Filters:
    """Metadata filters: author and venue are case-insensitive substrings, years inclusive."""

    author: str | None = None
    year_from: int | None = None
    year_to: int | None = None
    venue: str | None = None
    source: str | None = None

    @property
    def active(self) -> bool:
        return any(v is not None for v in (self.author, self.year_from, self.year_to,
                                           self.venue, self.source))

    def matches(self, paper: Paper) -> bool:
        if self.author and not any(self.author.lower() in a.lower() for a in paper.authors):
            return False
        if self.year_from is not None and (paper.year is None or paper.year < self.year_from):
            return False
        if self.year_to is not None and (paper.year is None or paper.year > self.year_to):
            return False
        if self.venue and self.venue.lower() not in (paper.venue or "").lower():
            return False
        return not (self.source and not paper.source.startswith(self.source))


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
    """Papers whose introduced method name ("SupReMix", "K2") the query mentions verbatim."""
    words = {w.lower() for w in re.findall(r"[A-Za-z0-9][A-Za-z0-9\-]*", query)}
    return [pid for name, ids in methods.items() if name in words for pid in ids]


def allowed_papers(lib: Library, filters: Filters) -> tuple[list[str] | None, list[str]]:
    """Ids of the papers the filters let through (None: no filter), and those of them that
    are listed without an abstract (no retriever can rank those; they are appended)."""
    if not filters.active:
        return None, []
    papers = [p for p in lib.catalog.papers() if filters.matches(p)]
    return [p.id for p in papers], [p.id for p in papers if not p.has_abstract]


def retrieve(lib: Library, query: str, k: int, *, filters: Filters = Filters(),
             mode: str = "hybrid", methods: Mapping[str, list[str]] | None = None) -> list[ScoredPaper]:
    settings = lib.settings.retrieval
    text = normalise(query)
    vector = lib.embedder.embed([text])[0]
    allowed, without_abstract = allowed_papers(lib, filters)
    lists: dict[str, list[ScoredChunk]] = {}
    if mode in ("hybrid", "dense"):
        lists["dense"] = best_per_paper(lib.vectors.query(vector, settings.candidates, allowed))
    if mode in ("hybrid", "keyword"):
        lists["keyword"] = best_per_paper(keyword_search(lib.catalog, text, settings.candidates, allowed))
    if mode == "hybrid" and methods:
        named = [pid for pid in named_papers(methods, query) if allowed is None or pid in allowed]
        lists["name"] = [ScoredChunk(_stub(pid), 1.0) for pid in named]
    if without_abstract:
        lists["metadata"] = [ScoredChunk(_stub(pid), 0.0) for pid in without_abstract]
    weights = {"dense": settings.dense_weight, "keyword": settings.keyword_weight,
               "name": settings.name_weight, "metadata": 0.5}
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
    for pid in pool:  # found by name only: take its first chunk
        if pid not in best and pid in papers:
            chunks = lib.chunker.chunks(papers[pid])
            if chunks:
                best[pid] = ScoredChunk(chunks[0], 0.0)
    hashes = {pid: content_hash(h.chunk.text) for pid, h in best.items()}
    stored = lib.vectors.vectors_for(list(hashes.values()))
    similarity = {pid: float(stored[h] @ vector) for pid, h in hashes.items() if h in stored}
    order = pool
    if lib.settings.retrieval.mmr:
        order = mmr(pool, {pid: stored[h] for pid, h in hashes.items() if h in stored}, vector, k,
                    lib.settings.retrieval.mmr_weight)
    out = []
    for pid in order[:k]:
        if pid in papers:
            chunk = best[pid].chunk if pid in best else None
            out.append(ScoredPaper(papers[pid], fused[pid], chunk, similarity.get(pid, 0.0),
                                   tuple(ranks[pid])))
    return out
