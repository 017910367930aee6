"""Does a sentence's evidence support it? A score in [0, 1] behind a Protocol, so that a real
NLI model can replace the checker later.

``AlignedSupportScorer`` (the engine's checker) aligns the sentence with the cited abstracts'
own sentences and scores how close it comes to the best of them (embedding similarity) and how
many of its content words the abstracts say. It then lowers the score for each way a claim
commonly goes beyond its source (see ``rag.answer.claims``): a figure the abstracts never give, a name
they never say, negation that disagrees with the aligned sentence, and universal or absolute
wording ("every", "always", "eliminates") they do not use. Its weights and the threshold
(``RAG_ANSWER__SUPPORT_THRESHOLD``) were chosen on the dev split of
eval/datasets/support_pairs.jsonl; ``benchmarks/support_checker.py`` prints dev and test.

``PlainOverlapScorer`` is the checker before that benchmark existed, kept as its baseline."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol

import numpy as np

from rag.answer.claims import best_aligned, missing_names, missing_numbers, overreach_cues, polarity_mismatch
from rag.index.library import Library
from rag.settings import SupportSettings
from rag.text.injection import evidence_sentences
from rag.text.lexicon import content_terms
from rag.text.names import rare_terms
from rag.types import Paper

_NUMBER = re.compile(r"\d+(?:\.\d+)?")


class SupportScorer(Protocol):
    def score(self, sentence: str, papers: Sequence[Paper],
              split: Mapping[str, tuple[str, ...]] | None = None) -> float: ...


@dataclass(frozen=True)
class Verdict:
    """A score with its reasons, for logs, tests and the benchmark's error listing."""

    score: float
    similarity: float = 0.0
    coverage: float = 0.0
    aligned: str = ""
    numbers: tuple[str, ...] = ()
    names: tuple[str, ...] = ()
    negation: bool = False
    overreach: tuple[str, ...] = field(default=())


class AlignedSupportScorer:
    def __init__(self, lib: Library, weights: SupportSettings | None = None) -> None:
        self.lib = lib
        self.weights = weights or SupportSettings()

    def score(self, sentence: str, papers: Sequence[Paper],
              split: Mapping[str, tuple[str, ...]] | None = None) -> float:
        return self.verdict(sentence, papers, split).score

    def verdict(self, sentence: str, papers: Sequence[Paper],
                split: Mapping[str, tuple[str, ...]] | None = None) -> Verdict:
        papers = [p for p in papers if p.has_abstract]
        sentences = [s for p in papers
                     for s in (split[p.id] if split and p.id in split else evidence_sentences(p))]
        if not sentences:
            return Verdict(0.0)
        source = " ".join(p.text for p in papers)
        vectors = self.lib.embedder.embed([sentence, *sentences])
        sims = vectors[1:] @ vectors[0]
        aligned = sentences[best_aligned(sentence, sentences, sims)]
        terms = content_terms(sentence)
        verdict = Verdict(
            0.0, round(max(0.0, float(sims.max())), 4),
            round(len(terms & content_terms(source)) / max(4, len(terms)), 4), aligned,
            tuple(missing_numbers(sentence, source)), tuple(missing_names(sentence, source)),
            polarity_mismatch(sentence, source), tuple(overreach_cues(sentence, source)))
        return replace(verdict, score=combine(verdict, self.weights))


def combine(verdict: Verdict, weights: SupportSettings) -> float:
    """The score from a verdict's parts: similarity and word coverage, lowered once for each
    kind of mismatch found."""
    w = weights
    score = w.similarity * verdict.similarity + (1 - w.similarity) * verdict.coverage
    for flagged, factor in ((verdict.numbers, w.number), (verdict.names, w.name),
                            (verdict.negation, w.negation), (verdict.overreach, w.overreach)):
        if flagged:
            score *= factor
    return round(float(np.clip(score, 0.0, 1.0)), 4)


class PlainOverlapScorer:
    """The checker before the benchmark: 0.5 x max cosine between the sentence and the cited
    papers' stored chunk vectors + 0.5 x content-word overlap, halved when a number or name in
    the sentence is absent from the cited abstracts (as a substring)."""

    def __init__(self, lib: Library) -> None:
        self.lib = lib

    def _similarity(self, sentence: str, papers: Sequence[Paper]) -> float:
        chunks = self.lib.catalog.chunks_of(p.id for p in papers)
        stored = self.lib.vectors.vectors_by_id([c.id for c in chunks])
        if not stored:
            return 0.0
        vector = self.lib.embedder.embed([sentence])[0]
        return max(float(v @ vector) for v in stored.values())

    def score(self, sentence: str, papers: Sequence[Paper],
              split: Mapping[str, tuple[str, ...]] | None = None) -> float:
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
