"""Honest filters. Filters that leave no paper are said, with how many papers each filter keeps
on its own, instead of an answer that the abstracts "do not answer this" or a silent empty
list; and the catalogue's facets (years, venues, authors, with counts) show what there is to
filter on. Read from the catalogue's indexed columns in SQL."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from rag.errors import NoMatchError
from rag.index.catalog import Catalog
from rag.index.filters import Filters


def _alone(filters: Filters) -> list[tuple[str, Filters]]:
    """Each active filter on its own, with how the user gave it."""
    none = Filters()
    out = []
    if filters.author:
        out.append((f"author {filters.author!r}", replace(none, author=filters.author)))
    if filters.year_from is not None or filters.year_to is not None:
        span = f"{filters.year_from or ''}-{filters.year_to or ''}"
        if filters.year_from == filters.year_to:
            span = str(filters.year_from)
        out.append((f"year {span}", replace(none, year_from=filters.year_from, year_to=filters.year_to)))
    if filters.venue:
        out.append((f"venue {filters.venue!r}", replace(none, venue=filters.venue)))
    if filters.source:
        out.append((f"source {filters.source!r}", replace(none, source=filters.source)))
    return out


def check_filters(catalog: Catalog, filters: Filters) -> None:
    """Refuse filters that together leave no paper, saying what each keeps and what to do."""
    if not filters.active or catalog.count_matching(filters) > 0:
        return
    kept = [f"{said} keeps {catalog.count_matching(alone)}" for said, alone in _alone(filters)]
    raise NoMatchError(f"the filters leave no paper of the {catalog.count()} indexed: "
                     f"{'; '.join(kept)}{' together: 0' if len(kept) > 1 else ''}. Loosen or drop "
                     "a filter (the facets show which years, venues and authors there are).")


def facets(catalog: Catalog, limit: int = 20) -> dict[str, Any]:
    """Counts to filter on: every year, the commonest venues and authors, and the total."""
    db = catalog.db
    years = db.execute("SELECT year, count(*) FROM papers WHERE year IS NOT NULL GROUP BY year "
                       "ORDER BY year").fetchall()
    venues = db.execute("SELECT venue, count(*) n FROM papers WHERE venue IS NOT NULL AND venue != '' "
                        "GROUP BY venue ORDER BY n DESC, venue LIMIT ?", (limit,)).fetchall()
    authors = db.execute("SELECT a.value, count(*) n FROM papers p, json_each(p.record, '$.authors') a "
                         "GROUP BY a.value ORDER BY n DESC, a.value LIMIT ?", (limit,)).fetchall()
    return {"papers": catalog.count(), "years": [{"value": y, "papers": n} for y, n in years],
            "venues": [{"value": v, "papers": n} for v, n in venues],
            "authors": [{"value": a, "papers": n} for a, n in authors]}


