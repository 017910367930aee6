"""Reranking after fusion, behind a Protocol. No cross-encoder ships offline in any package
(checked), so the default changes nothing; an LLM reranker can be plugged in when an LLM
endpoint is configured. A fake cross-encoder would only hide that."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from rag.types import ScoredPaper


class Reranker(Protocol):
    def rerank(self, question: str, papers: Sequence[ScoredPaper]) -> list[ScoredPaper]: ...


class NoReranker:
    def rerank(self, question: str, papers: Sequence[ScoredPaper]) -> list[ScoredPaper]:
        return list(papers)
