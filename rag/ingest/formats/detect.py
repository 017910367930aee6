"""Which format a file is in: its extension says what it should be, its first lines what it
is. A distinctive start wins over the extension, so a Zotero RIS export saved as ``.txt``, a
CSL-JSON array saved as ``.jsonl``, a BibTeX file or a CSV table (a header row naming an
``abstract`` column) saved as ``.txt`` are read as what they are; anything else is read as its
extension says. A file that is not text at all (a PNG named ``.bib``) is refused by name."""

from __future__ import annotations

import json
import re
from pathlib import Path

from rag.ingest.formats.common import ENCODING_ERRORS

HEAD_BYTES = 64 * 1024
EXTENSIONS = {".txt": "seed", ".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "json", ".csv": "csv",
              ".tsv": "tsv", ".bib": "bibtex", ".bibtex": "bibtex", ".ris": "ris"}
_RIS = re.compile(r"^TY  - ")
_BIB_ENTRY = re.compile(r"^\s*@\s*[A-Za-z]+\s*[{(]", re.MULTILINE)
_BIB_PREFIX = re.compile(r"^\s*(%|@)")
_JSON_ARRAY = re.compile(r"^\[\s*(\{|\])")
_JSON_OBJECT = re.compile(r'^\{\s*("|\})')


def format_of(path: Path) -> str | None:
    """The reader's name for this file (see ``EXTENSIONS``), or None for a file whose extension
    is unknown and whose start is not a known format either."""
    by_content = sniff(_head(path))
    return by_content or EXTENSIONS.get(path.suffix.lower())


def sniff(head: str) -> str | None:
    """The format a file's first characters show, if they show one distinctly."""
    text = head.lstrip("\ufeff \t\r\n")
    first = text.split("\n", 1)[0].rstrip("\r")
    if _RIS.match(first):
        return "ris"
    if _JSON_ARRAY.match(text):
        return "json"
    if _JSON_OBJECT.match(text):
        if "\n" not in text:
            return None  # a first line longer than the head: the extension decides
        try:
            json.loads(first)
        except (ValueError, RecursionError):
            return "json"  # an object over several lines: one document
        return "jsonl"
    if _BIB_PREFIX.match(first) and _BIB_ENTRY.search(text):
        return "bibtex"
    return _table(first)


def _table(first: str) -> str | None:
    """A CSV or TSV header row naming an ``abstract`` column (a table saved as ``.txt``)."""
    for name, delimiter in (("tsv", "\t"), ("csv", ",")):
        cells = [c.strip().strip('"').lower() for c in first.split(delimiter)]
        if len(cells) >= 2 and "abstract" in cells and all(len(c) <= 40 for c in cells):
            return name
    return None


NAMES = {"seed": "plain-text", "jsonl": "JSON Lines", "json": "JSON", "csv": "CSV", "tsv": "TSV",
         "bibtex": "BibTeX", "ris": "RIS"}
MAGIC = {b"\x89PNG": "a PNG image", b"%PDF": "a PDF document", b"PK\x03\x04": "a zip archive",
         b"\xff\xd8\xff": "a JPEG image", b"GIF8": "a GIF image"}


def binary_kind(path: Path) -> str | None:
    """What a file that is not text is ("a PNG image", "binary data"), or None for text."""
    try:
        with path.open("rb") as handle:
            head = handle.read(4096)
    except OSError:
        return None
    kind = next((what for magic, what in MAGIC.items() if head.startswith(magic)), None)
    return kind or ("binary data" if head.count(b"\x00") * 10 > len(head) else None)  # a stray NUL is text


def _head(path: Path) -> str:
    try:
        with path.open("rb") as handle:
            return handle.read(HEAD_BYTES).decode("utf-8", errors=ENCODING_ERRORS)
    except OSError:
        return ""  # the reader reports why it cannot be read
