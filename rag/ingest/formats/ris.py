"""RIS, the default export of Zotero, Mendeley and EndNote, read with ``rispy``: ``TY`` starts a
record and ``ER`` ends it; ``TI``/``T1`` title, ``AB``/``N2`` abstract, ``AU``/``A1`` authors
("Last, First"), ``PY``/``Y1``/``DA`` year, ``T2``/``JO``/``JF``/``J2`` venue, ``DO``, ``UR``,
``ID``.

The file is cut into records here (by their ``TY`` and ``ER`` lines) and each record is
parsed alone, so a record is reported with the line it starts on and a broken one (no ``ER``
before the next ``TY``) costs only itself."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import rispy

from rag.ingest.formats.common import ENCODING_ERRORS, MAX_ABSTRACT_CHARS, Problem
from rag.ingest.formats.records import Row, arxiv_id_of, text_of, to_paper
from rag.types import Paper

TAG = re.compile(r"^([A-Z][A-Z0-9])  -(?: |$)")
MAX_RECORD_LINES = 5_000


def read(path: Path, max_chars: int = MAX_ABSTRACT_CHARS) -> Iterator[Paper | Problem]:
    for line, lines in _records(path):
        if isinstance(lines, str):
            yield Problem(path.name, line, lines)
            continue
        try:
            [record] = rispy.loads("\n".join(lines))
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            yield Problem(path.name, line, f"unreadable RIS record ({exc}); skipped")
            continue
        row = from_ris(record)
        yield to_paper(path.name, line, row, max_chars, text_of(row["id"]) or text_of(row["title"]))


def _records(path: Path) -> Iterator[tuple[int, list[str] | str]]:
    """(first line, the record's lines) for each record, or (line, why it is not one)."""
    lines: list[str] | None = None
    start = 0
    with path.open(encoding="utf-8-sig", errors=ENCODING_ERRORS) as handle:
        for number, raw in enumerate(handle, start=1):
            text = raw.rstrip("\r\n")
            match = TAG.match(text)
            tag = match.group(1) if match else None
            if tag == "TY":
                if lines is not None:
                    yield start, f"record never ends (no 'ER  -' line before line {number}); skipped"
                lines, start = [text], number
            elif lines is not None:
                lines.append(text)
                if tag == "ER":
                    yield start, lines
                    lines = None
                elif len(lines) > MAX_RECORD_LINES:
                    yield start, f"record runs over {MAX_RECORD_LINES:,} lines without an 'ER  -'; skipped"
                    lines = None
    if lines is not None:
        yield start, "record never ends (no 'ER  -' line before the end of the file); skipped"


def from_ris(record: dict[str, Any]) -> Row:
    def first(*keys: str) -> Any:
        return next((record[k] for k in keys if record.get(k)), None)

    names = first("authors", "first_authors") or []
    return {
        "id": record.get("id"),
        "title": first("title", "primary_title", "short_title"),
        "abstract": first("abstract", "notes_abstract"),
        "authors": [_name(n) for n in names if isinstance(n, str) and n.strip()],
        "year": first("year", "publication_year", "date"),
        "venue": first("secondary_title", "journal_name", "alternate_title3", "alternate_title1"),
        "url": record.get("urls"),
        "doi": record.get("doi"),
        "arxiv_id": next(filter(None, map(_arxiv_url, record.get("urls") or [])), None),
    }


def _name(raw: str) -> str:
    """RIS names are "Last, First[, Suffix]": "Müller, Hans" -> "Hans Müller"."""
    parts = [p.strip() for p in raw.split(",")]
    if len(parts) == 1 or not parts[1]:
        return parts[0]
    name = f"{parts[1]} {parts[0]}"
    return f"{name}, {parts[2]}" if len(parts) > 2 and parts[2] else name


def _arxiv_url(url: Any) -> str | None:
    return arxiv_id_of(url) if isinstance(url, str) and "arxiv.org" in url.lower() else None
