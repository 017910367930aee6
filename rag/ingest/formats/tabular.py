"""JSON Lines, CSV/TSV and the arXiv metadata snapshot: one record a line or row.

Fields: id, title, abstract, authors, year, venue, url; only ``abstract`` is required.
arXiv snapshot lines (``authors_parsed``, ``journal-ref``, ``versions``) are recognised by
their keys and mapped onto the same fields.
"""

from __future__ import annotations

import csv
import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from rag.ingest.formats import ENCODING_ERRORS, MAX_ABSTRACT_CHARS, Problem, abstract_problem
from rag.ingest.papers import content_id, make_paper, split_authors
from rag.types import Paper

_YEAR = re.compile(r"\b(19|20)\d\d\b")


def read_jsonl(path: Path, max_chars: int = MAX_ABSTRACT_CHARS) -> Iterator[Paper | Problem]:
    with path.open(encoding="utf-8-sig", errors=ENCODING_ERRORS) as handle:
        for number, raw in enumerate(handle, start=1):
            if not raw.strip():
                continue
            try:
                row = json.loads(raw)
            except json.JSONDecodeError as exc:
                yield Problem(path.name, number, f"not valid JSON ({exc.msg}); skipped")
                continue
            if not isinstance(row, dict):
                yield Problem(path.name, number, "not a JSON object; skipped")
                continue
            if "authors_parsed" in row or "journal-ref" in row or "versions" in row:
                row = _from_arxiv(row)
            yield _record(path.name, number, row, max_chars)


def read_csv(path: Path, max_chars: int = MAX_ABSTRACT_CHARS) -> Iterator[Paper | Problem]:
    csv.field_size_limit(min(sys.maxsize, 2**31 - 1))
    delimiter = "\t" if path.suffix.lower() == ".tsv" else ","
    with path.open(encoding="utf-8-sig", errors=ENCODING_ERRORS, newline="") as handle:
        reader = csv.DictReader(handle, delimiter=delimiter)
        if not reader.fieldnames or "abstract" not in [f.strip().lower() for f in reader.fieldnames]:
            yield Problem(path.name, 1, "header row has no 'abstract' column; file skipped")
            return
        start = reader.line_num + 1  # a quoted cell may span lines: report where a row starts
        try:
            for row in reader:
                if None in row:
                    yield Problem(path.name, start, "more cells than header columns; skipped")
                else:
                    clean = {(k or "").strip().lower(): v for k, v in row.items()}
                    yield _record(path.name, start, clean, max_chars)
                start = reader.line_num + 1
        except csv.Error as exc:
            yield Problem(path.name, start, f"unreadable CSV ({exc}); rest of file skipped")


def _from_arxiv(row: dict[str, Any]) -> dict[str, Any]:
    parsed = row.get("authors_parsed")
    authors: Any
    if isinstance(parsed, list):
        authors = [" ".join(p for p in (a[1], a[0]) if p).strip() for a in parsed if a]
    else:
        authors = row.get("authors")
    versions = row.get("versions") or []
    created = versions[0].get("created", "") if versions and isinstance(versions[0], dict) else ""
    arxiv_id = str(row.get("id", "")).strip()
    return {
        "id": f"arxiv:{arxiv_id}" if arxiv_id else None,
        "title": row.get("title"),
        "abstract": row.get("abstract"),
        "authors": authors,
        "year": created or row.get("update_date"),
        "venue": row.get("journal-ref"),
        "url": f"https://arxiv.org/abs/{arxiv_id}" if arxiv_id else None,
    }


def _record(source: str, number: int, row: dict[str, Any], max_chars: int) -> Paper | Problem:
    abstract = row.get("abstract")
    if not isinstance(abstract, str) or not abstract.strip():
        return Problem(source, number, "no 'abstract' text; skipped")
    if why := abstract_problem(abstract, max_chars):
        return Problem(source, number, why)
    authors, cut = _authors(row.get("authors"))
    try:
        year = _year(row.get("year"))
    except ValueError:
        return Problem(source, number, f"year {row.get('year')!r} is not a year; skipped")
    abstract = " ".join(abstract.split())
    paper_id = _text(row.get("id")) or content_id(abstract)
    return make_paper(
        paper_id, abstract, title=_text(row.get("title")), authors=authors,
        authors_truncated=cut, year=year, venue=_text(row.get("venue")),
        url=_text(row.get("url")), source=source, line=number,
    )


def _text(value: Any) -> str | None:
    if value is None:
        return None
    text = " ".join(str(value).split())
    return text or None


def _authors(value: Any) -> tuple[tuple[str, ...], bool]:
    if isinstance(value, list):
        return tuple(a.strip() for a in map(str, value) if a.strip()), False
    if isinstance(value, str):
        return split_authors(value)
    return (), False


def _year(value: Any) -> int | None:
    if value in (None, ""):
        return None
    if isinstance(value, int):
        return value
    match = _YEAR.search(str(value))
    if not match:
        raise ValueError(value)
    return int(match.group(0))
