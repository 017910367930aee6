"""OpenAlex works (the API's ``/works`` results, or the snapshot's JSON Lines), mapped onto the
common fields. OpenAlex does not store abstracts as text but as an inverted index
(``{"word": [positions]}``); the abstract is rebuilt from it."""

from __future__ import annotations

from typing import Any

from rag.ingest.formats.records import Row, arxiv_id_of, text_of

MAX_POSITIONS = 50_000  # more word positions than any abstract has: the index is not one


def is_openalex(item: dict[str, Any]) -> bool:
    return "abstract_inverted_index" in item or str(item.get("id", "")).startswith("https://openalex.org/W")


def from_openalex(work: dict[str, Any]) -> Row:
    """Raises ValueError when ``abstract_inverted_index`` is not a word -> positions map."""
    location = _dict(work.get("primary_location"))
    source = _dict(location.get("source"))
    authorships = work.get("authorships") if isinstance(work.get("authorships"), list) else []
    ident = str(work.get("id") or "")
    return {
        "id": ident.rsplit("/", 1)[-1] if ident.startswith("https://openalex.org/") else ident or None,
        "title": work.get("title") or work.get("display_name"),
        "abstract": rebuild_abstract(work.get("abstract_inverted_index")),
        "authors": [name for name in map(_author, authorships or []) if name],
        "authors_truncated": bool(work.get("is_authors_truncated")),
        "year": work.get("publication_year") or work.get("publication_date"),
        "venue": text_of(source.get("display_name")),
        "url": location.get("landing_page_url"),
        "doi": work.get("doi"),
        "arxiv_id": _arxiv(work),
    }


def rebuild_abstract(index: Any) -> str | None:
    """``{"Deep": [0], "nets": [1, 4], ...}`` -> "Deep nets ... nets"."""
    if index is None:
        return None
    if not isinstance(index, dict):
        raise ValueError("abstract_inverted_index is not a map of words to positions")
    placed: list[tuple[int, str]] = []
    for word, positions in index.items():
        if not isinstance(positions, list) or not all(type(p) is int and p >= 0 for p in positions):
            raise ValueError(f"abstract_inverted_index gives {word!r} positions that are not "
                             "whole numbers")
        placed += [(p, word) for p in positions]
        if len(placed) > MAX_POSITIONS:
            raise ValueError(f"abstract_inverted_index holds over {MAX_POSITIONS:,} words")
    return " ".join(word for _, word in sorted(placed))


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _author(authorship: Any) -> str | None:
    if not isinstance(authorship, dict):
        return None
    author = _dict(authorship.get("author"))
    return text_of(author.get("display_name")) or text_of(authorship.get("raw_author_name"))


def _arxiv(work: dict[str, Any]) -> str | None:
    """arXiv appears as one of the work's locations (its landing page or PDF)."""
    locations = work.get("locations")
    for location in [work.get("primary_location"), *(locations if isinstance(locations, list) else [])]:
        if isinstance(location, dict):
            for key in ("landing_page_url", "pdf_url"):
                if found := arxiv_id_of(location.get(key)):
                    return found
    return None
