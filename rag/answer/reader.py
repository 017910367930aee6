"""The fitted reader: which sentences of the retrieved abstracts answer each part of a question,
and whether the abstracts answer it at all. Both are logistic regressions over features
(``rag.answer.features`` for sentences, ``evidence_features`` below for the question), fitted on
dev and generated questions by ``rag train-reader`` and read from ``rag/assets/reader.json``.

The reading it returns is what the offline answer is composed from; with an LLM configured the
model reads for itself and this verdict is only a hint."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Protocol

import numpy as np

from rag.answer.evidence import Reading, Sentence, says, topic_shares
from rag.answer.features import FEATURES, KINDS, Candidate, candidates, is_named, kind_of, part_features
from rag.answer.intent import Intent
from rag.answer.model import MODEL_FILE, ReaderModel
from rag.answer.qualifies import PAPER, paper_rows
from rag.index.embedding import Embedder
from rag.retrieve.keyword import TermStats
from rag.settings import AnswerSettings
from rag.text.lexicon import STOPWORDS, tokens
from rag.text.names import capitalised_terms, is_coined
from rag.text.numbers import close, number_values, scaled_figures
from rag.types import Evidence, ScoredPaper

PEAKS = ("cos", "idf_coverage", "coverage", "names_said", "paper_says_names")
EVIDENCE = ("best", "best_holding", "second", "top_similarity", "similarity_spread", "topic_share",
            "unknown_word", "missing_name", "names_said", "parts", "figure_unheld") + \
    tuple(f"peak_{f}" for f in PEAKS) + tuple(f"asks_{k}" for k in KINDS)

@dataclass(frozen=True)
class Scored:
    """Candidates scored for every part: probabilities and whether each holds the asked kind."""

    intent: Intent
    pool: tuple[Candidate, ...]
    probabilities: tuple[np.ndarray, ...]  # per part, one per candidate
    holding: tuple[np.ndarray, ...]
    unknown: str | None  # a capitalised word of the question no indexed chunk says
    missing: str | None  # a coined name of the question no retrieved abstract says
    topic_share: float
    peaks: np.ndarray  # per part, per feature of PEAKS: its best value over the candidates
    coverage: Mapping[str, float] = field(default_factory=dict)  # per paper: the focus its abstract says


class Reorders(Protocol):
    """Reorders each part's best candidates (rag.answer.rerank: the cross-encoder)."""

    def apply(self, scored: Scored) -> Scored: ...


def judged_parts(intent: Intent) -> list[int]:
    """The parts whether the abstracts answer is judged on: all, except the "how much" parts of
    a list question, which each listed paper answers on its own line or says it gives none."""
    if not intent.lists_papers:
        return list(range(len(intent.parts)))
    return [i for i, p in enumerate(intent.parts) if i == 0 or p.kind != "number"]


def evidence_features(scored: Scored) -> np.ndarray:
    """One row of EVIDENCE: how well the best sentences answer (the weakest judged part), and
    what is absent."""
    judged = judged_parts(scored.intent)
    probabilities = [scored.probabilities[i] for i in judged]
    holding = [scored.holding[i] for i in judged]
    best = [float(p.max()) if p.size else 0.0 for p in probabilities]
    held = [float(p[h].max()) if h.any() else 0.0 for p, h in zip(probabilities, holding, strict=True)]
    second = [float(np.sort(p)[-2]) if p.size > 1 else 0.0 for p in probabilities]
    sims = [c.paper.similarity for c in scored.pool] or [0.0]
    intent = scored.intent
    said = (sum(any(says(c.paper, n) for c in scored.pool) for n in intent.names) / len(intent.names)
            if intent.names else 1.0)
    kinds = {kind_of(p) for p in intent.parts}
    unheld = any(intent.parts[i].kind == "number" and not h.any() for i, h in zip(judged, holding, strict=True))
    peaks = scored.peaks[judged].min(axis=0)
    row = [min(best, default=0.0), min(held, default=0.0), min(second, default=0.0), max(sims),
           max(sims) - min(sims), scored.topic_share, float(scored.unknown is not None),
           float(scored.missing is not None), said, float(len(intent.parts)), float(unheld)]
    return np.array(row + list(peaks) + [float(k in kinds) for k in KINDS])


