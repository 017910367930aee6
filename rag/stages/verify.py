"""Stage 5, verify: a ``Draft`` and the ``Evidence`` in, ``Checked`` out. Each sentence is checked
once against the papers it cites (``rag.answer.support``): below RAG_ANSWER__SUPPORT_THRESHOLD it
is dropped (or, with RAG_ANSWER__KEEP_UNSUPPORTED, kept and marked). A framing sentence ("X is
among the authors of:") and a catalogue answer make no claim of their own; a sentence that reads
as an instruction (an obedient model repeating injected text) never passes."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from rag.answer.support import SupportScorer
from rag.settings import AnswerSettings
from rag.text.injection import is_instruction
from rag.types import Draft, DraftSentence, Evidence, Paper, Route


@dataclass(frozen=True)
class Checked:
    draft: Draft  # as the generator wrote it
    kept: Draft  # the sentences that are shown
    scores: tuple[float, ...]  # per kept sentence
    marked: frozenset[int]  # kept sentences below the threshold (RAG_ANSWER__KEEP_UNSUPPORTED)
    removed: int  # sentences dropped as unsupported
    answered: bool  # does a kept sentence cite a paper of the evidence


def papers_of(evidence: Evidence) -> dict[str, Paper]:
    return {e.paper.id: e.paper for e in evidence.papers}


def support(scorer: SupportScorer, sentence: DraftSentence, papers: Mapping[str, Paper],
            split: Mapping[str, tuple[str, ...]], route: Route) -> float:
    """How well one sentence is backed by the papers it cites (1.0 for a claim-free framing
    sentence or a catalogue line; 0.0 for an instruction or a sentence citing nothing known)."""
    if is_instruction(sentence.text):
        return 0.0
    if sentence.framing or route is Route.METADATA:
        return 1.0
    cited = [papers[p] for p in sentence.paper_ids if p in papers]
    return scorer.score(sentence.text, cited, split) if cited else 0.0


def verify(scorer: SupportScorer, draft: Draft, evidence: Evidence, route: Route,
           settings: AnswerSettings) -> Checked:
    papers = papers_of(evidence)
    threshold, keep = settings.support_threshold, settings.keep_unsupported
    scores = [support(scorer, s, papers, evidence.sentences, route) for s in draft.sentences]
    weak = {i for i, score in enumerate(scores) if score < threshold}
    shown = [i for i in range(len(scores)) if keep or i not in weak]
    kept = Draft(tuple(draft.sentences[i] for i in shown), draft.abstained)
    kept_scores = tuple(scores[i] for i in shown)
    marked = frozenset(j for j, score in enumerate(kept_scores) if score < threshold) if keep else frozenset()
    answered = not draft.abstained and any(
        not s.framing and any(p in papers for p in s.paper_ids) for s in kept.sentences)
    return Checked(draft, kept, kept_scores, marked, 0 if keep else len(weak), answered)
