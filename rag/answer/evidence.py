"""Reading the retrieved abstracts for one question: which sentences answer which part of it,
and whether the evidence holds the asked kind of answer about the asked thing at all.

Both answer paths use this: the offline answerer composes its answer from the chosen sentences,
and the engine uses the same verdict to abstain before an LLM is asked, or to overrule an LLM
that declines when the evidence is strong."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from rag.answer.intent import Intent, Part
from rag.index.embedding import Embedder
from rag.retrieve.keyword import TermStats
from rag.settings import AnswerSettings
from rag.text.clean import split_sentences
from rag.text.injection import is_instruction
from rag.text.lexicon import GENERIC_TERMS, content_terms, mentions, stem, tokens
from rag.text.names import capitalised_terms, is_coined, name_pattern, names
from rag.text.numbers import number_spans, percent, times
from rag.types import ScoredPaper

# How a method works is said with "by", "through", "via", "based on", "instead of", "specifically".
MECHANISM = re.compile(r"\b(?:by|through|via|using|based\s+on|relies\s+on|leverag\w*|employ\w*|"
                       r"consists?\s+of|instead\s+of|rather\s+than|specifically|concretely|"
                       r"in\s+particular)\b", re.IGNORECASE)
# a sentence that reports results rather than saying what the work is or does
RESULT_SENTENCE = re.compile(r"\b(?:experiments?|empirical(?:ly)?|results?|evaluations?)\b[^.]{0,30}"
                             r"\b(?:show|demonstrate|indicate|confirm|verify)|\boutperform|"
                             r"\bstate[- ]of[- ]the[- ]art\b|\bsurpass", re.IGNORECASE)
# a question about results: then result sentences are what it asks for
ASKS_RESULTS = re.compile(r"\b(?:better|best|worse|outperform\w*|beat\w*|faster|slower|accura\w*|score\w*|"
                          r"results?|perform\w*|gains?|improv\w*|compar\w*|benchmark\w*|state[- ]of)\b",
                          re.IGNORECASE)
INTRO_SENTENCE = re.compile(r"\b(?:[Ww]e|[Tt]his (?:paper|work))\b[^.]{0,40}\b(?:propose|present|introduce)")


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

    @property
    def answerable(self) -> bool:
        return not self.reason



def says(paper: ScoredPaper, name: str) -> bool:
    """The abstract names it: whole, or each piece of a compound ("Bison-Gecko" when the text
    says "PaLM2-Bison ... PaLM2-Gecko"), or as its method name or an alias."""
    p = paper.paper
    if name_pattern(name).search(p.text) or any(
            mentions(alias, name) for alias in (p.method or "", *p.aliases) if alias):
        return True
    pieces = [x for x in re.split(r"[-_]", name) if len(x) >= 2]
    return len(pieces) > 1 and all(name_pattern(x).search(p.text) for x in pieces)


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
    spans = [m.group(0) for m in number_spans(sentence, part.text)]
    if part.unit == "%":
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


def _topic_share(intent: Intent, papers: Sequence[ScoredPaper],
                 weight: Callable[[str], float] | None = None) -> float:
    """The largest share of the question's focus that one read abstract says, each focus word
    weighted by its rarity in the collection (rare words carry the topic)."""
    words = {stem(w): w for w in tokens(intent.question) if w[0].isalpha()}
    focus = {t: (weight(words.get(t, t)) if weight else 1.0) for t in intent.focus - GENERIC_TERMS}
    total = sum(focus.values())
    if not focus or not papers or total <= 0:
        return 1.0
    return max(sum(w for t, w in focus.items() if t in content_terms(p.paper.text)) / total
               for p in papers)


class Reader:
    """``terms`` tells how common a word is in the collection: capitalised words the lexicon
    cannot tell by shape count as names when rare and as unknown when never said, and the
    question's focus words are weighted by rarity when judging whether an abstract is on topic."""

    def __init__(self, embedder: Embedder, settings: AnswerSettings,
                 terms: TermStats | None = None) -> None:
        self.embedder, self.settings = embedder, settings
        self.terms = terms

    def _with_rare_names(self, intent: Intent) -> tuple[Intent, str | None]:
        """The intent with rare capitalised words added to its names, and the first capitalised
        word no indexed abstract contains (if any)."""
        if self.terms is None:
            return intent, None
        author = set((intent.author or "").split())
        counts = {w: self.terms.count(w) for w in capitalised_terms(intent.question) if w not in author}
        unknown = next((w for w, n in counts.items() if n == 0), None)
        rare = tuple(w for w, n in counts.items() if 0 < n <= self.settings.rare_name_chunks)
        return (replace(intent, names=intent.names + rare) if rare else intent), unknown

    def read(self, intent: Intent, evidence: Sequence[ScoredPaper]) -> Reading:
        usable = [e for e in evidence if e.paper.has_abstract]
        if not usable:
            return Reading((), (), "no indexed abstract is about this")
        intent, unknown = self._with_rare_names(intent)
        said = tuple(n for n in intent.names if any(says(e, n) for e in usable))
        missing = [n for n in intent.names if n not in said and is_coined(n)]
        if missing:  # a coined name ("Zorblax7") nobody says: the question is about something absent
            return Reading((), tuple(usable), f"none of the indexed abstracts mentions {missing[0]}")
        intent = replace(intent, names=said)  # an acronym nobody says ("DNA") is only vocabulary
        papers = self._papers(intent, usable)
        share = _topic_share(intent, papers, self.terms.weight if self.terms else None)
        if unknown and share < self.settings.unknown_term_overlap:
            return Reading((), tuple(usable), f"none of the indexed abstracts mentions {unknown}")
        if not intent.names and share < self.settings.min_topic_overlap:
            return Reading((), tuple(papers), "the closest abstracts are about something else")
        scored = self._score(intent, papers)
        parts = tuple((part, tuple(sorted(cands, key=lambda s: (not s.holds, -s.score))))
                      for part, cands in zip(intent.parts, scored, strict=True))
        floor = self.settings.min_answer_score
        if not any(c and c[0].holds and c[0].score >= floor for _, c in parts):
            return Reading(parts, tuple(papers), self._why(intent, parts))
        return Reading(parts, tuple(papers))

    def _papers(self, intent: Intent, usable: list[ScoredPaper]) -> list[ScoredPaper]:
        said = {e.paper.id: sum(says(e, n) for n in intent.names) for e in usable}
        named = [e for e in usable if said[e.paper.id]]
        if named and intent.kind == "comparison":  # each side; an unnamed side by similarity
            others = [e for e in usable if not said[e.paper.id]]
            return named[:4] + others[: max(0, 2 - len(named))]
        if named and not intent.multi_paper:  # the papers that say the most of the names
            most = max(said.values())
            return [e for e in named if said[e.paper.id] == most][:3]
        if named:  # a list about a named thing ("Which datasets was KGpip tested on?")
            return named
        strongest = max(e.similarity for e in usable)
        floor = max(self.settings.min_evidence, strongest - self.settings.evidence_margin)
        chosen = [e for e in usable if e.similarity >= floor] or usable[:1]
        return chosen if intent.multi_paper else chosen[:3]

    def _score(self, intent: Intent, papers: Sequence[ScoredPaper]) -> list[list[Sentence]]:
        pool = [(p, s) for p in papers for s in split_sentences(p.paper.text)
                if len(s.split()) >= 5 and not is_instruction(s)]
        if not pool:
            return [[] for _ in intent.parts]
        vectors = self.embedder.embed([part.text for part in intent.parts] + [s for _, s in pool])
        questions, sentences = vectors[: len(intent.parts)], vectors[len(intent.parts):]
        w = self.settings
        out = []
        for part, qvec in zip(intent.parts, questions, strict=True):
            sims = sentences @ qvec
            row = []
            for (paper, text), sim in zip(pool, sims, strict=True):
                terms = content_terms(text)
                overlap = len(part.focus & terms) / max(1, len(part.focus))
                score = (w.weight_similarity * float(sim) + w.weight_overlap * overlap
                         + w.weight_paper * paper.similarity + self._bonus(intent, part, paper, text))
                row.append(Sentence(paper, text, round(score, 4),
                                    holds(part, text, terms, paper, intent.names)))
            out.append(row)
        return out

    def _bonus(self, intent: Intent, part: Part, paper: ScoredPaper, text: str) -> float:
        bonus = 0.0
        own = (paper.paper.method or "").lower()
        bonus += self.settings.weight_name * sum(
            1 for n in intent.names if n.lower() != own and name_pattern(n).search(text))
        if part.kind in ("describe", "name", "list") and INTRO_SENTENCE.search(text):
            bonus += self.settings.weight_intro
        if part.kind in ("how", "comparison") and MECHANISM.search(text):
            bonus += self.settings.weight_mechanism
        if (part.kind in ("how", "comparison", "describe", "list") and RESULT_SENTENCE.search(text)
                and not ASKS_RESULTS.search(part.text)):
            bonus -= self.settings.weight_result
        return min(bonus, self.settings.max_bonus)

    @staticmethod
    def _why(intent: Intent, parts: tuple[tuple[Part, tuple[Sentence, ...]], ...]) -> str:
        for part, cands in parts:
            if part.kind == "number" and not any(c.holds for c in cands):
                asked = re.sub(r"^\s*(?:and\s+)?", "", part.text).rstrip(" ?.")
                return f"the closest abstracts give no figure for: {asked}"
        return "the closest abstracts are about something else"
