"""What an answer cited, as a reference manager reads it: BibTeX, RIS or CSL-JSON. Each record
carries what the catalogue knows (title, authors, year, venue, DOI, arXiv id, URL, abstract) and
nothing it does not: a bundled paper without a title is exported under its label, said so in a
note. The project's own readers (rag.ingest.formats) read every export back."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

import rispy

from rag.errors import InputError
from rag.types import Paper

FORMATS = {"bib": ("BibTeX", "application/x-bibtex", "bib"),
           "ris": ("RIS", "application/x-research-info-systems", "ris"),
           "csl": ("CSL-JSON", "application/vnd.citationstyles.csl+json", "json")}
_LATEX_SPECIAL = str.maketrans({"%": r"\%", "&": r"\&", "#": r"\#", "_": r"\_", "$": r"\$",
                                "{": r"\{", "}": r"\}", "\\": r"\textbackslash{}"})
UNTITLED_NOTE = "no title in the record; the title is the label the collection shows"


def export(papers: Sequence[Paper], fmt: str) -> str:
    """The papers in ``fmt`` ("bib", "ris" or "csl")."""
    if fmt not in FORMATS:
        raise InputError(f"unknown export format {fmt!r}; use one of: {', '.join(FORMATS)} "
                         "(BibTeX, RIS, CSL-JSON).")
    return {"bib": bibtex, "ris": ris, "csl": csl_json}[fmt](papers)


def _title(paper: Paper) -> str:
    return paper.title or paper.label


def _split(name: str) -> tuple[str, str]:
    """(family, given): "Jane Q. Doe" -> ("Doe", "Jane Q.")."""
    parts = name.split()
    return (parts[-1], " ".join(parts[:-1])) if len(parts) > 1 else (name, "")


def _key(paper: Paper) -> str:
    return re.sub(r"[^A-Za-z0-9:_\-.]", "_", paper.id) or "paper"


def bibtex(papers: Sequence[Paper]) -> str:
    entries = []
    for p in papers:
        fields = {"title": _title(p),
                  "author": " and ".join(f"{f}, {g}" if g else f for f, g in map(_split, p.authors))
                  + (" and others" if p.authors_truncated else ""),
                  "year": str(p.year or ""), "journal": p.venue or "", "doi": p.doi or "",
                  "url": p.url or "", "eprint": p.arxiv_id or "",
                  "archiveprefix": "arXiv" if p.arxiv_id else "", "abstract": p.abstract,
                  "note": "" if p.title else UNTITLED_NOTE}
        body = ",\n".join(f"  {name} = {{{value.translate(_LATEX_SPECIAL)}}}"
                          for name, value in fields.items() if value)
        entries.append(f"@article{{{_key(p)},\n{body}\n}}\n")
    return "\n".join(entries)


def ris(papers: Sequence[Paper]) -> str:
    records = []
    for p in papers:
        record = {"type_of_reference": "JOUR", "id": p.id, "title": _title(p),
                  "authors": [f"{f}, {g}" if g else f for f, g in map(_split, p.authors)],
                  "year": str(p.year) if p.year else None, "secondary_title": p.venue, "doi": p.doi,
                  "urls": [u for u in (p.link, p.url) if u] or None, "abstract": p.abstract or None,
                  "notes": None if p.title else [UNTITLED_NOTE]}
        records.append({k: v for k, v in record.items() if v})
    return rispy.dumps(records)


def csl_json(papers: Sequence[Paper]) -> str:
    items = []
    for p in papers:
        item: dict[str, Any] = {"id": p.id, "type": "article-journal", "title": _title(p),
                "author": [{"family": f, "given": g} if g else {"literal": f} for f, g in map(_split, p.authors)],
                "abstract": p.abstract}
        item |= {k: v for k, v in (("issued", {"date-parts": [[p.year]]} if p.year else None),
                                   ("container-title", p.venue), ("DOI", p.doi), ("URL", p.link or p.url),
                                   ("note", None if p.title else UNTITLED_NOTE)) if v}
        items.append(item)
    return json.dumps(items, ensure_ascii=False, indent=2) + "\n"
