"""The collection as training material: the bundled abstracts cut into the sentences the reader
reads, and the guard that refuses anything overlapping held-out questions by content.

The guard is how "never from test" is enforced, not by trusting where data came from: a
generated question whose content words overlap a held-out question's (Jaccard >= 0.5) is refused,
and a sentence that states a key fact of a held-out question in that question's gold paper is
never a target. The same guard keeps a dev fold's questions out of that fold's training data."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property

from eval.dataset import SPLITS, Question, load
from eval.metrics import countable_facts, fact_state
from rag.answer.features import MIN_WORDS
from rag.ingest.formats import Problem, read_file
from rag.settings import BUNDLED_CORPUS
from rag.text.injection import is_instruction
from rag.text.injection import sentences as reader_sentences
from rag.text.lexicon import content_terms
from rag.types import Paper

OVERLAP = 0.5  # content-word Jaccard at or above which a question counts as the same question


@dataclass(frozen=True)
class Sentence:
    """One claim-sized sentence of an abstract, as the reader cuts it."""

    paper: str
    index: int
    text: str

    @property
    def key(self) -> str:
        return f"{self.paper}:{hashlib.sha256(self.text.encode()).hexdigest()[:12]}"


def bundled_papers() -> list[Paper]:
    return [p for path in sorted(BUNDLED_CORPUS.glob("0*.txt")) for p in read_file(path)
            if not isinstance(p, Problem) and p.has_abstract]


def sentences_of(paper: Paper) -> list[Sentence]:
    """The sentences the reader would consider (rag.answer.features.candidates cuts the same)."""
    return [Sentence(paper.id, i, s) for i, s in enumerate(reader_sentences(paper.text))
            if len(s.split()) >= MIN_WORDS and not is_instruction(s)]


def jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a | b else 0.0


class Guard:
    """Refuses questions and target sentences that overlap the guarded questions by content."""

    def __init__(self, questions: Iterable[Question]) -> None:
        self.questions = list(questions)
        self.terms = [content_terms(q.question) for q in self.questions]

    @classmethod
    def test_split(cls) -> Guard:
        return cls(load(SPLITS["test"]))

    @cached_property
    def _facts(self) -> dict[str, list]:
        by_paper: dict[str, list] = {}
        for q in self.questions:
            for pid in q.gold_papers:
                by_paper.setdefault(pid, []).extend(countable_facts(q.key_facts, q.question))
        return by_paper

    def question_overlaps(self, question: str) -> bool:
        mine = content_terms(question)
        return any(jaccard(mine, theirs) >= OVERLAP for theirs in self.terms)

    def sentence_blocked(self, paper: str, text: str) -> bool:
        return any(fact_state(f, text) == "stated" for f in self._facts.get(paper, ()))

    def refuses(self, question: str, targets: Sequence[tuple[str, str]]) -> bool:
        """A question is refused when it overlaps a guarded one, or when any of its positive
        (paper, sentence) targets states a guarded question's key fact."""
        return self.question_overlaps(question) or any(self.sentence_blocked(p, t) for p, t in targets)
