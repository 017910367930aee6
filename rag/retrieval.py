"""Finding the papers for a question: dense search in the vector index, merged to paper level
(one paper never appears twice, merged duplicates included)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from .library import Library
from .text import normalise
from .types import ScoredChunk, ScoredPaper


def merge_to_papers(hits: Sequence[ScoredChunk], lib: Library, k: int) -> list[ScoredPaper]:
    """Best chunk per paper decides its score; aliases resolve to the paper they were merged into."""
    best: dict[str, ScoredChunk] = {}
    for hit in hits:
        current = best.get(hit.chunk.paper_id)
        if current is None or hit.score > current.score:
            best[hit.chunk.paper_id] = hit
    papers = lib.catalog.get_many(best)
    merged: dict[str, ScoredPaper] = {}
    for paper_id, hit in sorted(best.items(), key=lambda kv: -kv[1].score):
        paper = papers.get(paper_id)
        if paper is None or paper.id in merged:
            continue
        merged[paper.id] = ScoredPaper(paper, hit.score, hit.chunk)
        if len(merged) == k:
            break
    return list(merged.values())


def named_papers(methods: dict[str, list[str]], query: str) -> list[str]:
    """Papers whose introduced method name ("SupReMix", "K2") the query mentions verbatim.
    Small embedders miss exactly these rare names; the name itself is decisive evidence."""
    words = {w.lower() for w in re.findall(r"[A-Za-z0-9][A-Za-z0-9\-]*", query)}
    return [pid for name, ids in methods.items() if name in words for pid in ids]


def dense_search(lib: Library, query: str, k: int,
                 methods: dict[str, list[str]] | None = None) -> list[ScoredPaper]:
    vector = lib.embedder.embed([normalise(query)])[0]
    candidates = max(lib.settings.retrieval.candidates, 3 * k)
    hits = merge_to_papers(lib.vectors.query(vector, candidates), lib, candidates)
    pinned = set(named_papers(methods or {}, query))
    if pinned - {h.paper.id for h in hits}:
        hits += _score_papers(lib, vector, pinned - {h.paper.id for h in hits})
    hits.sort(key=lambda h: (h.paper.id not in pinned, -h.score))
    return hits[:k]


def _score_papers(lib: Library, vector, paper_ids: set[str]) -> list[ScoredPaper]:  # type: ignore[no-untyped-def]
    """Dense scores for specific papers that the top candidates did not include."""
    found = []
    for paper in lib.catalog.get_many(sorted(paper_ids)).values():
        chunks = lib.chunker.chunks(paper)
        if not chunks:
            continue
        vectors = lib.vectors.vectors_for([c.text_hash for c in chunks])
        best = max(chunks, key=lambda c: float(vectors[c.text_hash] @ vector)
                   if c.text_hash in vectors else -1.0)
        score = float(vectors[best.text_hash] @ vector) if best.text_hash in vectors else 0.0
        found.append(ScoredPaper(paper, score, best))
    return found
