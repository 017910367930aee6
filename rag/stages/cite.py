"""Stage 6, cite: the ``Checked`` draft in, the ``Answer`` out. Citation keys are numbered here,
once, by first use (``rag.answer.citations``); an answer with no supported sentence left is an
abstention, with the reason and the nearest papers; a list or comparison answer gets its
evidence table (``rag.answer.table``)."""

from __future__ import annotations

from dataclasses import replace

from rag.answer.citations import attach_citations, keys_of
from rag.answer.offline import ABSTAIN_TEXT
from rag.answer.table import evidence_table
from rag.stages.route import Routed
from rag.stages.verify import Checked, papers_of
from rag.types import Answer, Evidence, RetrievedPaper, Route, SentenceSupport


def cite(routed: Routed, evidence: Evidence, checked: Checked, generator: str, route: Route,
         fallback_reason: str | None = None) -> Answer:
    kept, draft = checked.kept, checked.draft
    body, citations = attach_citations(kept, papers_of(evidence), checked.marked)
    abstained = draft.abstained or not citations
    support = tuple(SentenceSupport(s.text, keys, round(score, 4), i not in checked.marked)  # marked: below
                    for i, (s, keys, score) in enumerate(zip(kept.sentences, keys_of(kept, citations),
                                                             checked.scores, strict=True)) if not s.framing)
    retrieved = tuple(RetrievedPaper(e.paper.id, e.paper.readable_label, round(e.similarity, 4))
                      for e in evidence.papers)
    reason = draft.reason or ("none of the answer's sentences was supported by the abstracts"
                              if draft.sentences and not citations else "") or None
    asked, standalone = routed.asked, routed.standalone
    result = Answer(
        question=asked, text=ABSTAIN_TEXT if abstained else body,
        citations=() if abstained else citations, abstained=abstained, retrieved=retrieved,
        generator=generator, standalone_question=standalone if standalone != asked else None,
        sentences=() if abstained else support, removed_keys=draft.unknown_keys,
        removed_sentences=checked.removed, route=route,
        fallback_reason=fallback_reason, abstain_reason=reason if abstained else None,
        see_also=retrieved[:3] if abstained else (),
    )
    return replace(result, table=evidence_table(result, listing=routed.intent.multi_paper))

