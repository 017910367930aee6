"""JSON Lines and CSV/TSV: one record a line or row.

Fields: id, title, abstract, authors, year, venue, url, doi, arxiv_id; only ``abstract`` is
required. A JSON line may also be a record of another JSON format, recognised by its keys and
mapped onto the same fields: an OpenAlex work (``abstract_inverted_index``), a CSL-JSON item
(``container-title``, ``issued``, ``DOI``...), an arXiv metadata snapshot line
(``authors_parsed``, ``journal-ref``, ``versions``), or a whole OpenAlex results page.
"""

from __future__ import annotations

import csv
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from rag.ingest.formats.common import ENCODING_ERRORS, MAX_ABSTRACT_CHARS, Problem
from rag.ingest.formats.csl import from_csl, is_csl
from rag.ingest.formats.detect import sniff
from rag.ingest.formats.openalex import from_openalex, is_openalex
from rag.ingest.formats.records import Row, text_of, to_paper
from rag.types import Paper


def read_jsonl(path: Path, max_chars: int = MAX_ABSTRACT_CHARS) -> Iterator[Paper | Problem]:
    with path.open(encoding="utf-8-sig", errors=ENCODING_ERRORS) as handle:
        for number, raw in enumerate(handle, start=1):
            if not raw.strip():
                continue
            try:
                row = json.loads(raw)
            except (json.JSONDecodeError, RecursionError) as exc:
                why = exc.msg if isinstance(exc, json.JSONDecodeError) else "nested too deeply"
                yield Problem(path.name, number, f"not valid JSON ({why}); skipped")
                continue
            yield from read_object(path.name, number, row, max_chars)


def read_object(source: str, line: int, item: Any, max_chars: int) -> Iterator[Paper | Problem]:
    """One JSON value of a file: a record of any JSON format, or an OpenAlex results page."""
    if not isinstance(item, dict):
        yield Problem(source, line, "not a JSON object; skipped")
        return
    if isinstance(item.get("results"), list) and "meta" in item:  # an OpenAlex API page
        for work in item["results"]:
            yield from read_object(source, line, work, max_chars)
        return
    try:
        row = record_of(item)
        named = row is not item  # a record of a named format: its id or title names it in problems
        key = (text_of(row.get("id")) or text_of(row.get("title"))) if named else None
        yield to_paper(source, line, row, max_chars, key)
    except (ValueError, TypeError, KeyError, IndexError, AttributeError) as exc:
        yield Problem(source, line, f"{exc}; skipped" if isinstance(exc, ValueError) else
                      f"a field of an unexpected shape ({type(exc).__name__}: {exc}); skipped")


def record_of(item: dict[str, Any]) -> Row:
    """The common fields of one JSON record, whichever format it is in."""
    if is_openalex(item):
        return from_openalex(item)
    if is_csl(item):
        return from_csl(item)
    if "authors_parsed" in item or "journal-ref" in item or "versions" in item:
        return _from_arxiv(item)
    return item


def read_csv(path: Path, max_chars: int = MAX_ABSTRACT_CHARS) -> Iterator[Paper | Problem]:
    csv.field_size_limit(min(sys.maxsize, 2**31 - 1))
    delimiter = "\t" if sniff(_first_line(path)) == "tsv" or path.suffix.lower() == ".tsv" else ","
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
                    yield to_paper(path.name, start, clean, max_chars)
                start = reader.line_num + 1
        except csv.Error as exc:
            yield Problem(path.name, start, f"unreadable CSV ({exc}); rest of file skipped")


def _first_line(path: Path) -> str:
    with path.open(encoding="utf-8-sig", errors=ENCODING_ERRORS) as handle:
        return handle.readline()


def _from_arxiv(row: dict[str, Any]) -> dict[str, Any]:
    parsed = row.get("authors_parsed")
    authors: Any = _arxiv_names(parsed) if parsed is not None else row.get("authors")
    versions = row.get("versions") or []
    created = versions[0].get("created", "") if isinstance(versions, list) and versions \
        and isinstance(versions[0], dict) else ""
    arxiv_id = str(row.get("id", "")).strip()
    return {
        "id": f"arxiv:{arxiv_id}" if arxiv_id else None,
        "title": row.get("title"),
        "abstract": row.get("abstract"),
        "authors": authors,
        "year": created or row.get("update_date"),
        "venue": row.get("journal-ref"),
        "url": f"https://arxiv.org/abs/{arxiv_id}" if arxiv_id else None,
        "arxiv_id": arxiv_id or None,
        "doi": row.get("doi"),
    }


def _arxiv_names(parsed: Any) -> list[str]:
    """``authors_parsed``: ``[[last, first, suffix], ...]``; a name may lack its first name or
    suffix (``["Solo"]``). Anything else is the row's problem, named."""
    if not isinstance(parsed, list):
        raise ValueError("'authors_parsed' is not a list of names")
    names = []
    for entry in parsed:
        if not isinstance(entry, list) or not all(isinstance(p, str) for p in entry):
            raise ValueError(f"'authors_parsed' holds {json.dumps(entry)[:60]}, not a [last, first, "
                             "suffix] name of texts")
        last, first = (entry + ["", ""])[:2]
        if name := " ".join(p.strip() for p in (first, last) if p.strip()):
            names.append(name)
    return names
