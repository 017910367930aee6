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
from typing import Protocol

from rag.answer.evidence import INTRO_SENTENCE, Reader, Reading, Sentence, is_share
from rag.answer.intent import Intent, Part, parse_intent
from rag.index.embedding import Embedder
from rag.retrieve.keyword import TermStats
from rag.settings import AnswerSettings
from rag.text.lexicon import stem, tokens
from rag.text.names import name_pattern
from rag.text.numbers import number_spans, times
from rag.text.vocab import DENIALS, NEGATIONS
from rag.types import Draft, DraftSentence, ScoredPaper

ABSTAIN_TEXT = "The indexed abstracts do not answer this."


class Generator(Protocol):
    name: str

    def generate(self, question: str, evidence: Sequence[ScoredPaper]) -> Draft: ...


def lead_span(part: Part, sentence: Sentence, question: str, coverage: float = 0.5) -> str:
    """The short answer a part asks for, cut from the sentence itself (never made up)."""
    text = sentence.text
    if part.kind == "number":
        spans = [m for m in number_spans(text, question)
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
        return yes_or_no(part, text, coverage)
    return ""


_NEGATED_ASK = re.compile(r"^\s*(?:isn't|aren't|doesn't|don't|didn't|can't|cannot|wasn't|weren't|"
                          r"won't|wouldn't|shouldn't|hasn't|haven't)\b|^\s*\w+\s+not\b", re.IGNORECASE)


def _denied(words: list[str], index: int, asked: set[str], window: int) -> bool:
    """Is the word at ``index`` negated or denied by a cue the question does not itself use?"""
    if words[index].endswith("-free") and words[index] not in asked:
        return True
    near = words[max(0, index - window):index]
    if " ".join(near).endswith("not only") or "only" in near[-1:]:
        return False
    asked_negation = bool(asked & NEGATIONS)  # "with no natural videos" meets "without natural videos"
    return any(w not in asked and ((w in NEGATIONS and not asked_negation) or w in DENIALS) for w in near)


def yes_or_no(part: Part, sentence: str, coverage: float = 0.5, window: int = 5) -> str:
    """"Yes" when the sentence says what the question asks about, "No" when it negates or
    denies it, "" when the sentence covers less than ``coverage`` of the question's focus."""
    words = [w.lower() for w in tokens(sentence) if w[0].isalpha()]
    asked = {w.lower() for w in tokens(part.text) if w[0].isalpha()}
    hits = [i for i, w in enumerate(words) if stem(w.removesuffix("-free")) in part.focus]
    if not part.focus or len({stem(words[i].removesuffix("-free")) for i in hits}) < coverage * len(part.focus):
        return ""
    negated = any(_denied(words, i, asked, window) for i in hits)
    return "No" if negated != bool(_NEGATED_ASK.match(part.text)) else "Yes"


class OfflineAnswerer:
    """Picks the abstract sentences that answer the question, each citing its own paper."""

    name = "offline"

    def __init__(self, embedder: Embedder, settings: AnswerSettings,
                 terms: TermStats | None = None) -> None:
        self.settings = settings
        self.reader = Reader(embedder, settings, terms)

    def read(self, intent: Intent, evidence: Sequence[ScoredPaper]) -> Reading:
        """The verdict on the evidence (the engine routes on it, LLM or not)."""
        return self.reader.read(intent, evidence)

    def generate(self, question: str, evidence: Sequence[ScoredPaper]) -> Draft:
        intent = parse_intent(question)
        return self.compose(intent, self.read(intent, evidence))

    def compose(self, intent: Intent, reading: Reading) -> Draft:
        """The answer from a reading: abstain with its reason, or each part from its sentence."""
        if not reading.answerable:
            return Draft((), abstained=True, reason=reading.reason)
        if intent.kind == "comparison":
            compared = self._compare(intent, reading)
            if compared:
                return Draft(tuple(compared))
        if intent.multi_paper and intent.kind in ("list", "describe", "how", "name"):
            listed = self._one_per_paper(intent, reading)
            if listed:
                return Draft(tuple(listed))
        return Draft(tuple(self._per_part(intent, reading)))

    def _per_part(self, intent: Intent, reading: Reading) -> list[DraftSentence]:
        """Each part from the sentence that holds it (a sentence already used for an earlier part
        is not repeated; the next one that holds is taken). A what/how question about one paper
        also gets the sentence in which that paper says what it proposes, first."""
        chosen: list[DraftSentence] = []
        floor, single = self.settings.min_answer_score, len(reading.parts) == 1
        for part, cands in reading.parts:
            said = {c.text for c in chosen}
            fitting = [c for c in cands if c.holds and c.score >= floor]
            best = next((c for c in fitting if c.text not in said), None)
            if best is None:
                if not fitting:
                    chosen.append(DraftSentence(f"The abstracts do not say {_clause(part)}.", (),
                                                framing=True))
                continue
            lead = ""
            if part.kind == "yes_no":
                best, lead = self._decisive(part, [c for c in fitting if c.text not in said], best,
                                            intent.names)
            intro = None
            if part.kind in ("how", "describe", "name") and single:
                intro = self._introduction(cands, best)
                if intro is not None:
                    chosen.append(DraftSentence(intro.text, (intro.paper.paper.id,), intro.score,
                                                prefix=_bold(lead_span(part, intro, intent.question))))
            if part.kind != "yes_no":
                lead = lead_span(part, best, intent.question) if intro is None else ""
            chosen.append(DraftSentence(best.text, (best.paper.paper.id,), best.score, prefix=_bold(lead)))
            if single and part.kind in ("how", "describe", "yes_no"):
                chosen += self._more(cands, best, chosen)
        return chosen[: self.settings.max_sentences]

    def _decisive(self, part: Part, fitting: Sequence[Sentence], best: Sentence,
                  asked: tuple[str, ...] = ()) -> tuple[Sentence, str]:
        """For a yes/no part: a sentence about the work itself that denies what is asked (a
        denial is the more telling evidence), else the first of the best few that affirms it."""
        coverage, window = self.settings.yes_no_coverage, self.settings.yes_no_window
        verdicts = [(c, yes_or_no(part, c.text, coverage, window))
                    for c in fitting[: self.settings.yes_no_candidates]]
        denial = next(((c, v) for c, v in verdicts if v == "No" and _about_the_work(c, asked)), None)
        if denial is not None:
            return denial
        return next(((c, v) for c, v in verdicts[: self.settings.yes_no_affirming] if v), (best, ""))

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
            return c.score + (self.settings.weight_contribution if says_what else 0.0)

        for cand in sorted(cands, key=as_contribution, reverse=True):
            pid = cand.paper.paper.id
            if pid not in best and cand.score >= self.settings.min_sentence_score:
                best[pid] = cand
        ranked = sorted(best.values(), key=lambda c: -c.score)[: self.settings.max_sentences]
        return [DraftSentence(c.text, (c.paper.paper.id,), c.score, prefix=f"- {c.paper.paper.label}: ")
                for c in ranked]


    def _compare(self, intent: Intent, reading: Reading) -> list[DraftSentence]:
        """Each side of a comparison from its own paper: the sentences that best answer the
        comparison there (one holding a figure first, when the question asks which is bigger,
        faster, ...), as many per side as the answer has room for."""
        part, cands = next(((p, c) for p, c in reading.parts if p.kind == "comparison"), reading.parts[0])
        sides = list(dict.fromkeys(c.paper.paper.id for c in cands))[:3]
        if len(sides) < 2:
            return []
        room = max(1, self.settings.max_sentences // len(sides))
        out: list[DraftSentence] = []
        for pid in sides:
            own = [c for c in cands if c.paper.paper.id == pid and c.score >= self.settings.min_sentence_score
                   and not _about_the_other_side(c, intent.names)]
            own.sort(key=lambda c: (not c.holds, -c.score))
            for c in own[:room]:
                prefix = f"- {c.paper.paper.label}: " if c is own[0] else ""
                out.append(DraftSentence(c.text, (pid,), c.score, prefix=prefix))
        return out


_OWN_WORK = re.compile(r"^(?:\W*)(?:we|our|this|it|the\s+(?:proposed|resulting))\b|\b(?:we|our)\b",
                       re.IGNORECASE)


def _about_the_work(sentence: Sentence, asked: tuple[str, ...]) -> bool:
    """Does the sentence speak of the paper's own work (not of prior work it argues against)?"""
    method = sentence.paper.paper.method
    said = [n for n in (*asked, method or "") if n]
    return bool(_OWN_WORK.search(sentence.text)) or any(name_pattern(n).search(sentence.text) for n in said)


def _about_the_other_side(sentence: Sentence, compared: tuple[str, ...]) -> bool:
    """In a comparison, a sentence of one side's paper that names another compared method but
    not its own ("Advanced models like RPG ..." in the IterComp abstract) is about the other side."""
    text, paper = sentence.text, sentence.paper.paper
    mine = [n for n in compared if paper.method and n.lower() == paper.method.lower()]
    if not mine:
        counts = {n: len(name_pattern(n).findall(paper.text)) for n in compared}
        mine = [max(counts, key=counts.__getitem__)] if counts and max(counts.values()) else []
    others = [n for n in compared if n not in mine]
    return (any(name_pattern(n).search(text) for n in others)
            and not any(name_pattern(n).search(text) for n in mine))


def _bold(span: str) -> str:
    return f"**{span}**: " if span else ""


def _clause(part: Part) -> str:
    text = re.sub(r"^\s*(?:and\s+)?", "", part.text).rstrip(" ?.")
    return text[0].lower() + text[1:] if text else "this"

