"""BibTeX and BibLaTeX, split by ``bibtexparser`` 2 (entries, ``@string``, ``@comment``,
``@preamble``, nested braces, quoted values; a broken entry is its own block and the next entry
is still read). Two things bibtexparser 2.1 leaves to its users are done here: ``#``
concatenation of ``@string`` macros and quoted parts, and ``crossref`` (a child takes the fields
it lacks from its parent, BibLaTeX's way: the parent's ``title`` becomes the child's
``booktitle``; the parent's own title, abstract, DOI and URL are not inherited).

Names are split by bibtexparser ("Doe, Jane and M{\\"u}ller, Hans and others" -> "Jane Doe",
"Hans M{\\"u}ller", et al.); LaTeX is made readable with every other format's text
(``make_paper``). The file is read whole: ``@string`` and ``crossref`` may point anywhere in it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import bibtexparser
from bibtexparser.middlewares.names import parse_single_name_into_parts, split_multiple_persons_names
from bibtexparser.model import DuplicateBlockKeyBlock, Entry, ParsingFailedBlock

from rag.ingest.formats.common import ENCODING_ERRORS, MAX_ABSTRACT_CHARS, Problem
from rag.ingest.formats.records import Row, to_paper
from rag.types import Paper

NOT_INHERITED = frozenset({"title", "subtitle", "titleaddon", "shorttitle", "abstract", "doi", "url",
                           "eprint", "eprinttype", "archiveprefix", "crossref", "ids", "keywords",
                           "file", "note", "annote", "urldate"})
CONTAINERS = frozenset({"xdata", "set"})  # BibLaTeX data-only entries: never papers themselves


def read(path: Path, max_chars: int = MAX_ABSTRACT_CHARS) -> Iterator[Paper | Problem]:
    text = path.read_text(encoding="utf-8-sig", errors=ENCODING_ERRORS).replace("\x00", " ")  # NUL ends a C string
    try:
        library = bibtexparser.parse_string(text, parse_stack=[])
    except Exception as exc:  # noqa: BLE001  (the splitter's own failure: the file is unreadable)
        yield Problem(path.name, None, f"unreadable BibTeX ({type(exc).__name__}: {exc}); file skipped")
        return
    strings: dict[str, str] = {}
    for macro in library.strings:
        strings[macro.key.lower()] = resolve(macro.value, strings)
    own = {e.key.lower(): {f.key.lower(): resolve(f.value, strings) for f in e.fields}
           for e in library.entries}
    parents = {f["crossref"].strip().lower() for f in own.values() if "crossref" in f}
    for block in library.blocks:
        line = (block.start_line or 0) + 1
        if isinstance(block, ParsingFailedBlock):
            yield Problem(path.name, line, _failure(block))
        elif isinstance(block, Entry) and block.entry_type.lower() not in CONTAINERS:
            fields = _fields(block.key.lower(), own)
            if block.key.lower() in parents and not fields.get("abstract"):
                continue  # a proceedings volume its papers point to: not a paper itself
            yield to_paper(path.name, line, _row(block.key, fields), max_chars, f"entry {block.key}")


def resolve(raw: Any, strings: dict[str, str]) -> str:
    """A field's value: ``{...}`` and ``"..."`` parts unwrapped, macros replaced, ``#`` joined."""
    out = []
    for piece in _pieces(str(raw)):
        piece = piece.strip()
        if len(piece) >= 2 and (piece[0], piece[-1]) in {("{", "}"), ('"', '"')}:
            out.append(piece[1:-1])
        else:
            out.append(strings.get(piece.lower(), piece))
    return "".join(out)


def _pieces(raw: str) -> list[str]:
    """The parts of a value joined by ``#`` outside braces and quotes."""
    pieces, depth, quoted, start = [], 0, False, 0
    for i, char in enumerate(raw):
        if char == "{":
            depth += 1
        elif char == "}":
            depth = max(0, depth - 1)
        elif char == '"' and depth == 0:
            quoted = not quoted
        elif char == "#" and depth == 0 and not quoted:
            pieces.append(raw[start:i])
            start = i + 1
    return [*pieces, raw[start:]]


def _fields(key: str, own: dict[str, dict[str, str]], depth: int = 0) -> dict[str, str]:
    """An entry's fields (lower-case names, resolved values) with what its crossref parent
    gives (a parent's parent too, up to a few levels: a cycle ends there)."""
    fields = dict(own.get(key, {}))
    parent = fields.get("crossref", "").strip().lower()
    if parent not in own or parent == key or depth > 4:
        return fields
    inherited = _fields(parent, own, depth + 1)
    if "title" in inherited:
        fields.setdefault("booktitle", inherited["title"])
    for name, value in inherited.items():
        if name not in NOT_INHERITED:
            fields.setdefault(name, value)
    return fields


def _row(key: str, fields: dict[str, str]) -> Row:
    names, cut = _names(fields.get("author", ""))
    arxiv = fields.get("eprinttype", fields.get("archiveprefix", "")).lower() == "arxiv"
    return {
        "id": key.strip() or None,
        "title": fields.get("title"),
        "abstract": fields.get("abstract"),
        "authors": names,
        "authors_truncated": cut,
        "year": fields.get("year") or fields.get("date"),
        "venue": next((fields[k] for k in ("journal", "journaltitle", "booktitle", "eventtitle")
                       if fields.get(k)), None),
        "url": fields.get("url"),
        "doi": fields.get("doi"),
        "arxiv_id": fields.get("eprint") if arxiv else None,
    }


def _names(raw: str) -> tuple[list[str], bool]:
    """"Doe, Jane and John Smith and others" -> (["Jane Doe", "John Smith"], True)."""
    names, cut = [], False
    for person in split_multiple_persons_names(raw) if raw.strip() else []:
        if person.strip().lower() == "others":
            cut = True
            continue
        try:
            parts = parse_single_name_into_parts(person, strict=False)
        except ValueError:
            names.append(person.strip())
            continue
        name = " ".join([*parts.first, *parts.von, *parts.last])
        names.append(f"{name}, {' '.join(parts.jr)}" if parts.jr else name)
    return [n for n in names if n], cut


def _failure(block: ParsingFailedBlock) -> str:
    if isinstance(block, DuplicateBlockKeyBlock):
        first = (block.previous_block.start_line or 0) + 1
        return f"entry {block.key}: the same key as the entry at line {first}; skipped"
    error = block.error
    detail = " ".join(str(getattr(error, "abort_reason", None) or getattr(error, "message", None)
                          or error).split()).rstrip(".")
    return f"malformed entry (unbalanced braces or quotes, or a missing comma: {detail}); skipped"
