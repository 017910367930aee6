"""Stage 2, retrieve: ``Routed`` in, ``Evidence`` out: the ranked papers (keyword + vector, fused,
then reranked), each scrubbed of instruction-like sentences and split into sentences here, once.
Every later stage (the reader, the LLM, the support check) reads this ``Evidence``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from rag.index.filters import Filters
from rag.index.library import Library
from rag.retrieve.fusion import retrieve
from rag.retrieve.rerank import Reranker
from rag.settings import RetrievalSettings
from rag.stages.route import Routed
from rag.text.injection import evidence_sentences, scrubbed
from rag.types import Evidence, ScoredPaper


def find(library: Library, reranker: Reranker, routed: Routed, settings: RetrievalSettings, *,
         k: int | None = None, filters: Filters = Filters(), mode: str = "hybrid",
         methods: Mapping[str, list[str]] | None = None) -> list[ScoredPaper]:
    """The ranked papers for a routed question: the catalogue's when it routed there, else a
    search for ``k`` papers (a list question reads ``list_k``, others ``top_k``), reranked."""
    if routed.papers:
        return list(routed.papers)
    intent = routed.intent
    wide = intent.multi_paper and intent.kind != "comparison"  # a list reads more papers
    k = k or (settings.list_k if wide else settings.top_k)
    found = retrieve(library, routed.standalone, k, filters=filters, mode=mode, methods=methods or {})
    return reranker.rerank(routed.standalone, found)


def gather(found: Sequence[ScoredPaper]) -> Evidence:
    """The papers as every later stage reads them: instruction-like sentences removed (once),
    and each abstract split into sentences (once)."""
    papers = tuple(guarded(item) for item in found)
    return Evidence(papers, {e.paper.id: evidence_sentences(e.paper) for e in papers})


def guarded(item: ScoredPaper) -> ScoredPaper:
    """The paper with instruction-like sentences removed (an LLM never reads them, and support
    never rests on them)."""
    paper = scrubbed(item.paper)
    return item if paper is item.paper else replace(item, paper=paper)
