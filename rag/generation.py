"""Answer generators behind one Protocol. The default, ``OfflineAnswerer``, composes a short
extractive answer from the retrieved abstracts' own sentences: no key, no network, deterministic.
A generator returns a Draft (sentences with the papers they come from); the citation step turns
that into keys."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from .embedding import Embedder
from .settings import AnswerSettings
from .text import STOPWORDS as _STOPWORDS
from .text import split_sentences
from .types import ScoredPaper

ABSTAIN_TEXT = "The indexed abstracts do not answer this."


@dataclass(frozen=True)
class DraftSentence:
    """A sentence and the papers it claims to come from. A framing sentence ("X is among the
    authors of:") makes no claim of its own and carries no citation."""

    text: str
    paper_ids: tuple[str, ...]
    score: float = 0.0
    framing: bool = False


@dataclass(frozen=True)
class Draft:
    sentences: tuple[DraftSentence, ...]
    abstained: bool = False
    unknown_keys: int = 0  # citation keys the model invented (never in its context), removed
    attributed: int = 0  # uncited sentences given a source after the fact


class Generator(Protocol):
    name: str

    def generate(self, question: str, evidence: Sequence[ScoredPaper]) -> Draft: ...


_MULTI = re.compile(r"\b(which|what|list|name|compare|any)\b.{0,30}\b(papers|works|studies|methods|"
                    r"approaches|models|benchmarks|datasets)\b|\bpapers\b", re.IGNORECASE)
_TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9\-]*|\d+(?:\.\d+)?%?")


_INTRO = re.compile(r"\b(?:[Ww]e|[Tt]his (?:paper|work))\b[^.]{0,40}\b(?:propose|present|introduce)")
# "What is X?", "Which model does Y?", "What chatbot ...?": the answer is the sentence that
# introduces the thing, so such questions favour "we propose/present/introduce ..." sentences.
_DEFINITION_Q = re.compile(
    r"^\s*(?:what\s+is|what's|what\s+are|describe|explain|tell me about|"
    r"(?:what|which)\s+(?!(?:is|are|does|do|did|was|were|can|papers?)\b)[a-z\-]+)\b",
    re.IGNORECASE)


def stem(word: str) -> str:
    """A crude suffix strip so that "negatives" meets "negative" and "compresses" "compress"."""
    if word.endswith("ies") and len(word) > 5:
        word = word[:-3] + "y"
    elif word.endswith("s") and not word.endswith("ss") and len(word) > 4:
        word = word[:-1]
    for suffix in ("ing", "ed"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


def content_terms(text: str) -> set[str]:
    return {stem(t.lower()) for t in _TOKEN.findall(text)
            if t.lower() not in _STOPWORDS and len(t) > 1}


def rare_terms(text: str) -> set[str]:
    """Method names and numbers: tokens with inner capitals or digits."""
    return {t.lower() for t in _TOKEN.findall(text)
            if any(c.isdigit() for c in t) or any(c.isupper() for c in t[1:])}


def is_multi_paper(question: str) -> bool:
    return bool(_MULTI.search(question))


class OfflineAnswerer:
    """Picks the abstract sentences that answer the question, each citing its own paper."""

    name = "offline"

    def __init__(self, embedder: Embedder, settings: AnswerSettings) -> None:
        self.embedder = embedder
        self.settings = settings

    def generate(self, question: str, evidence: Sequence[ScoredPaper]) -> Draft:
        usable = [e for e in evidence if e.paper.has_abstract]
        strongest = max((e.similarity for e in usable), default=0.0)
        if strongest < self.settings.min_evidence:
            return Draft((), abstained=True)
        floor = max(self.settings.min_evidence, strongest - 0.15)
        papers = [e for e in usable if e.similarity >= floor]
        scored = self._score_sentences(question, papers)
        if not scored or scored[0].score < self.settings.min_sentence_score:
            return Draft((), abstained=True)
        chosen = (self._one_per_paper(scored) if is_multi_paper(question)
                  else self._best_few(scored))
        return Draft(tuple(chosen))

    def _score_sentences(self, question: str, papers: Sequence[ScoredPaper]) -> list[DraftSentence]:
        candidates = [(p, s) for p in papers for s in split_sentences(p.paper.text)
                      if len(s.split()) >= 5]
        if not candidates:
            return []
        vectors = self.embedder.embed([question] + [s for _, s in candidates])
        similarity = vectors[1:] @ vectors[0]
        terms, rare = content_terms(question), rare_terms(question)
        definition = bool(_DEFINITION_Q.match(question))
        out = []
        for (paper, sentence), sim in zip(candidates, similarity, strict=True):
            words = content_terms(sentence)
            overlap = len(terms & words) / max(1, len(terms))
            # A name that picks the paper says nothing about which of its sentences answers.
            named = rare - {(paper.paper.method or "").lower()}
            bonus = 0.15 * len(named & {w.lower() for w in _TOKEN.findall(sentence)})
            if definition and _INTRO.search(sentence):
                method = paper.paper.method
                bonus += 0.3 if method and method in sentence else 0.1
            score = 0.55 * float(sim) + 0.35 * overlap + 0.1 * paper.similarity + min(bonus, 0.4)
            out.append(DraftSentence(sentence, (paper.paper.id,), score))
        return sorted(out, key=lambda d: -d.score)

    def _best_few(self, scored: list[DraftSentence]) -> list[DraftSentence]:
        top = scored[0]
        chosen = [top]
        for cand in scored[1:]:
            if len(chosen) >= min(2, self.settings.max_sentences):
                break
            if cand.score >= 0.85 * top.score:
                chosen.append(cand)
        return chosen

    def _one_per_paper(self, scored: list[DraftSentence]) -> list[DraftSentence]:
        chosen: dict[str, DraftSentence] = {}
        for cand in scored:
            if cand.paper_ids[0] in chosen or cand.score < self.settings.min_sentence_score:
                continue
            chosen[cand.paper_ids[0]] = cand
            if len(chosen) == self.settings.max_sentences:
                break
        return list(chosen.values())


