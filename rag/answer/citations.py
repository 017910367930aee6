"""Turning a Draft into answer text with dense ``[n]`` keys and paper-level Citations."""

from __future__ import annotations

from collections.abc import Sequence

from rag.types import Citation, Draft, Paper


def attach_citations(draft: Draft, papers: dict[str, Paper],
                     unsupported: frozenset[int] = frozenset()) -> tuple[str, tuple[Citation, ...]]:
    """Keys are numbered by first use; each key is one paper; a sentence whose papers are all
    unknown is dropped (never shown without a source). List items ("- ...") go on new lines."""
    keys: dict[str, int] = {}
    passages: dict[str, str] = {}
    parts: list[str] = []
    for index, sentence in enumerate(draft.sentences):
        mark = " (unsupported)" if index in unsupported else ""
        if sentence.framing:
            parts.append(sentence.text)
            continue
        known = [pid for pid in sentence.paper_ids if pid in papers]
        if not known:
            if mark:
                parts.append(f"{sentence.text.rstrip()}{mark}")
            continue
        for pid in known:
            if pid not in keys:
                keys[pid] = len(keys) + 1
                passages[pid] = sentence.text
        marks = "".join(f"[{keys[pid]}]" for pid in known)
        parts.append(f"{sentence.prefix}{sentence.text.rstrip()} {marks}{mark}")
    citations = tuple(_citation(key, papers[pid], passages[pid]) for pid, key in keys.items())
    if not citations:
        return "", ()
    text = "".join(p if i == 0 else ("\n" if p.startswith("- ") else " ") + p
                   for i, p in enumerate(parts))
    return text, citations


def _citation(key: int, paper: Paper, passage: str) -> Citation:
    return Citation(key=key, paper_id=paper.id, label=paper.label, passage=passage,
                    authors=paper.authors, venue=paper.venue, year=paper.year, title=paper.title,
                    link=paper.link)


def papers_by_id(papers: Sequence[Paper]) -> dict[str, Paper]:
    return {p.id: p for p in papers}


def keys_of(draft: Draft, citations: tuple[Citation, ...]) -> list[tuple[int, ...]]:
    """The final keys of each draft sentence (empty for framing and uncited ones)."""
    by_paper = {c.paper_id: c.key for c in citations}
    return [tuple(by_paper[p] for p in s.paper_ids if p in by_paper) for s in draft.sentences]
