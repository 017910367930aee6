"""Does a sentence's evidence support it? A score in [0, 1] behind a Protocol, so that a real
NLI model can replace the default later. The default combines the local embedder's similarity
between the sentence and the cited papers' stored chunk vectors with lexical overlap of content
words, and halves the score when a number or method name in the sentence is in none of the
cited papers (the commonest way a generated sentence goes wrong)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol

import numpy as np

from .generation import content_terms, rare_terms
from .library import Library
from .types import Paper

_NUMBER = re.compile(r"\d+(?:\.\d+)?")


class SupportScorer(Protocol):
    def score(self, sentence: str, papers: Sequence[Paper]) -> float: ...


class EmbeddingOverlapScorer:
    def __init__(self, lib: Library) -> None:
        self.lib = lib

    def _similarity(self, sentence: str, papers: Sequence[Paper]) -> float:
        chunks = self.lib.catalog.chunks_of(p.id for p in papers)
        stored = self.lib.vectors.vectors_by_id([c.id for c in chunks])
        if not stored:
            return 0.0
        vector = self.lib.embedder.embed([sentence])[0]
        return max(float(v @ vector) for v in stored.values())

    def score(self, sentence: str, papers: Sequence[Paper]) -> float:
        papers = [p for p in papers if p.has_abstract]
        if not papers:
            return 0.0
        evidence = " ".join(p.text for p in papers)
        terms = content_terms(sentence)
        # few words prove little: a 2-word sentence matching fully is not strong evidence
        overlap = len(terms & content_terms(evidence)) / max(4, len(terms))
        score = 0.5 * max(0.0, self._similarity(sentence, papers)) + 0.5 * overlap
        lowered = evidence.lower()
        specifics = rare_terms(sentence) | set(_NUMBER.findall(sentence))
        if any(s.lower() not in lowered for s in specifics):
            score *= 0.5
        return round(float(np.clip(score, 0.0, 1.0)), 4)
