"""BibTeX entries that carry an ``abstract`` field. A small tolerant reader: braces and quotes,
``@string``/``@comment``/``@preamble`` skipped, an unbalanced entry reported with its line."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from rag.ingest.formats import ENCODING_ERRORS, MAX_ABSTRACT_CHARS, Problem, abstract_problem
from rag.ingest.papers import make_paper
from rag.text.clean import strip_latex
from rag.types import Paper

_ENTRY_START = re.compile(r"@\s*([A-Za-z]+)\s*[{(]")
_FIELD = re.compile(r"\s*([A-Za-z][\w\-:]*)\s*=\s*")
_SKIP_TYPES = {"string", "comment", "preamble"}
_TYPES = ("article|book|booklet|conference|inbook|incollection|inproceedings|manual|mastersthesis|"
          "misc|phdthesis|proceedings|techreport|unpublished|online|report|thesis|preprint|dataset|"
          "software|string|comment|preamble")
_NEW_ENTRY = re.compile(rf"^\s*@\s*(?:{_TYPES})\s*[{{(]", re.IGNORECASE)
UNBALANCED = "\x00unbalanced"


def _entries(path: Path) -> Iterator[tuple[int, str, str]]:
    """(line, type, body) for each entry, read line by line so that big files stream. An entry
    still open when a line starts a new one (``@article{`` at the start of a line) lost a brace:
    it is given up as unbalanced, and the new entry is read, not swallowed."""
    buffer: list[str] = []
    depth = 0
    start = 0
    kind = ""
    with path.open(encoding="utf-8", errors=ENCODING_ERRORS) as handle:
        for number, line in enumerate(handle, start=1):
            if depth > 0 and _NEW_ENTRY.match(line):
                yield start, kind, UNBALANCED
                buffer, depth = [], 0
            if depth == 0:
                match = _ENTRY_START.search(line)
                if not match:
                    continue
                kind, start, buffer = match.group(1).lower(), number, []
                line = line[match.end():]
                depth = 1
            for i, char in enumerate(line):
                depth += {"{": 1, "}": -1}.get(char, 0)
                if depth == 0:
                    buffer.append(line[:i])
                    yield start, kind, "".join(buffer)
                    buffer, kind = [], ""
                    break
            else:
                buffer.append(line)
    if depth > 0:
        yield start, kind, UNBALANCED


def _value(body: str, pos: int) -> tuple[str, int]:
    if pos >= len(body):
        raise ValueError("a field without a value")
    if body[pos] == "{":
        depth, i = 0, pos
        while i < len(body):
            depth += {"{": 1, "}": -1}.get(body[i], 0)
            if depth == 0:
                return body[pos + 1 : i], i + 1
            i += 1
        raise ValueError("unbalanced braces")
    if body[pos] == '"':
        end = body.index('"', pos + 1)
        return body[pos + 1 : end], end + 1
    match = re.match(r"[^,\s}]+", body[pos:])
    if not match:
        raise ValueError("empty value")
    return match.group(0), pos + match.end()


def _fields(body: str) -> tuple[str, dict[str, str]]:
    """The citation key and the fields' raw values (LaTeX not yet stripped)."""
    key, _, rest = body.partition(",")
    fields: dict[str, str] = {}
    pos = 0
    while True:
        match = _FIELD.match(rest, pos)
        if not match:
            break
        value, pos = _value(rest, match.end())
        fields[match.group(1).lower()] = value
        pos = rest.find(",", pos)
        if pos < 0:
            break
        pos += 1
    return key.strip(), fields


def _author_names(raw: str) -> tuple[str, ...]:
    names = []
    for part in re.split(r"\s+and\s+", raw):
        last, comma, first = part.partition(",")
        names.append(f"{first.strip()} {last.strip()}".strip() if comma else part.strip())
    return tuple(n for n in names if n and n.lower() != "others")


def read(path: Path, max_chars: int = MAX_ABSTRACT_CHARS) -> Iterator[Paper | Problem]:
    for line, kind, body in _entries(path):
        if kind in _SKIP_TYPES:
            continue
        if body == UNBALANCED:
            yield Problem(path.name, line, "entry never closes (unbalanced braces); skipped")
            continue
        try:
            key, raw = _fields(body)
        except ValueError as exc:
            yield Problem(path.name, line, f"malformed entry ({exc}); skipped")
            continue
        if why := abstract_problem(raw.get("abstract", ""), max_chars):
            yield Problem(path.name, line, why)
            continue
        fields = {name: " ".join(strip_latex(value).split()) for name, value in raw.items()}
        if not fields.get("abstract"):
            yield Problem(path.name, line, f"entry {key or '?'} has no abstract; skipped")
            continue
        year = re.search(r"(19|20)\d\d", fields.get("year", ""))
        venue = fields.get("journal") or fields.get("booktitle")
        url = fields.get("url") or (f"https://doi.org/{fields['doi']}" if "doi" in fields else None)
        yield make_paper(
            key or f"bib-{line}", fields["abstract"], title=fields.get("title"),
            authors=_author_names(fields.get("author", "")), year=int(year.group(0)) if year else None,
            venue=venue, url=url, source=path.name, line=line,
        )