def of_the_asked_variant(scored: Scored) -> Scored:
    """A figure question that names its thing by a figure ("the 360M variant", "at 50% sparsity")
    is answered only from abstracts that state that figure: another paper's, or the 1.7B model's,
    figure measures something else. Number parts only; the rest as scored."""
    asked = scaled_figures(scored.intent.question)
    if not asked:
        return scored
    stated = {}  # by paper: its abstract is read once, not once per candidate sentence
    for c in scored.pool:
        if c.paper.paper.id not in stated:
            values = number_values(c.paper.paper.text)
            stated[c.paper.paper.id] = all(any(close(a, v) for v in values) for a in asked)
    says = np.array([stated[c.paper.paper.id] for c in scored.pool], dtype=bool)
    holding = tuple(held & says if part.kind == "number" else held
                    for part, held in zip(scored.intent.parts, scored.holding, strict=True))
    return replace(scored, holding=holding)


def figure_not_given(scored: Scored) -> str:
    """Why a one-part figure question is not answered though the evidence looks on topic: no
    abstract states the figure that names the asked variant (``of_the_asked_variant``), or the
    question names a paper the evidence holds and no sentence of it gives the figure (a figure of
    X is X's own; another paper's number, however close in wording, measures something else). A
    name no paper owns ("Rodimus+-1.6B") is asked of the abstracts that say it; a question naming
    nothing, of the paper retrieval ranks first (the sentence read best may be another paper's,
    holding only the asked unit: "two types of modules" for the modules of a teacher network).
    "" otherwise, and for a question of several parts (the others may still be answered; the
    composer leads that part with no borrowed figure)."""
    intent = scored.intent
    if len(intent.parts) > 1:
        return ""
    part, held = intent.parts[0], scored.holding[0]
    asked = part.text.removeprefix("and ").strip(" ?.")
    figures = scaled_figures(intent.question)
    if part.kind == "number" and figures and not held.any():
        return f"no retrieved abstract that says {', '.join(figures.values())} gives a figure for: {asked}"
    if part.kind != "number" or not scored.pool:
        return ""
    named = np.array([is_named(c.paper, intent.names) for c in scored.pool], dtype=bool)
    if not named.any():  # a name no paper owns ("Rodimus+-1.6B"): the abstracts that say it
        named = np.array([any(says(c.paper, n) for n in intent.names) for c in scored.pool], dtype=bool)
    if not named.any() and figures:  # named by a figure ("the 40M model"): judged by the variant above
        return ""
    if not named.any():  # no name: the paper retrieval ranks first stands for the one described
        first = min(scored.pool, key=lambda c: c.rank).paper.paper.id
        named = np.array([c.paper.paper.id == first for c in scored.pool], dtype=bool)
    if not held[named].any():
        paper = next(c.paper.paper for c, n in zip(scored.pool, named, strict=True) if n)
        who = paper.method or (paper.title.split(":")[0] if paper.title else paper.label)
        return f"the abstract of {who} gives no figure for: {asked}"
    return ""


def load_model(path: Path = MODEL_FILE) -> ReaderModel:
    """The reader's weights, refused unless their feature names are the code's, in order."""
    return ReaderModel.load(path, expect=(FEATURES, EVIDENCE, PAPER))


def _derived(word: str, text: str) -> bool:
    """The text writes a capitalised word of the same root inside a sentence ("Norwegian" for
    "Norway"): the first letters but the last two (four at least) begin it."""
    root = word[: max(4, len(word) - 2)]
    return re.search(rf"(?<=[a-z,;] ){re.escape(root)}[a-z]+", text) is not None


