"""Answer generators behind one Protocol. The default, ``OfflineAnswerer``, composes a short
extractive answer from the retrieved abstracts' own sentences: no key, no network, deterministic.
A generator returns a Draft (sentences with the papers they come from); the citation step turns
that into keys.

The offline answer follows the question's intent: each part of the question is answered from the
sentence that holds it; a name, number or yes/no is led with the short span taken from that
sentence ("**69.73%**: ..."); and it abstains, with the reason, when no retrieved sentence holds
the asked kind of answer about the asked thing."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from .embedding import Embedder
from .evidence import INTRO_SENTENCE, Reader, Reading, Sentence, is_share, name_pattern
from .intent import Intent, Part, parse_intent
from .lexicon import NEGATIONS, content_terms, number_spans, rare_terms, stem, times
from .settings import AnswerSettings
from .types import ScoredPaper

__all__ = ["ABSTAIN_TEXT", "INTRO_SENTENCE", "Draft", "DraftSentence", "Generator", "OfflineAnswerer",
           "content_terms", "rare_terms", "stem"]

ABSTAIN_TEXT = "The indexed abstracts do not answer this."


@dataclass(frozen=True)
class DraftSentence:
    """A sentence and the papers it claims to come from. A framing sentence ("X is among the
    authors of:") makes no claim of its own and carries no citation."""

    text: str
    paper_ids: tuple[str, ...]
    score: float = 0.0
    framing: bool = False
    prefix: str = ""  # shown before the sentence ("- KV-Distill (004-0253): ", "**69.73%**: ")


@dataclass(frozen=True)
class Draft:
    sentences: tuple[DraftSentence, ...]
    abstained: bool = False
    unknown_keys: int = 0  # citation keys the model invented (never in its context), removed
    attributed: int = 0  # uncited sentences given a source after the fact
    declined: bool = False  # the model said the abstracts do not answer (the engine decides)
    reason: str = ""  # why there is no answer, said to the user with the abstention


class Generator(Protocol):
    name: str

    def generate(self, question: str, evidence: Sequence[ScoredPaper]) -> Draft: ...


def lead_span(part: Part, sentence: Sentence, question: str) -> str:
    """The short answer a part asks for, cut from the sentence itself (never made up)."""
    text = sentence.text
    if part.kind == "number":
        spans = [m for m in number_spans(text)
                 if part.unit != "%" or is_share(m.group(0))]
        spans = [m for m in spans if part.unit != "x" or times(m.group(0))] or spans
        if not spans:
            return ""
        anchors = [m.start() for t in (part.unit, *part.focus) if t
                   for m in re.finditer(re.escape(t[:5]), text, re.IGNORECASE)]
        best = min(spans, key=lambda m: min((abs(m.start() - a) for a in anchors), default=0))
        return best.group(0)
    if part.kind == "name":  # the paper's own method name, when the sentence says it
        method = sentence.paper.paper.method
        if method and name_pattern(method).search(text) and not name_pattern(method).search(question):
            return method
        return ""
    if part.kind == "yes_no":
        return yes_or_no(part, text)
    return ""


def _negated(words: list[str], index: int) -> bool:
    return any(w in NEGATIONS for w in words[max(0, index - 3):index]) or words[index].endswith("-free")


def yes_or_no(part: Part, sentence: str) -> str:
    """"Yes" when the sentence asserts what the question asks about, "No" when it negates it,
    "" when the sentence does not speak to enough of the question."""
    words = [w.lower() for w in re.findall(r"[A-Za-z][A-Za-z0-9'\-]*", sentence)]
    hits = [i for i, w in enumerate(words) if stem(w.removesuffix("-free")) in part.focus]
    if len({stem(words[i].removesuffix("-free")) for i in hits}) < max(1, len(part.focus) // 2):
        return ""
    asked_negated = bool(set(re.findall(r"[a-z']+", part.text.lower())) & NEGATIONS)
    negated = any(_negated(words, i) for i in hits)
    return "No" if negated != asked_negated else "Yes"


class OfflineAnswerer:
    """Picks the abstract sentences that answer the question, each citing its own paper."""

    name = "offline"

    def __init__(self, embedder: Embedder, settings: AnswerSettings) -> None:
        self.settings = settings
        self.reader = Reader(embedder, settings)

    def generate(self, question: str, evidence: Sequence[ScoredPaper],
                 intent: Intent | None = None, reading: Reading | None = None) -> Draft:
        intent = intent or parse_intent(question)
        reading = reading or self.reader.read(intent, evidence)
        if not reading.answerable:
            return Draft((), abstained=True, reason=reading.reason)
        if intent.multi_paper and intent.kind in ("list", "comparison", "describe", "how", "name"):
            listed = self._one_per_paper(intent, reading)
            if listed:
                return Draft(tuple(listed))
        return Draft(tuple(self._per_part(intent, reading)))

    def _per_part(self, intent: Intent, reading: Reading) -> list[DraftSentence]:
        """Each part from the sentence that holds it. A what/how question about one paper also
        gets the sentence in which that paper says what it proposes, first."""
        chosen: list[DraftSentence] = []
        floor = self.settings.min_answer_score
        for part, cands in reading.parts:
            best = next((c for c in cands if c.holds and c.score >= floor), None)
            if best is None:
                chosen.append(DraftSentence(f"The abstracts do not say {_clause(part)}.", (), framing=True))
                continue
            if any(c.text == best.text for c in chosen):
                continue
            intro = None
            if part.kind in ("how", "describe", "name") and len(reading.parts) == 1:
                intro = self._introduction(cands, best)
                if intro is not None:
                    chosen.append(DraftSentence(intro.text, (intro.paper.paper.id,), intro.score,
                                                prefix=_bold(lead_span(part, intro, intent.question))))
            lead = lead_span(part, best, intent.question) if intro is None else ""
            chosen.append(DraftSentence(best.text, (best.paper.paper.id,), best.score, prefix=_bold(lead)))
            if len(reading.parts) == 1 and part.kind in ("how", "describe", "yes_no"):
                chosen += self._more(cands, best, chosen)
        return chosen[: self.settings.max_sentences]

    def _more(self, cands: Sequence[Sentence], best: Sentence,
              chosen: list[DraftSentence]) -> list[DraftSentence]:
        """Further sentences of the same paper that answer nearly as well as the best one."""
        room = self.settings.answer_sentences - len(chosen)
        said = {c.text for c in chosen}
        more = [c for c in cands if c.paper.paper.id == best.paper.paper.id and c.text not in said
                and c.holds and c.score >= self.settings.second_ratio * best.score][: max(0, room)]
        return [DraftSentence(c.text, (c.paper.paper.id,), c.score) for c in more]

    @staticmethod
    def _introduction(cands: Sequence[Sentence], best: Sentence) -> Sentence | None:
        """The best paper's own "we propose/introduce X" sentence, when it is not ``best``."""
        pid = best.paper.paper.id
        method = best.paper.paper.method
        intros = [c for c in cands if c.paper.paper.id == pid and c.text != best.text
                  and (INTRO_SENTENCE.search(c.text) or (method and method in c.text))]
        if INTRO_SENTENCE.search(best.text) or not intros:
            return None
        return max(intros, key=lambda c: c.score)

    def _one_per_paper(self, intent: Intent, reading: Reading) -> list[DraftSentence]:
        """A list: each paper with the sentence that best says what it contributes here."""
        part, cands = reading.parts[0]
        best: dict[str, Sentence] = {}

        def as_contribution(c: Sentence) -> float:
            method = c.paper.paper.method
            says_what = INTRO_SENTENCE.search(c.text) or (method and method in c.text)
            return c.score + (0.15 if says_what else 0.0)

        for cand in sorted(cands, key=as_contribution, reverse=True):
            pid = cand.paper.paper.id
            if pid not in best and cand.score >= self.settings.min_sentence_score:
                best[pid] = cand
        ranked = sorted(best.values(), key=lambda c: -c.score)[: self.settings.max_sentences]
        return [DraftSentence(c.text, (c.paper.paper.id,), c.score, prefix=f"- {c.paper.paper.label}: ")
                for c in ranked]


def _bold(span: str) -> str:
    return f"**{span}**: " if span else ""


def _clause(part: Part) -> str:
    text = re.sub(r"^\s*(?:and\s+)?", "", part.text).rstrip(" ?.")
    return text[0].lower() + text[1:] if text else "this"


def with_prefix(sentence: DraftSentence, prefix: str) -> DraftSentence:
    return replace(sentence, prefix=prefix)
