"""Text clean-up for embedding, sentence splitting and honest labels.

The original text is kept for display; these functions produce the normalised form.
"""

from __future__ import annotations

import hashlib
import re

from rag.text.latex import latex_to_text
from rag.text.lexicon import words_any_script

_MISSING_SPACE = re.compile(r"(?<=[a-z0-9\)\]%])([.?!])(?=[A-Z][a-z])")
_HYPHEN_BREAK = re.compile(r"\b([A-Za-z]{2,})- (?!and\b|or\b|to\b|as\b|vs\b)([a-z]{2,})\b")
_FOOTNOTE_TAIL = re.compile(r"(?<=[.!?])\s+\d{1,2}\s*$")
_SPACES = re.compile(r"\s+")
_GLUED_TIMES = re.compile(r"(?<=\d)times(?=\d|\b)")  # "200times faster": a lost LaTeX \times


_URL = re.compile(r"(https?://[^\s{}]+)")


def _clean_prose(t: str) -> str:
    t = latex_to_text(t)
    t = _MISSING_SPACE.sub(r"\1 ", t)
    t = _GLUED_TIMES.sub("×", t)
    return _HYPHEN_BREAK.sub(r"\1\2", t)


def normalise(text: str) -> str:
    """Clean one abstract for chunking and embedding (see data/README.md, 'Known quirks').
    URLs are left exactly as written."""
    t = _FOOTNOTE_TAIL.sub("", text.strip())
    parts = _URL.split(t)  # odd positions are URLs
    t = "".join(part if i % 2 else _clean_prose(part) for i, part in enumerate(parts))
    return _SPACES.sub(" ", t).strip()


def content_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def dedupe_key(text: str) -> str:
    """Identical for texts that differ only in case, spacing and punctuation, in any script
    (the same as before for ASCII text). A text with no letter or digit at all is keyed by the
    text itself, so no two different texts share the key of the empty string."""
    words = "".join(words_any_script(text))
    return content_hash(words or " ".join(text.split()))


_ABBREVIATIONS = ("e.g.", "i.e.", "et al.", "etc.", "vs.", "Fig.", "Eq.", "cf.", "approx.", "No.")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[]?[A-Z0-9])")


def split_sentences(text: str) -> list[str]:
    """Split normalised abstract text into sentences, keeping common abbreviations intact."""
    pieces = _SENTENCE_END.split(text.strip())
    sentences: list[str] = []
    for piece in pieces:
        if sentences and sentences[-1].endswith(_ABBREVIATIONS):
            sentences[-1] = f"{sentences[-1]} {piece}"
        else:
            sentences.append(piece)
    return [s.strip() for s in sentences if s.strip()]
