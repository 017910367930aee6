"""What a reading of the evidence is (the best sentences per part of a question, or why the
abstracts do not answer), the one ``Generator`` protocol every answer writer implements (the
offline composer, the prose LLM, the structured LLM), and the checks the fitted reader's
features use: does a sentence hold the asked kind of answer (a figure of the asked unit, a name
the question does not say), does an abstract name a thing, how much of the question's topic an abstract covers."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from rag.answer.intent import Intent, Part
from rag.text.lexicon import GENERIC_TERMS, content_terms, mentions, stem, tokens
from rag.text.names import family_members, name_pattern, names
from rag.text.numbers import could_score, number_spans, percent, times
from rag.types import Draft, Evidence, ScoredPaper


@dataclass(frozen=True)
class Sentence:
    """A candidate answer sentence scored for one part of the question."""

    paper: ScoredPaper
    text: str
    score: float
    holds: bool  # does it hold the kind of answer the part asks for (a number of that unit, ...)


@dataclass(frozen=True)
class Reading:
    """The verdict on the evidence: the best sentences per part, or why there is no answer."""

    parts: tuple[tuple[Part, tuple[Sentence, ...]], ...]
    papers: tuple[ScoredPaper, ...]
    reason: str = ""  # set when the evidence does not answer the question
    intent: Intent | None = None  # the question as read
    qualifying: tuple[tuple[str, float], ...] = ()  # a list question: (paper id, P(it qualifies)), best first

    @property
    def answerable(self) -> bool:
        return not self.reason


class Generator(Protocol):
    """Writes the answer's draft from the reader's verdict and the evidence. The engine checks
    every sentence of the draft afterwards (``rag.stages.verify``); a generator checks nothing."""

    name: str

    def generate(self, question: str, reading: Reading, evidence: Evidence) -> Draft: ...


def says(paper: ScoredPaper, name: str) -> bool:
    """The abstract names it, however hyphenated, or as its method name or an alias, or names
    each of its parts as a member of a family ("the Bison-Gecko tandem" of "a tandem of
    PaLM2-Bison and PaLM2-Gecko")."""
    p = paper.paper
    return bool(name_pattern(name).search(p.text)) or family_members(p.text, name) or any(
        mentions(alias, name) for alias in (p.method or "", *p.aliases) if alias)


def is_share(span: str) -> bool:
    """A share or a score: "41.5%", "3.2 points", "4 pp"."""
    return bool(percent(span) or re.search(r"points?$|pp$", span))


def holds(part: Part, sentence: str, terms: set[str], paper: ScoredPaper | None = None,
          asked: tuple[str, ...] = ()) -> bool:
    """Does the sentence hold the kind of answer the part asks for? A number part needs a number
    of the asked unit; a name part needs a name the question does not already say."""
    if part.kind == "name":
        said = {n.lower() for n in asked}
        method = (paper.paper.method or "") if paper else ""
        found = names(sentence) + ([method] if method and mentions(sentence, method) else [])
        return any(n.lower() not in said for n in found)
    if part.kind == "comparison" and part.unit == "figure":
        return bool(number_spans(sentence, part.text))
    if part.kind != "number":
        return True
    figures = number_spans(sentence, part.text)
    spans = [m.group(0) for m in figures]
    if part.unit == "score":  # "what accuracy": "75.5%", not "six languages"
        spans = [m.group(0) for m in figures if could_score(sentence, m)]
    elif part.unit == "%":
        spans = [s for s in spans if is_share(s)]
    elif part.unit == "x":
        spans = [s for s in spans if times(s)] or (spans if re.search(r"faster|speed", sentence) else [])
    if part.counted:  # "how many GPUs": a number of GPUs, not "5.5B tokens"
        return any(_counts(sentence, m.end(), part.counted) for m in number_spans(sentence, part.text))
    measured = part.focus - {part.unit or ""}
    return bool(spans) and (not measured or bool(measured & terms))


_MAGNITUDE = frozenset("thousand thousands million millions billion billions trillion k m b".split())


def _counts(sentence: str, end: int, counted: frozenset[str]) -> bool:
    """Is what the number at ``end`` counts one of ``counted``? Read the next few words, past
    "million" and the like, up to the first word that is not part of the noun phrase."""
    clause = re.split(r"[,.;]", sentence[end:], maxsplit=1)[0]  # the noun phrase ends at a mark
    for word in tokens(clause)[:6]:
        if stem(word) in counted or stem(word.rstrip("s")) in counted:
            return True
        if word.lower() in ("for", "to", "on", "in", "and", "with", "from", "than"):
            return False
    return False


def topic_share(intent: Intent, papers: Sequence[ScoredPaper],
                weight: Callable[[str], float] | None = None) -> float:
    """The largest share of the question's focus that one read abstract says, each focus word
    weighted by its rarity in the collection (rare words carry the topic)."""
    return max(topic_shares(intent, papers, weight), default=1.0)


def topic_shares(intent: Intent, papers: Sequence[ScoredPaper],
                 weight: Callable[[str], float] | None = None) -> list[float]:
    """Per paper, the share of the question's focus its abstract says (rare words weigh most);
    all 1.0 when the question has no focus to share."""
    words = {stem(w): w for w in tokens(intent.question) if w[0].isalpha()}
    focus = {t: (weight(words.get(t, t)) if weight else 1.0) for t in intent.focus - GENERIC_TERMS}
    total = sum(focus.values())
    if not focus or total <= 0:
        return [1.0] * len(papers)
    said = [content_terms(p.paper.text) for p in papers]  # once a paper, not once a focus word
    return [sum(w for t, w in focus.items() if t in terms) / total for terms in said]