class FittedReader:
    """The read stage's model: built once with the engine (weights loaded once, by the caller)."""

    def __init__(self, embedder: Embedder, settings: AnswerSettings, terms: TermStats | None,
                 model: ReaderModel, reranker: Reorders | None = None) -> None:
        self.embedder, self.settings, self.terms, self.model = embedder, settings, terms, model
        self.reranker = reranker

    def idf(self, word: str) -> float:
        return self.terms.weight(word) if self.terms is not None else 1.0

    def score(self, intent: Intent, evidence: Sequence[ScoredPaper],
              split: Mapping[str, tuple[str, ...]] | None = None) -> Scored:
        pool = candidates(evidence, split)
        unknown = self._unknown_word(intent, evidence)
        said = [n for n in intent.names if any(says(e, n) for e in evidence if e.paper.has_abstract)]
        missing = next((n for n in intent.names if n not in said and is_coined(n)), None)
        read = [e for e in evidence if e.paper.has_abstract]
        coverage = dict(zip((e.paper.id for e in read), topic_shares(intent, read, self.idf), strict=True))
        share = max(coverage.values(), default=1.0)  # evidence.topic_share
        if not pool:
            empty = tuple(np.zeros(0) for _ in intent.parts)
            return Scored(intent, (), empty, tuple(np.zeros(0, bool) for _ in intent.parts), unknown,
                          missing, share, np.zeros((len(intent.parts), len(PEAKS))), coverage)
        probabilities, holding, peaks = [], [], []
        for rows in self.feature_rows(intent, pool):
            probabilities.append(self.model.sentence.probability(rows))
            holding.append(rows[:, FEATURES.index("holds")] > 0.5)
            peaks.append([rows[:, FEATURES.index(f)].max() for f in PEAKS])
        return Scored(intent, tuple(pool), tuple(probabilities), tuple(holding), unknown, missing, share,
                      np.array(peaks), coverage)

    def feature_rows(self, intent: Intent, pool: Sequence[Candidate]) -> list[np.ndarray]:
        """Per part of the question, one row of FEATURES per candidate (scoring and training
        both read them here, so the two cannot drift apart)."""
        vectors = self.embedder.embed([p.text for p in intent.parts] + [c.text for c in pool])
        questions, sentences = vectors[: len(intent.parts)], vectors[len(intent.parts):]
        return [part_features(intent, part, pool, sentences @ qvec, self.idf)
                for part, qvec in zip(intent.parts, questions, strict=True)]

    def answerable(self, scored: Scored) -> float:
        return float(self.model.answerable.probability(evidence_features(scored)[None, :])[0])

    def read(self, intent: Intent, evidence: Evidence) -> Reading:
        usable = evidence.with_abstracts
        if not usable:
            return Reading((), (), "no indexed abstract is about this", intent)
        stranger = self._no_known_word(intent)
        if stranger:  # nothing in the collection shares a word with the question: nothing to read
            return Reading((), usable, f"no indexed abstract uses any of the words {stranger}", intent)
        scored = self.score(intent, usable, evidence.sentences)
        gate = self.answerable(scored)  # on the evidence as scored, as the gate was fitted
        scored = of_the_asked_variant(scored)
        qualifying = self.qualifying(scored) if intent.lists_papers else ()
        declined = gate < self.model.threshold("answerable", 0.5)
        if self.reranker is not None and not declined:  # after the gate and the list: only the order changes
            scored = self.reranker.apply(scored)
        parts = tuple(
            (part, tuple(sorted((Sentence(c.paper, c.text, round(float(p), 4), bool(h))
                                 for c, p, h in zip(scored.pool, probs, held, strict=True)),
                                key=lambda s: -s.score)))
            for part, probs, held in zip(intent.parts, scored.probabilities, scored.holding, strict=True))
        if declined:
            return Reading(parts, usable, self._why(scored), intent, qualifying)
        return Reading(parts, usable, figure_not_given(scored), intent, qualifying)

    def qualifying(self, scored: Scored) -> tuple[tuple[str, float], ...]:
        """Each paper's probability of belonging in the list answer, likeliest first; () without
        a fitted paper model."""
        if self.model.qualifies is None or not scored.pool:
            return ()
        ids, rows = paper_rows(scored.pool, scored.probabilities[0], scored.coverage)
        probs = self.model.qualifies.probability(rows)
        return tuple(sorted(((pid, round(float(p), 4)) for pid, p in zip(ids, probs, strict=True)),
                            key=lambda item: -item[1]))

    def _unknown_word(self, intent: Intent, evidence: Sequence[ScoredPaper] = ()) -> str | None:
        """A capitalised word of the question that no indexed chunk says, in no form a retrieved
        abstract writes it ("Norway" is said by "Norwegian", "Africa" by "African")."""
        if self.terms is None:
            return None
        author = set((intent.author or "").split())
        texts = [e.paper.text for e in evidence if e.paper.has_abstract]
        return next((w for w in capitalised_terms(intent.question) if w not in author
                     and self.terms.count(w) == 0 and not any(_derived(w, t) for t in texts)), None)

    def _no_known_word(self, intent: Intent) -> str | None:
        """The question's content words, quoted, when not one of them occurs in any indexed chunk."""
        if self.terms is None:
            return None
        words = sorted({t.lower() for t in tokens(intent.question)
                        if t.lower() not in STOPWORDS and len(t) > 2 and not t[0].isdigit()})
        if not words or any(self.terms.count(w) for w in words):
            return None
        return ", ".join(f"'{w}'" for w in words[:5])

    @staticmethod
    def _why(scored: Scored) -> str:
        if scored.missing or scored.unknown:
            return f"none of the indexed abstracts mentions {scored.missing or scored.unknown}"
        for i in judged_parts(scored.intent):
            part, held = scored.intent.parts[i], scored.holding[i]
            if part.kind == "number" and not held.any():
                asked = part.text.removeprefix("and ").strip(" ?.")
                return f"the closest abstracts give no figure for: {asked}"
        return "the closest abstracts are about something else"
