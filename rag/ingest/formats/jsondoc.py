"""A whole JSON document: an array of records (a Zotero or Mendeley "CSL JSON" export, a list
of OpenAlex works) or one object (one record, or an OpenAlex results page). Each record is
mapped as a JSON line would be (``tabular.read_object``) and numbered by the line it starts on.

The document is read whole (exports are a few MB); a syntax error ends the file there, with
its line, after the records before it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from rag.ingest.formats.common import ENCODING_ERRORS, MAX_ABSTRACT_CHARS, Problem
from rag.ingest.formats.tabular import read_object
from rag.types import Paper

_SPACE = " \t\r\n"


def read(path: Path, max_chars: int = MAX_ABSTRACT_CHARS) -> Iterator[Paper | Problem]:
    text = path.read_text(encoding="utf-8-sig", errors=ENCODING_ERRORS)
    start = len(text) - len(text.lstrip(_SPACE))
    if text[start:start + 1] != "[":
        yield from _document(path.name, text, start, max_chars)
        return
    decoder = json.JSONDecoder()
    line, counted = 1, 0
    pos = _skip(text, start + 1)
    while pos < len(text) and text[pos] != "]":
        line += text.count("\n", counted, pos)
        counted = pos
        try:
            item, pos = decoder.raw_decode(text, pos)
        except (json.JSONDecodeError, RecursionError) as exc:
            why = exc.msg if isinstance(exc, json.JSONDecodeError) else "nested too deeply"
            yield Problem(path.name, getattr(exc, "lineno", line), f"not valid JSON ({why}); the "
                          "rest of the file skipped")
            return
        yield from read_object(path.name, line, item, max_chars)
        pos = _skip(text, pos)
        if text[pos:pos + 1] == ",":
            pos = _skip(text, pos + 1)
        elif text[pos:pos + 1] != "]":
            where = line + text.count("\n", counted, pos)
            yield Problem(path.name, where, "expected ',' or ']' after a record; the rest of the "
                                            "file skipped")
            return
    if pos >= len(text):
        yield Problem(path.name, line, "the JSON array never closes (no ']'); the records before "
                                       "were read")


def _document(source: str, text: str, start: int, max_chars: int) -> Iterator[Paper | Problem]:
    line = text.count("\n", 0, start) + 1
    try:
        item = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        why = exc.msg if isinstance(exc, json.JSONDecodeError) else "nested too deeply"
        yield Problem(source, getattr(exc, "lineno", line), f"not valid JSON ({why}); file skipped")
        return
    yield from read_object(source, line, item, max_chars)


def _skip(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in _SPACE:
        pos += 1
    return pos
