"""Answer generators behind one Protocol. The default, ``OfflineAnswerer``, composes a short
extractive answer from the retrieved abstracts' own sentences: no key, no network, deterministic.
A generator returns a Draft (sentences with the papers they come from); the citation step turns
that into keys."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from .embedding import Embedder
from .settings import AnswerSettings
from .text import STOPWORDS as _STOPWORDS
from .text import split_sentences
from .types import Paper, ScoredPaper

ABSTAIN_TEXT = "The indexed abstracts do not answer this."


@dataclass(frozen=True)
class DraftSentence:
    """A sentence and the papers it claims to come from. A framing sentence ("X is among the
    authors of:") makes no claim of its own and carries no citation."""

    text: str
    paper_ids: tuple[str, ...]
    score: float = 0.0
    framing: bool = False
    prefix: str = ""  # shown before the sentence ("- KV-Distill (004-0253): "), never checked


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


INTRO_SENTENCE = re.compile(r"\b(?:[Ww]e|[Tt]his (?:paper|work))\b[^.]{0,40}\b(?:propose|present|introduce)")
# "What is X?", "Which model does Y?", "What chatbot ...?": the answer is the sentence that
# introduces the thing, so such questions favour "we propose/present/introduce ..." sentences.
_DEFINITION_Q = re.compile(
    r"^\s*(?:what\s+is|what's|what\s+are|describe|explain|tell me about|"
    r"(?:what|which)\s+(?!(?:is|are|does|do|did|was|were|can|papers?)\b)[a-z\-]+)\b",
    re.IGNORECASE)


# Words that say little about *what* is asked ("How does X perform?" asks about all of X).
_GENERIC_TERMS = frozenset("""do doe make made train model result perform performance achieve
improve work mean main idea key contribution goal problem address solve task help differ compare
""".split())


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


_NUMERIC_Q = re.compile(r"\b(?:how many|how much|by how much|what (?:percentage|percent|number|"
                        r"fraction|share|size|rate|learning rate|speed-?up|accuracy|score)|"
                        r"what (?:[\w-]+ )?(?:factor|ratio)|how (?:large|big|fast|"
                        r"long|often))\b", re.IGNORECASE)
_STANDALONE_NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)?\s*(?:%|x|×|k|K|M|B)?(?![\w])")


_HOW_MANY = re.compile(r"\bhow many\s+([A-Za-z][A-Za-z\-]+)", re.IGNORECASE)


def asks_for_number(question: str) -> bool:
    return bool(_NUMERIC_Q.search(question))


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
        named = [e for e in usable if e.paper.method and e.paper.method.lower() in rare_terms(question)]
        strongest = max((e.similarity for e in usable), default=0.0)
        if strongest < self.settings.min_evidence and not named:
            return Draft((), abstained=True)
        floor = max(self.settings.min_evidence, strongest - 0.15)
        papers = [e for e in usable if e.similarity >= floor] or named
        # Reading costs one embedding per sentence: a single-paper question reads the best three.
        papers = papers if is_multi_paper(question) else papers[:3]
        if named and not is_multi_paper(question):
            papers = named  # "How many GPUs trained K2?" is answered from K2's abstract or not at all
            if not any(self._mentions_focus(question, e.paper) for e in named):
                return Draft((), abstained=True)  # a false premise: the abstract never says
        scored = self._score_sentences(question, papers)
        if not scored or scored[0].score < self.settings.min_sentence_score:
            return Draft((), abstained=True)
        if is_multi_paper(question):
            return Draft(tuple(self._one_per_paper(scored, papers)))
        chosen = self._best_few(scored)
        if asks_for_number(question) and not self._has_asked_number(question, chosen):
            return Draft((), abstained=True)  # the asked-for number is in none of the abstracts
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
        numeric = asks_for_number(question)
        out = []
        for (paper, sentence), sim in zip(candidates, similarity, strict=True):
            words = content_terms(sentence)
            overlap = len(terms & words) / max(1, len(terms))
            # A name that picks the paper says nothing about which of its sentences answers.
            named = rare - {(paper.paper.method or "").lower()}
            bonus = 0.15 * len(named & {w.lower() for w in _TOKEN.findall(sentence)})
            if numeric and _STANDALONE_NUMBER.search(sentence):
                bonus += 0.2
            if definition and INTRO_SENTENCE.search(sentence):
                method = paper.paper.method
                bonus += 0.3 if method and method in sentence else 0.1
            score = 0.55 * float(sim) + 0.35 * overlap + 0.1 * paper.similarity + min(bonus, 0.4)
            out.append(DraftSentence(sentence, (paper.paper.id,), score))
        return sorted(out, key=lambda d: -d.score)

    @staticmethod
    def _has_asked_number(question: str, chosen: Sequence[DraftSentence]) -> bool:
        """A number, and for "how many X" a number of X: "How many GPUs ...?" is not answered by
        "5.5B tokens"."""
        with_number = [c for c in chosen if _STANDALONE_NUMBER.search(c.text)]
        unit = _HOW_MANY.search(question)
        if unit is None:
            return bool(with_number)
        wanted = stem(unit.group(1).lower())
        return any(wanted in content_terms(c.text) for c in with_number)

    @staticmethod
    def _mentions_focus(question: str, paper: Paper) -> bool:
        """Does the abstract mention every specific thing the question asks about the paper?"""
        focus = content_terms(question) - _GENERIC_TERMS - {(paper.method or "").lower()}
        return len(focus & content_terms(paper.text)) >= len(focus) / 2

    def _best_few(self, scored: list[DraftSentence]) -> list[DraftSentence]:
        top = scored[0]
        chosen = [top]
        for cand in scored[1:]:
            if len(chosen) >= min(2, self.settings.max_sentences):
                break
            if cand.score >= 0.85 * top.score:
                chosen.append(cand)
        return chosen

    def _one_per_paper(self, scored: list[DraftSentence],
                       papers: Sequence[ScoredPaper]) -> list[DraftSentence]:
        """A list: each paper with the sentence that best says what it contributes here."""
        by_id = {p.paper.id: p.paper for p in papers}

        def as_contribution(cand: DraftSentence) -> float:
            method = by_id[cand.paper_ids[0]].method
            says_what = INTRO_SENTENCE.search(cand.text) or (method and method in cand.text)
            return cand.score + (0.15 if says_what else 0.0)

        best: dict[str, DraftSentence] = {}
        for cand in sorted(scored, key=as_contribution, reverse=True):
            if cand.paper_ids[0] not in best and cand.score >= self.settings.min_sentence_score:
                best[cand.paper_ids[0]] = cand
        ranked = sorted(best.values(), key=lambda c: -c.score)[: self.settings.max_sentences]
        return [replace(c, prefix=f"- {by_id[c.paper_ids[0]].label}: ") for c in ranked]


