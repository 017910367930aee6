"""The bundled corpus format (data/README.md): paragraphs separated by blank lines that are
abstracts, author lines (before the abstract they belong to), stand-alone author/venue lines
(papers listed without an abstract) and page headers."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from rag.ingest.formats.common import ENCODING_ERRORS, MAX_ABSTRACT_CHARS, Problem, abstract_problem
from rag.ingest.identity import BUNDLED_IDS, paragraph_key, seed_id
from rag.ingest.papers import make_paper, split_authors
from rag.types import Paper

_VENUE_LINE = re.compile(
    r"^(?P<authors>.+?)\.\s+(?P<venue>(?:Proceedings|Findings|Transactions|Advances|Journal|"
    r"International|Conference|In |arXiv|Annual|Workshop)[^\n]*?)\.\s+(?P<year>(?:19|20)\d\d)\.?$"
)
_NAME = r"[A-Z][\w'’.\-]*(?:\s+[A-Za-z][\w'’.\-]*){0,4}"
_AUTHOR_LINE = re.compile(rf"^{_NAME}(?:,\s*{_NAME})*(?:,?\s+et al\.)?(?:\s+·\s+.*)?$")
MIN_ABSTRACT_WORDS = 40


def _kind(line: str) -> str:
    if _VENUE_LINE.match(line):
        return "venue"
    if len(line.split()) >= MIN_ABSTRACT_WORDS:
        return "abstract"
    if _AUTHOR_LINE.match(line):
        return "names"
    return "other"


def _paragraphs(path: Path) -> Iterator[tuple[int, str]]:
    with path.open(encoding="utf-8", errors=ENCODING_ERRORS) as handle:
        for number, raw in enumerate(handle, start=1):
            if raw.strip():
                yield number, raw.strip()


def read(path: Path, max_chars: int = MAX_ABSTRACT_CHARS) -> Iterator[Paper | Problem]:
    name = path.name
    pending: tuple[int, str] | None = None  # a short line waiting to see what follows it
    p_first = False  # whether that pending line was the first paragraph of the file
    first = True
    for number, line in _paragraphs(path):
        if why := abstract_problem(line, max_chars):
            yield Problem(name, number, why)
            pending, first = None, False
            continue
        kind = _kind(line)
        if pending is not None:
            p_number, p_line = pending
            if kind == "abstract" and not p_first and _AUTHOR_LINE.match(p_line):
                authors, cut = split_authors(p_line)
                yield make_paper(seed_id(name, line), line, authors=authors,
                                 authors_truncated=cut, source=name, line=number)
                pending = None
                first = False
                continue
            if not p_first:
                yield Problem(name, p_number, "short line that is neither an author line before "
                                              "an abstract nor an author/venue line; skipped")
            pending = None
        if kind == "venue":
            yield _venue_record(name, number, line)
        elif kind == "abstract":
            yield make_paper(seed_id(name, line), line, source=name, line=number)
        else:
            pending, p_first = (number, line), first
        first = False
    if pending is not None and not p_first:
        yield Problem(name, pending[0], "trailing short line with no abstract after it; skipped")


def _venue_record(name: str, number: int, line: str) -> Paper:
    match = _VENUE_LINE.match(line)
    assert match is not None
    authors, cut = split_authors(match["authors"])
    return make_paper(seed_id(name, line), "", authors=authors, authors_truncated=cut,
                      venue=match["venue"].strip(), year=int(match["year"]),
                      source=name, line=number)


def freeze_bundled_ids(files: list[Path]) -> int:
    """Write ``rag/assets/bundled_ids.tsv``: the ``<prefix>-<line>`` id of every record of the
    bundled files as they are now, by the content of its paragraph (``identity.py``)."""
    rows = []
    for path in files:
        lines = path.read_text(encoding="utf-8", errors=ENCODING_ERRORS).split("\n")
        for item in read(path):
            if isinstance(item, Paper) and item.line is not None:
                rows.append(f"{path.name[:3]}-{item.line:04d}\t{paragraph_key(lines[item.line - 1])}")
    BUNDLED_IDS.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return len(rows)


if __name__ == "__main__":  # python -m rag.ingest.formats.seed: freeze the bundled corpus's ids
    from rag.settings import BUNDLED_CORPUS

    print(freeze_bundled_ids(sorted(BUNDLED_CORPUS.glob("0*.txt"))), "ids written to", BUNDLED_IDS)
