"""Questions about who wrote what, answered from the author lists (metadata), with citations.
Papers listed without an abstract take part, and the answer says so."""

from __future__ import annotations

import re

from rag.answer.offline import INTRO_SENTENCE, Draft, DraftSentence
from rag.index.library import Library
from rag.retrieve.fusion import Filters, retrieve
from rag.text.clean import STOPWORDS, split_sentences
from rag.types import Paper, ScoredPaper

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


ACRONYMS = ("EMNLP", "NAACL", "EACL", "COLING", "ACL", "NeurIPS", "ICLR", "ICML", "AAAI", "IJCAI",
            "CVPR", "ICCV", "ECCV", "KDD", "SIGIR", "WWW", "TACL")


def venue_and_year(question: str) -> tuple[str | None, int | None]:
    """"at EMNLP 2023" in a question -> a venue filter (the spelled-out name where the bundled
    venue strings spell it out) and a year."""
    short = next((a for a in ACRONYMS if re.search(rf"\b{a}\b", question)), None)
    venue = VENUES.get(short, short) if short else None
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


# Words of a listing question that are not a topic: "which papers appeared at ACL 2024?"
_LISTING_WORDS = frozenset("""collection corpus index indexed listed list papers paper works work
publish published publication publications appear appeared appearing accept accepted present
presented conference venue proceedings meeting annual workshop track volume long short year
years held main findings which what show me all any there were was are is in at of the from
during on for""".split())


def listing_filters(question: str, filters: Filters) -> Filters | None:
    """Venue and year filters for a pure listing ("Which papers appeared at EMNLP 2023?"), or
    None when the question names no venue or year, or also asks about a topic."""
    venue, year = venue_and_year(question)
    if not venue and not year:
        return None
    words = [w.lower() for w in re.findall(r"[A-Za-z0-9][A-Za-z0-9\-]*", question)]
    if any(w not in _LISTING_WORDS and w.upper() not in {a.upper() for a in ACRONYMS} and not w.isdigit()
           and not re.fullmatch(r"\d+(?:st|nd|rd|th)", w) for w in words):
        return None
    return Filters(author=filters.author, venue=venue or filters.venue,
                   year_from=year or filters.year_from, year_to=year or filters.year_to,
                   source=filters.source)


def listing_answer(lib: Library, scoped: Filters, shown: int = 10) -> tuple[list[ScoredPaper], Draft | None]:
    """Evidence and draft for a venue/year listing, from the indexed catalogue columns."""
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
