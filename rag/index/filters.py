"""Metadata filters, and how they reach each index without scanning the catalogue: as SQL
conditions over indexed columns for the keyword side and the catalogue, and as a Chroma
``where`` for the vector side. No filter size breaks a query: a list that would be long
(thousands of matching papers) is left out of the vector filter, and the vector results are
checked against the catalogue instead (``VectorFilter.exact`` is then False)."""

from __future__ import annotations

from dataclasses import dataclass

from rag.text.authors import anchor, fold, name_matches, name_tokens
from rag.text.years import parse_years
from rag.types import Paper

MAX_LIST = 1000  # longest id or name list sent to the vector store


@dataclass(frozen=True)
class Filters:
    """Metadata filters: author by name (case, diacritics and initials ignored; any word of
    the name: "zhouhan", "Z. Lin", "Lin, Zhouhan"), venue a case-insensitive substring, years
    inclusive, source a file-name prefix."""

    author: str | None = None
    year_from: int | None = None
    year_to: int | None = None
    venue: str | None = None
    source: str | None = None

    @classmethod
    def parse(cls, *, author: str | None = None, year: str | None = None, venue: str | None = None,
              source: str | None = None) -> Filters:
        """Filters as a user gives them (CLI options, HTTP fields, a Slack channel's defaults):
        empty strings mean no filter; ``year`` is "2023", "2023-2025", "2023-" or "-2021"."""
        year_from, year_to = parse_years(year)
        return cls(author=author or None, year_from=year_from, year_to=year_to, venue=venue or None,
                   source=source or None)

    @property
    def active(self) -> bool:
        return any(v is not None for v in (self.author, self.year_from, self.year_to,
                                           self.venue, self.source))

    def matches(self, paper: Paper) -> bool:
        if self.author and not any(name_matches(self.author, a) for a in paper.authors):
            return False
        if self.year_from is not None and (paper.year is None or paper.year < self.year_from):
            return False
        if self.year_to is not None and (paper.year is None or paper.year > self.year_to):
            return False
        if self.venue and fold(self.venue) not in fold(paper.venue or ""):
            return False
        return not (self.source and not paper.source.startswith(self.source))


@dataclass(frozen=True)
class VectorFilter:
    """What the vector store is asked to filter on. ``None`` fields do not filter; an empty
    tuple matches nothing. ``exact`` False: some condition was left out (too long a list) and
    the caller must check the results; ``share`` estimates the fraction of papers that pass."""

    year_from: int | None = None
    year_to: int | None = None
    venues: tuple[str, ...] | None = None
    sources: tuple[str, ...] | None = None
    paper_ids: tuple[str, ...] | None = None
    exact: bool = True
    share: float = 1.0

    @property
    def empty(self) -> bool:
        return any(v == () for v in (self.venues, self.sources, self.paper_ids))


def author_sql(name: str) -> tuple[str, list[object]]:
    """SQL selecting the paper ids with an author of this name, through the token index."""
    tokens = name_tokens(name)
    if not tokens:
        return "SELECT NULL WHERE 0", []
    first = anchor(tokens) or tokens[0]
    clauses, params = [], []
    if len(first) > 1:
        clauses.append("a0.token = ?")
        params.append(first)
    else:
        clauses.append("a0.token >= ? AND a0.token < ?")
        params += [first, first + "\uffff"]
    rest = list(tokens)
    rest.remove(first)
    for word in rest:
        if len(word) == 1:
            test, extra = "x.token >= ? AND x.token < ?", [word, word + "\uffff"]
        else:
            test, extra = "(x.token = ? OR x.token = ?)", [word, word[0]]
        clauses.append("EXISTS (SELECT 1 FROM author_tokens x WHERE x.paper_id = a0.paper_id "
                       f"AND x.pos = a0.pos AND {test})")
        params += extra
    return f"SELECT a0.paper_id FROM author_tokens a0 WHERE {' AND '.join(clauses)}", list(params)


def paper_condition(filters: Filters) -> tuple[str, list[object]]:
    """A WHERE condition on ``papers p`` for these filters (indexed columns only)."""
    parts: list[str] = []
    params: list[object] = []
    if filters.year_from is not None:
        parts.append("p.year >= ?")
        params.append(filters.year_from)
    if filters.year_to is not None:
        parts.append("p.year <= ?")
        params.append(filters.year_to)
    if filters.venue:
        parts.append("p.venue IN (SELECT name FROM venues WHERE norm LIKE ? ESCAPE '\\')")
        params.append(f"%{_like(fold(filters.venue))}%")
    if filters.source:
        parts.append("p.source >= ? AND p.source < ?")
        params += [filters.source, filters.source + "\uffff"]
    if filters.author:
        sql, extra = author_sql(filters.author)
        parts.append(f"p.id IN ({sql})")
        params += extra
    return " AND ".join(parts) or "1", params


def _like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
