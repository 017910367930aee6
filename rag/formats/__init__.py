"""Readers for each input format. Each yields Papers and Problems (bad rows, reported and
skipped) and streams: a large file is never loaded whole, except BibTeX entries one at a time."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from ..errors import FormatError
from ..types import Paper


@dataclass(frozen=True)
class Problem:
    """A row that could not be read; the rest of the file is still ingested."""

    source: str
    line: int
    reason: str

    def __str__(self) -> str:
        return f"{self.source}:{self.line}: {self.reason}"


Reader = Callable[[Path], Iterator[Paper | Problem]]


def _readers() -> dict[str, tuple[str, Reader]]:
    from . import bibtex, seed, tabular

    return {
        ".txt": ("plain-text abstracts, one per paragraph (the bundled corpus)", seed.read),
        ".jsonl": ("JSON Lines: id, title, abstract, authors, year, venue, url", tabular.read_jsonl),
        ".ndjson": ("JSON Lines (same fields)", tabular.read_jsonl),
        ".json": ("arXiv metadata snapshot (one JSON object a line)", tabular.read_jsonl),
        ".csv": ("CSV with a header row (same fields as JSONL)", tabular.read_csv),
        ".tsv": ("TSV with a header row (same fields as JSONL)", tabular.read_csv),
        ".bib": ("BibTeX entries with an abstract field", bibtex.read),
    }


def known_formats() -> str:
    return "; ".join(f"{ext} ({desc})" for ext, (desc, _) in _readers().items())


def input_files(path: Path) -> list[Path]:
    """The files to read for a path: the file itself, or the known files in a folder."""
    if not path.exists():
        raise FormatError(f"{path} does not exist. Give a file or folder of abstracts.")
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.suffix.lower() in _readers())
        if not files:
            raise FormatError(f"{path} holds no file in a known format. Known: {known_formats()}")
        return files
    if path.suffix.lower() not in _readers():
        raise FormatError(
            f"{path.name}: unknown format {path.suffix or '(no extension)'!r}. "
            f"Known formats: {known_formats()}"
        )
    return [path]


def read_file(path: Path) -> Iterator[Paper | Problem]:
    if path.is_dir():
        raise FormatError(f"{path} is a folder; read the files from input_files() one by one.")
    input_files(path)  # refuses a missing file or an unknown format with the known ones listed
    _, reader = _readers()[path.suffix.lower()]
    try:
        yield from reader(path)
    except UnicodeDecodeError as exc:
        raise FormatError(f"{path.name} is not UTF-8 text ({exc.reason}). Re-save it as UTF-8.") from exc
    except OSError as exc:
        raise FormatError(f"cannot read {path}: {exc.strerror or exc}") from exc
