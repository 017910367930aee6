"""Readers for each input format. Each yields Papers and Problems (bad rows, reported and
skipped). Line formats (JSON Lines, CSV, RIS, the plain-text corpus) stream; a BibTeX file or a
JSON document (a CSL-JSON array) is read whole, since its records point at each other or
are one value. ``detect.py`` picks the reader by content and extension.

Bad text costs a row, never a file: files are decoded with ``surrogateescape``, so a byte that
is not UTF-8 reaches the row it is in, which is then reported (file:line) and skipped, as is a
row holding a lone surrogate (JSON's ``"\\ud800"``) or an abstract over the length cap."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from rag.errors import FormatError
from rag.ingest.formats import bibtex, jsondoc, ris, seed, tabular
from rag.ingest.formats.common import (
    ENCODING_ERRORS,
    MAX_ABSTRACT_CHARS,
    Problem,
    Reader,
    abstract_problem,
)
from rag.ingest.formats.detect import EXTENSIONS, NAMES, binary_kind, format_of
from rag.text.check import bad_text
from rag.types import Paper

__all__ = ["ENCODING_ERRORS", "MAX_ABSTRACT_CHARS", "Problem", "Reader", "abstract_problem",
           "input_files", "known_formats", "read_file", "scan"]


def _vetted(item: Paper | Problem) -> Paper | Problem:
    """A Paper whose text cannot be stored or embedded becomes the Problem of its row."""
    if isinstance(item, Problem):
        return item
    for name in ("id", "abstract", "title", "venue", "url", "doi", "arxiv_id"):
        why = bad_text(getattr(item, name) or "")
        if why:
            return Problem(item.source, item.line, f"{name} holds {why}; skipped (re-save the "
                           "file as UTF-8)")
    why = next(filter(None, (bad_text(a) for a in item.authors)), None)
    return Problem(item.source, item.line, f"authors hold {why}; skipped") if why else item


def _readers() -> dict[str, tuple[str, Reader]]:
    return {
        "seed": ("plain-text abstracts, one per paragraph (the bundled corpus)", seed.read),
        "jsonl": ("JSON Lines: plain records, CSL-JSON items, OpenAlex works or arXiv metadata",
                  tabular.read_jsonl),
        "json": ("a JSON document: a CSL-JSON export, OpenAlex works or an OpenAlex results page",
                 jsondoc.read),
        "csv": ("CSV with a header row (same fields as JSONL)", tabular.read_csv),
        "tsv": ("TSV with a header row (same fields as JSONL)", tabular.read_csv),
        "bibtex": ("BibTeX or BibLaTeX entries with an abstract field", bibtex.read),
        "ris": ("RIS (Zotero, Mendeley, EndNote exports)", ris.read),
    }


def known_formats() -> str:
    readers = _readers()
    return "; ".join(f"{ext} ({readers[name][0]})" for ext, name in EXTENSIONS.items())


def _known_extensions() -> str:
    return ", ".join(EXTENSIONS)


_DOCUMENTATION = re.compile(r"(?i)^(readme|license|licence|notice|changelog)(\.(md|rst|txt))?$")


def scan(path: Path) -> tuple[list[Path], list[Problem]]:
    """The files to read for a path (the file itself, or the known files in a folder) and, for
    a folder, a Problem for each entry that will not be read (unknown extension, sub-folder).
    Hidden entries (.DS_Store, .git) and a folder's own README/LICENSE are passed over silently.
    A file given by name is read whatever its extension if its content shows a known format."""
    if not path.exists():
        raise FormatError(f"{path} does not exist. Give a file or folder of abstracts.")
    if not path.is_dir():
        if format_of(path) is None:
            raise FormatError(
                f"{path.name}: unknown format {path.suffix or '(no extension)'!r}. "
                f"Known formats: {known_formats()}"
            )
        return [path], []
    files, ignored = [], []
    for entry in sorted(path.iterdir()):
        if entry.name.startswith(".") or _DOCUMENTATION.match(entry.name):
            continue
        if entry.is_dir():
            ignored.append(Problem(entry.name, None, "a folder inside the folder; not read (give "
                                   "it as a path of its own)"))
        elif entry.suffix.lower() in EXTENSIONS:
            files.append(entry)
        else:
            ignored.append(Problem(entry.name, None, f"unknown extension "
                                   f"{entry.suffix or '(none)'!r}; not read. Known: "
                                   f"{_known_extensions()}"))
    if not files:
        raise FormatError(f"{path} holds no file in a known format. Known: {known_formats()}")
    return files, ignored


def input_files(path: Path) -> list[Path]:
    """The files to read for a path: the file itself, or the known files in a folder."""
    return scan(path)[0]


def read_file(path: Path, max_abstract_chars: int = MAX_ABSTRACT_CHARS) -> Iterator[Paper | Problem]:
    if path.is_dir():
        raise FormatError(f"{path} is a folder; read the files from input_files() one by one.")
    input_files(path)  # refuses a missing file or an unknown format with the known ones listed
    name = format_of(path) or "seed"
    if kind := binary_kind(path):
        yield Problem(path.name, None, f"not a {NAMES[name]} file: it is {kind}; nothing was read from it")
        return
    _, reader = _readers()[name]
    try:
        for item in reader(path, max_abstract_chars):
            yield _vetted(item)
    except OSError as exc:
        raise FormatError(f"cannot read {path}: {exc.strerror or exc}") from exc
