"""One record of any format, as a row of common fields, made into a Paper (or the Problem that
says why it cannot be one). Every reader maps its own fields onto these:

``id, title, abstract, authors, year, venue, url, doi, arxiv_id`` (only ``abstract`` is
required; ``authors`` a list or ``"A; B"``; ``authors_truncated`` when the list was cut).

Links are checked here, once: a DOI is kept bare ("10.1000/x", from "https://doi.org/10.1000/x"
or "doi:10.1000/x"), an arXiv id without its version ("2101.00001", from "arXiv:2101.00001v2",
an arxiv.org address or an arXiv DOI), and a URL only if it is an http(s) address."""

from __future__ import annotations

import re
from typing import Any

from rag.ingest.formats.common import Problem, abstract_problem
from rag.ingest.papers import content_id, make_paper, split_authors
from rag.types import Paper

Row = dict[str, Any]
_YEAR = re.compile(r"\b(1[5-9]|20)\d\d\b")
_DOI = re.compile(r"10\.\d{4,9}/[^\s\"<>]+")
_ARXIV = re.compile(r"(?:arxiv\.org/(?:abs|pdf)/|arxiv[:.]\s*|^)(\d{4}\.\d{4,5}|[a-z][a-z.\-]+/\d{7})"
                    r"(?:v\d+)?(?:\.pdf)?/?$", re.IGNORECASE)
_HTTP = re.compile(r"^https?://[^\s\"<>]+$", re.IGNORECASE)


def to_paper(source: str, line: int, row: Row, max_chars: int, key: str | None = None) -> Paper | Problem:
    """A Paper from a row of common fields, or the Problem of its row. ``key`` names the record
    in the reason (a citation key or a title), for formats whose records have one."""
    where = f"{key}: " if key else ""
    abstract = row.get("abstract")
    if not isinstance(abstract, str) or not abstract.strip():
        return Problem(source, line, f"{where}no 'abstract' text; skipped")
    if why := abstract_problem(abstract, max_chars):
        return Problem(source, line, where + why)
    authors, cut = authors_of(row.get("authors"))
    try:
        year = year_of(row.get("year"))
    except ValueError:
        return Problem(source, line, f"{where}year {row.get('year')!r} is not a year; skipped")
    abstract = " ".join(abstract.split())
    return make_paper(
        text_of(row.get("id")) or content_id(abstract), abstract, title=text_of(row.get("title")),
        authors=authors, authors_truncated=cut or bool(row.get("authors_truncated")), year=year,
        venue=text_of(row.get("venue")), url=http_url(row.get("url")), doi=doi_of(row.get("doi")),
        arxiv_id=arxiv_id_of(row.get("arxiv_id")) or arxiv_id_of(row.get("doi")),
        source=source, line=line,
    )


def text_of(value: Any) -> str | None:
    if value is None or isinstance(value, dict | list):
        return None
    text = " ".join(str(value).split())
    return text or None


def authors_of(value: Any) -> tuple[tuple[str, ...], bool]:
    if isinstance(value, list | tuple):
        names = (text_of(a) for a in value if not isinstance(a, dict | list))
        return tuple(n for n in names if n), False
    if isinstance(value, str):
        return split_authors(value)
    return (), False


def year_of(value: Any) -> int | None:
    """A year from an int or any text holding one ("2021", "2021-05-03", "Mon, 2 Apr 2007"), in
    the years the text form reads (1500-2099): 20211 or 2**63 is no year (and no database
    integer)."""
    if value in (None, ""):
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        if not 1500 <= value <= 2099:
            raise ValueError(value)
        return value
    match = _YEAR.search(str(value))
    if not match:
        raise ValueError(value)
    return int(match.group(0))


def doi_of(value: Any) -> str | None:
    text = text_of(value)
    match = _DOI.search(text) if text else None
    return match.group(0).rstrip(".,;)]}") if match else None


def arxiv_id_of(value: Any) -> str | None:
    """The arXiv id in an id, an arxiv.org address or an arXiv DOI (10.48550/arXiv.…)."""
    text = text_of(value)
    if not text:
        return None
    text = re.sub(r"^(?:https?://(?:dx\.)?doi\.org/)?10\.48550/", "", text, flags=re.IGNORECASE)
    match = _ARXIV.search(text)
    return match.group(1) if match else None


def http_url(value: Any) -> str | None:
    """The first http(s) address in a value (a text, or a list of them); anything else (a
    ``javascript:`` or ``file:`` address, a local path) is dropped."""
    values = value if isinstance(value, list) else [value]
    for item in values:
        text = text_of(item)
        if text and _HTTP.match(text):
            return text
    return None
