"""Questions about who wrote what, answered from the author lists (metadata), with citations.
Papers listed without an abstract take part, and the answer says so."""

from __future__ import annotations

from rag.answer.intent import Intent
from rag.index.library import Library
from rag.retrieve.fusion import Filters, retrieve
from rag.text.clean import split_sentences
from rag.text.cues import INTRO
from rag.text.lexicon import STOPWORDS, tokens
from rag.text.venues import SPELLED_OUT
from rag.types import Draft, DraftSentence, Paper, ScoredPaper

_AUTHOR_WORDS = {"co", "author", "authored", "coauthor", "co-author", "co-authored", "wrote",
                 "write", "written", "publish", "published", "publications", "papers", "paper",
                 "works", "show", "did", "by", "from", "authors", "among", "appeared", "appear",
                 "worked", "list", "lists", "venue", "conference"}


def papers_by(lib: Library, name: str, filters: Filters = Filters()) -> list[Paper]:
    """An indexed lookup of the author's name tokens (case, diacritics, initials ignored)."""
    scoped = Filters(author=name, year_from=filters.year_from, year_to=filters.year_to,
                     venue=filters.venue, source=filters.source)
    return list(lib.catalog.get_many(lib.catalog.paper_ids(scoped)).values())


def contribution(paper: Paper) -> str:
    """One line on what a paper does: its "we propose ..." sentence, else its first sentence."""
    if not paper.has_abstract:
        where = ", ".join(str(x) for x in (paper.venue, paper.year) if x)
        return f"Listed{' in ' + where if where else ''} without an abstract."
    sentences = split_sentences(paper.text)
    return next((s for s in sentences if INTRO.search(s)), sentences[0])


def _topic(question: str, name: str) -> list[str]:
    rest = question.replace(name, " ")
    return [w for w in tokens(rest) if len(w) > 1 and w[0].isalpha()
            and w.lower() not in STOPWORDS and w.lower() not in _AUTHOR_WORDS and w not in SPELLED_OUT]


def _scoped(intent: Intent, filters: Filters) -> Filters:
    """The user's filters narrowed by what the question names (an author, a venue, a year)."""
    return Filters(author=intent.author or filters.author, venue=intent.venue or filters.venue,
                   year_from=intent.year or filters.year_from, year_to=intent.year or filters.year_to,
                   source=filters.source)


def author_answer(lib: Library, intent: Intent,
                  filters: Filters) -> tuple[list[ScoredPaper], Draft | None]:
    """Evidence and draft for "papers by <name>"; (.., None) when nobody by that name is indexed.
    With a topic as well ("papers by X on graphs") it is a filtered search instead."""
    name, question = intent.author or "", intent.question
    scoped = _scoped(intent, filters)
    papers = papers_by(lib, name, scoped)
    if not papers:
        return [], None
    if len(_topic(question, name)) >= 2:
        return retrieve(lib, question, lib.settings.retrieval.top_k, filters=scoped), None
    papers.sort(key=lambda p: (not p.has_abstract, p.id))
    evidence = [ScoredPaper(p, 1.0, None, 1.0, (("author", i, 1.0),))
                for i, p in enumerate(papers, start=1)]
    count = f"{len(papers)} indexed paper{'s' if len(papers) > 1 else ''}"
    lines = [DraftSentence(f"{name} is among the listed authors of {count}:", (), framing=True)]
    lines += [DraftSentence(contribution(p), (p.id,), prefix=f"- {p.label}: ") for p in papers]
    return evidence, Draft(tuple(lines))


def listing_answer(lib: Library, intent: Intent, filters: Filters,
                   shown: int = 10) -> tuple[list[ScoredPaper], Draft | None]:
    """Evidence and draft for a venue/year listing, from the indexed catalogue columns."""
    scoped = _scoped(intent, filters)
    ids = lib.catalog.paper_ids(scoped)
    if not ids:
        return [], None
    found = lib.catalog.get_many(ids[:shown])
    papers = sorted(found.values(), key=lambda p: (not p.has_abstract, p.id))
    where = " ".join(x for x in (f"at {scoped.venue}" if scoped.venue else "",
                                 f"in {scoped.year_from}" if scoped.year_from else "") if x)
    count = f"{len(ids)} indexed paper{'s' if len(ids) > 1 else ''}"
    lines = [DraftSentence(f"{count} appeared {where}:", (), framing=True)]
    lines += [DraftSentence(contribution(p), (p.id,), prefix=f"- {p.label}: ") for p in papers]
    if len(ids) > shown:
        lines.append(DraftSentence(f"… and {len(ids) - shown} more (GET /api/papers lists them all).",
                                   (), framing=True))
    evidence = [ScoredPaper(p, 1.0, None, 1.0, (("catalogue", i, 1.0),))
                for i, p in enumerate(papers, start=1)]
    return evidence, Draft(tuple(lines))
