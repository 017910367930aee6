"""Questions about who wrote what, answered from the author lists (metadata), with citations.
Papers listed without an abstract take part, and the answer says so."""

from __future__ import annotations

import re

from .generation import INTRO_SENTENCE, Draft, DraftSentence
from .library import Library
from .retrieval import Filters, retrieve
from .text import STOPWORDS, split_sentences
from .types import Paper, ScoredPaper

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
    return next((s for s in sentences if INTRO_SENTENCE.search(s)), sentences[0])


# Venue acronyms as the bundled venue strings spell them out.
VENUES = {
    "EMNLP": "Empirical Methods in Natural Language Processing",
    "NAACL": "Americas Chapter of the Association for Computational Linguistics",
    "EACL": "European Chapter of the Association for Computational Linguistics",
    "ACL": "Annual Meeting of the Association for Computational Linguistics",
}
_YEAR = re.compile(r"\b(19|20)\d\d\b")


def venue_and_year(question: str) -> tuple[str | None, int | None]:
    """"at EMNLP 2023" in a question -> a venue filter and a year."""
    venue = next((full for short, full in VENUES.items() if re.search(rf"\b{short}\b", question)),
                 None)
    year = _YEAR.search(question)
    return venue, int(year.group(0)) if year else None


def _topic(question: str, name: str) -> list[str]:
    rest = question.replace(name, " ")
    return [w for w in re.findall(r"[A-Za-z][A-Za-z0-9\-]+", rest)
            if w.lower() not in STOPWORDS and w.lower() not in _AUTHOR_WORDS
            and w not in VENUES and not w.isdigit()]


def author_answer(lib: Library, name: str, question: str,
                  filters: Filters) -> tuple[list[ScoredPaper], Draft | None]:
    """Evidence and draft for "papers by <name>"; (.., None) when nobody by that name is indexed.
    With a topic as well ("papers by X on graphs") it is a filtered search instead."""
    venue, year = venue_and_year(question)
    scoped = Filters(author=name, year_from=year or filters.year_from,
                     year_to=year or filters.year_to, venue=venue or filters.venue,
                     source=filters.source)
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
