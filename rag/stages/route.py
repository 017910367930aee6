"""Stage 1, route: a question (and the conversation before it) in, ``Routed`` out: the question
as it stands alone, its intent, and, for "papers by X" and pure venue/year listings, the answer
from the catalogue with the papers it cites. Everything else goes on to retrieval."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from rag.answer.intent import Intent, parse_intent
from rag.answer.listings import author_answer, listing_answer
from rag.index.filters import Filters
from rag.index.library import Library
from rag.retrieve.facets import check_filters
from rag.retrieve.followups import short_name
from rag.retrieve.followups import standalone as resolve_followup
from rag.retrieve.query import QueryRewriter, clean_question
from rag.text.lexicon import stem
from rag.text.names import capitalised_terms
from rag.types import Draft, ScoredPaper, Turn


@dataclass(frozen=True)
class Routed:
    asked: str  # the question as the user wrote it (checked)
    standalone: str  # as rewritten with the conversation, for retrieval and reading
    intent: Intent
    catalogue: Draft | None = None  # set when the catalogue answers
    papers: tuple[ScoredPaper, ...] = ()  # the catalogue's papers (an author's, scoped by topic)


def standalone(library: Library, rewriter: QueryRewriter, asked: str, history: Sequence[Turn | str]) -> str:
    """The question as it stands alone: "the second one", "its", "that paper" resolved to the
    paper the previous answer showed (``rag.retrieve.followups``), any other follow-up rewritten
    from the earlier questions. ``history`` comes trimmed by the front end (its conversation
    store keeps the last RAG_SERVICE__CONVERSATION_TURNS); nothing trims it here."""
    return resolve_followup(clean_question(asked), history, rewriter,
                            lambda pid: short_name(library.catalog.get(pid)))


def route(library: Library, asked: str, question: str, *, filters: Filters = Filters(),
          mode: str = "hybrid") -> Routed:
    """Parse the intent of ``question`` (already stand-alone) and answer it from the catalogue
    when it asks who wrote what or what appeared where, and the catalogue has such papers. "Papers
    by X on <topic>" comes back with X's papers searched for the topic, and no catalogue answer."""
    check_filters(library.catalog, filters)  # filters that leave no paper are said, not answered
    intent = with_known_names(library, parse_intent(question))
    if mode == "hybrid" and (intent.author or intent.listing):
        from_catalogue = author_answer if intent.author else listing_answer
        papers, draft = from_catalogue(library, intent, filters)
        if papers:
            return Routed(asked, question, intent, draft, tuple(papers))
    return Routed(asked, question, intent)


def with_known_names(library: Library, intent: Intent) -> Intent:
    """The intent with the names its question says that only the collection knows as names: a
    plain capitalised word ("Quarrystone") that an indexed abstract introduces as its method, or
    that a title opens with ("Quarrystone: ...")."""
    words = [w for w in capitalised_terms(intent.question) if w not in intent.names]
    if not words:
        return intent
    known = set(library.catalog.method_papers(words)) | library.catalog.title_names(words)
    extra = tuple(w for w in words if w.lower() in known)
    if not extra:
        return intent
    said = {form for w in extra for form in (w.lower(), stem(w.lower()))}  # a name is no focus word,
    parts = tuple(replace(p, focus=p.focus - said) for p in intent.parts)  # as in parse_intent
    return replace(intent, names=intent.names + extra, parts=parts, focus=intent.focus - said)
