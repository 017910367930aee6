"""Whether two records are the same paper, from evidence only: the same DOI or arXiv id, the same
title, identical text, or near-identical text with nothing that tells them apart. What tells two
records apart: different DOIs (or arXiv ids), a method name, name or figure that each says and the
other does not (templated abstracts that differ only in "Milfinyolix ... 67%" against
"Jorqualunix ... 11%"; a word some text writes in lower case is no name), or author lists that
share no surname (a list written another way, cut or extended still shares one). A title match
needs the abstracts to agree too (``dedupe.py``)."""

from __future__ import annotations

import re

from rag.text.authors import fold, name_tokens
from rag.text.lexicon import STOPWORDS
from rag.text.names import method_name
from rag.types import Paper

_DOI = re.compile(r"\b(10\.\d{4,9}/[^\s\"<>]+)", re.IGNORECASE)
_ARXIV = re.compile(r"(?:arxiv\.org/(?:abs|pdf)/|arxiv:|^)(\d{4}\.\d{4,5}|[a-z\-]+(?:\.[A-Z]{2})?/\d{7})"
                    r"(?:v\d+)?(?:\.pdf)?$", re.IGNORECASE)
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9\-]*[A-Za-z0-9]|[A-Za-z]")
_FIGURE = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)*")


def identifiers(paper: Paper) -> set[str]:
    """``doi:…`` and ``arxiv:…`` ids found in the record's url or id (lower case, no version)."""
    found: set[str] = set()
    for value in (paper.url or "", paper.id):
        if doi := _DOI.search(value):
            found.add("doi:" + doi.group(1).rstrip(".,;)").lower())
        elif arxiv := _ARXIV.search(value.strip()):
            found.add("arxiv:" + arxiv.group(1).lower())
    return found


def title_key(paper: Paper) -> str | None:
    """The title in lower case without accents, punctuation or spacing; None when too short to
    tell papers apart (under three words)."""
    words = re.findall(r"[a-z0-9]+", fold(paper.title or ""))
    return " ".join(words) if len(words) >= 3 else None


def same_file(a: Paper, b: Paper) -> bool:
    return bool(a.source) and a.source == b.source


def _marks(text: str, plain: set[str]) -> tuple[set[str], set[str]]:
    """Names (capitalised words that are not plain vocabulary: never written in lower case in
    either text, not stop words) and figures, lower-cased."""
    words = _WORD.findall(text)
    names = {w.lower() for w in words if any(c.isupper() for c in w)
             and w.lower() not in plain and w.lower() not in STOPWORDS}
    return names, {f.replace(",", "") for f in _FIGURE.findall(text)}


def _plain_words(*texts: str) -> set[str]:
    """Words some text writes in lower case: a capital at a sentence start is no name."""
    return {w for text in texts for w in _WORD.findall(text) if w.islower()}


def _each_has_its_own(a: set[str], b: set[str]) -> bool:
    return bool(a - b) and bool(b - a)


def _surnames(paper: Paper) -> set[str]:
    return {tokens[-1] for name in paper.authors if (tokens := name_tokens(name))}


def _ids_conflict(a: Paper, b: Paper) -> str | None:
    ids_a, ids_b = identifiers(a), identifiers(b)
    for kind in ("doi:", "arxiv:"):
        mine = {i for i in ids_a if i.startswith(kind)}
        theirs = {i for i in ids_b if i.startswith(kind)}
        if mine and theirs and not mine & theirs:
            return f"different {kind[:-1]}s"
    return None


def _authors_conflict(a: Paper, b: Paper) -> str | None:
    authors_a, authors_b = _surnames(a), _surnames(b)
    if authors_a and authors_b and not authors_a & authors_b:
        return "different author lists"
    return None


def conflict(a: Paper, b: Paper) -> str | None:
    """What says these two records are different papers, if anything."""
    if reason := _ids_conflict(a, b) or _authors_conflict(a, b):
        return reason
    method_a, method_b = method_name(a.text), method_name(b.text)
    if method_a and method_b and method_a.lower() != method_b.lower():
        return f"different method names ({method_a}, {method_b})"
    plain = _plain_words(a.text, b.text)
    (names_a, figures_a), (names_b, figures_b) = _marks(a.text, plain), _marks(b.text, plain)
    if _each_has_its_own(names_a, names_b):
        return "each names something the other does not"
    if _each_has_its_own(figures_a, figures_b):
        return "each gives a figure the other does not"
    return None


def same_by_record(a: Paper, b: Paper) -> bool:
    """The same DOI or arXiv id (in one file too: the ids are identical), or the same title in
    two files with no other id or author list against it."""
    if identifiers(a) & identifiers(b):
        return True
    title = title_key(a)
    return (title is not None and title == title_key(b) and not same_file(a, b)
            and not (_ids_conflict(a, b) or _authors_conflict(a, b)))
