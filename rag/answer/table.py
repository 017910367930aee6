"""The evidence table of a list or comparison answer: one row per cited paper (the paper and its
link, the figure or finding, what it measures, on what, the cited passage), built from the
final, checked Answer only, so the table never says more than the text it sits beside.

The figure is the span the answer put in bold for that source, else the first number its
sentence states; what it measures is the sentence's clause before the figure (the paper's own
name and a trailing "by"/"of" left out); "on what" is the phrase after "on"/"across"/"over" that
follows the figure. A row without a figure keeps its sentence as the finding."""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag.text.numbers import number_spans
from rag.types import Answer, Citation, EvidenceRow

MIN_ROWS = 2  # one paper is an answer, not a table
_KEY = re.compile(r"\[(\d+)\]")
_BOLD = re.compile(r"\*\*(.+?)\*\*")
_DATASET = re.compile(r"\b(?:on|across|over)\s+((?:the\s+)?[^,.;:()]+?)(?=\s+(?:by|while|with|which|and|"
                      r"where|when|whereas|but|for|using|through)\b|[,.;:()]|$)")
_TRAILING = re.compile(r"\s+(?:by|of|to|at|from|with|about|around|up to|nearly|almost|over)\s*$", re.IGNORECASE)
_LIMIT = 160


def _lines_by_key(text: str) -> dict[int, str]:
    """Each citation key and the answer line (list item or sentence) that cites it first."""
    found: dict[int, str] = {}
    for line in text.splitlines():
        for key in _KEY.findall(line):
            found.setdefault(int(key), line)
    return found


def _clip(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _LIMIT else text[: _LIMIT - 1].rstrip() + "…"


def _measures(sentence: str, figure_at: int, citation: Citation) -> str:
    before = sentence[:figure_at]
    names = (citation.title, (citation.title or "").split(":")[0], re.split(r"[,:(]", citation.label)[0])
    for name in sorted({n.strip() for n in names if n and n.strip()}, key=len, reverse=True):
        if name and before.lower().startswith(name.lower()):
            before = before[len(name):]
    before = re.sub(r"^\s*(?:we|this\s+\w+|it|our\s+\w+)\b", "", before, flags=re.IGNORECASE)
    return _clip(_TRAILING.sub("", before).strip(" ,:;-"))


def row_for(citation: Citation, sentences: Sequence[str], line: str) -> EvidenceRow:
    """One paper's row: its figure, what the figure measures, on what, and the passage."""
    sentence = next((s for s in sentences if s), citation.passage)
    bold = _BOLD.search(line)
    figure = bold.group(1) if bold else ""
    at = sentence.find(figure) if figure else -1
    if at == -1:
        spans = number_spans(sentence)
        figure, at = (spans[0].group(0), spans[0].start()) if spans else ("", -1)
    measures = _measures(sentence, at, citation) if at > 0 else ""
    dataset = _DATASET.search(sentence[at + len(figure):]) if at >= 0 else None
    return EvidenceRow(key=citation.key, paper_id=citation.paper_id, paper=citation.label,
                       link=citation.link, finding=figure or _clip(sentence), measures=measures,
                       on=_clip(dataset.group(1)) if dataset else "", passage=citation.passage)


def evidence_table(answer: Answer, *, listing: bool) -> tuple[EvidenceRow, ...]:
    """The rows of a list or comparison answer (``listing``) that cites two papers or more."""
    if not listing or answer.abstained or len(answer.citations) < MIN_ROWS:
        return ()
    lines = _lines_by_key(answer.text)
    rows = []
    for citation in sorted(answer.citations, key=lambda c: c.key):
        said = [s.text for s in answer.sentences if citation.key in s.keys]
        rows.append(row_for(citation, said, lines.get(citation.key, "")))
    return tuple(rows)
