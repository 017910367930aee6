"""Figures given "respectively": "an average increase of 5.8, 3.9, and 2.1 percentage points on
RETFound, UrFound, and VisionFM, respectively" gives RETFound's figure in the first place. A
question about one of the enumerated things asks for the figure in its place, not the figure
nearest the question's words.

The sentence is cut at its enumeration marks (", ", ", and ", " and "); an enumeration is a run
of pieces that ends at an "and" (or "or"). The figures' enumeration has a figure at each joint
("5.8, 3.9, and 2.1 ..."); an enumeration of as many other things is the one whose places they
fill (", and" closes a list of three or more, so "ImageNet, and MSCOCO" is no pair). An item is
named by its word at the list's edge ("... on the retinal FMs RETFound", "GZSL settings"), and
the question picks a place when exactly one item's name is among its words."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rag.text.lexicon import STOPWORDS, tokens

_MARK = re.compile(r"\s*,\s*(?:(?:and|or)\s+)?|\s+(?:and|or)\s+")
_SIGN = " +-−~≈"
_EDGE = 1  # words at an item's outer edge that name it


@dataclass(frozen=True)
class _Piece:
    start: int
    end: int
    closes: bool  # the mark after it says "and" / "or": the next piece ends an enumeration
    serial: bool = False  # ... and with a comma (", and"): the enumeration has three items or more


def _pieces(text: str) -> list[_Piece]:
    out, at = [], 0
    for mark in _MARK.finditer(text):
        if mark.start() > at:
            closes = bool(re.search(r"\b(?:and|or)\b", mark.group(0)))
            out.append(_Piece(at, mark.start(), closes, closes and "," in mark.group(0)))
            at = mark.end()
    out.append(_Piece(at, len(text), False))
    return out


def _figure_runs(text: str, pieces: Sequence[_Piece],
                 spans: Sequence[re.Match[str]]) -> list[tuple[int, list[re.Match[str]]]]:
    """Each enumeration of figures, with the index of its first piece: the first piece ends with
    a figure, the middle ones are a figure and nothing else, the last begins with one."""
    def at_start(piece: _Piece) -> re.Match[str] | None:
        chunk = text[piece.start:piece.end]
        lead = piece.start + len(chunk) - len(chunk.lstrip(_SIGN))
        return next((m for m in spans if m.start() == lead), None)

    def at_end(piece: _Piece) -> re.Match[str] | None:
        return next((m for m in spans if m.end() == len(text[:piece.end].rstrip(" .;:"))
                     and m.start() >= piece.start), None)

    runs = []
    for i in range(1, len(pieces)):
        if not pieces[i - 1].closes or (last := at_start(pieces[i])) is None:
            continue
        run, j = [last], i - 1
        while j > 0 and not pieces[j - 1].closes and (only := at_start(pieces[j])) is not None \
                and only.end() == pieces[j].end:
            run.insert(0, only)
            j -= 1
        if (first := at_end(pieces[j])) is not None:
            runs.append((j, [first, *run]))
    return runs


def _words(text: str) -> list[str]:
    return [w.lower() for w in tokens(text) if w.lower() not in STOPWORDS]


def respective(text: str, spans: Sequence[re.Match[str]],
               question: str) -> tuple[re.Match[str], re.Match[str]] | None:
    """The figure whose place in a "respectively" enumeration the question names, and the
    enumeration's last figure (it carries the unit of all: "5.8" of "5.8, 3.9, and 2.1 percentage
    points" is a share); None when the sentence gives no such enumeration or the question picks
    no single place."""
    if not re.search(r"\brespectively\b", text, re.IGNORECASE):
        return None
    pieces = _pieces(text)
    asked = set(_words(question))
    picks = set()
    for first, figures in _figure_runs(text, pieces, spans):
        n = len(figures)
        for i in range(n - 1, len(pieces)):
            if i - n + 1 == first or not pieces[i - 1].closes or (n == 2 and pieces[i - 1].serial) \
                    or any(pieces[k].closes for k in range(i - n + 1, i - 1)):
                continue  # the figures' own enumeration, or no enumeration of n things
            items = [text[p.start:p.end] for p in pieces[i - n + 1:i + 1]]
            keys = [_words(item)[-_EDGE:] if k == 0 else _words(item)[:_EDGE] if k == n - 1 else _words(item)
                    for k, item in enumerate(items)]
            common = set.intersection(*(set(k) for k in keys))
            shared = [len((set(k) - common) & asked) for k in keys]
            if max(shared) > 0 and shared.count(max(shared)) == 1:
                picks.add((figures[shared.index(max(shared))], figures[-1]))
    return next(iter(picks)) if len(picks) == 1 else None
