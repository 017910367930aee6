"""CSL-JSON items (what Zotero, Mendeley and citation.js export as "CSL JSON"), mapped onto the
common fields: ``abstract``, ``title``, ``author[].family/given`` (or ``literal``),
``issued.date-parts`` (or ``raw``/``literal``), ``container-title``, ``DOI``, ``URL``, and an
arXiv preprint's ``number`` ("arXiv:2101.00001")."""

from __future__ import annotations

from typing import Any

from rag.ingest.formats.records import Row, text_of

_NAME_PARTS = ("given", "dropping-particle", "non-dropping-particle", "family")
_TRUNCATED = {"others", "et al.", "et al"}


def is_csl(item: dict[str, Any]) -> bool:
    """A CSL item: CSL's own field names, which plain rows and other formats do not use."""
    return any(k in item for k in ("container-title", "issued", "DOI", "URL", "citation-key")) or (
        isinstance(item.get("author"), list) and "abstract" in item)


def from_csl(item: dict[str, Any]) -> Row:
    names, cut = _names(item.get("author"))
    number = text_of(item.get("number")) or ""
    return {
        "id": item.get("citation-key") or item.get("id"),
        "title": item.get("title"),
        "abstract": item.get("abstract"),
        "authors": names,
        "authors_truncated": cut,
        "year": _year(item.get("issued")),
        "venue": _first(item.get("container-title")) or _first(item.get("event-title")),
        "url": item.get("URL"),
        "doi": item.get("DOI"),
        "arxiv_id": number if number.lower().startswith("arxiv") else None,
    }


def _names(authors: Any) -> tuple[list[str], bool]:
    names: list[str] = []
    cut = False
    for person in authors if isinstance(authors, list) else []:
        if not isinstance(person, dict):
            continue
        literal = text_of(person.get("literal"))
        name = literal or " ".join(filter(None, (text_of(person.get(p)) for p in _NAME_PARTS)))
        if suffix := text_of(person.get("suffix")):
            name = f"{name}, {suffix}"
        if name.lower() in _TRUNCATED:
            cut = True
        elif name:
            names.append(name)
    return names, cut


def _year(issued: Any) -> Any:
    """``{"date-parts": [[2021, 3, 15]]}`` (numbers or strings), else ``raw``/``literal``."""
    if not isinstance(issued, dict):
        return issued if isinstance(issued, str | int) else None
    parts = issued.get("date-parts")
    if isinstance(parts, list) and parts and isinstance(parts[0], list) and parts[0] and parts[0][0]:
        return str(parts[0][0])
    return issued.get("raw") or issued.get("literal")


def _first(value: Any) -> str | None:
    """CSL titles are strings; a few exporters write a list of them."""
    if isinstance(value, list):
        value = value[0] if value else None
    return text_of(value)
