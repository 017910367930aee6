"""Paper records: building them from raw fields, stable ids, and near-duplicate merging."""

from __future__ import annotations

import re
from dataclasses import replace

from rag.index.catalog import Catalog
from rag.index.catalog_schema import batches
from rag.index.dedupe import DuplicateFinder
from rag.text.check import tidy
from rag.text.clean import content_hash, dedupe_key, normalise
from rag.text.latex import READABLE_FIELDS, latex_to_text, readable
from rag.text.names import method_name
from rag.types import Paper

_ORG_TAGS = re.compile(r"\s+·\s+.*$")
_ET_AL = re.compile(r",?\s*et al\.?\s*$")


def make_paper(paper_id: str, abstract: str, **meta: object) -> Paper:
    """A Paper with its LaTeX made readable (abstract, title, venue, authors; the original
    abstract kept when it differs), its normalised text and the method name it introduces."""
    original = tidy(abstract).strip()
    abstract = latex_to_text(original).strip()
    text = normalise(abstract) if abstract else ""
    meta = {k: _tidied(v) for k, v in meta.items()}
    meta = {k: readable(v) if k in READABLE_FIELDS else v for k, v in meta.items()}
    return Paper(id=paper_id, abstract=abstract, text=text, method=method_name(text),
                 original=original if original != abstract else None, **meta)  # type: ignore[arg-type]


def _tidied(value: object) -> object:
    """NUL, other control characters, bidi overrides (U+202E) and zero-width characters out of a
    title, venue or author: they hide or reorder what a reader sees."""
    if isinstance(value, str):
        return " ".join(tidy(value).split())
    if isinstance(value, tuple):
        return tuple(" ".join(tidy(v).split()) if isinstance(v, str) else v for v in value)
    return value


def content_id(abstract: str) -> str:
    """An id for records that come without one: stable for the same abstract text."""
    return "h-" + dedupe_key(abstract)[:12]


def split_authors(raw: str) -> tuple[tuple[str, ...], bool]:
    """Names from an author string; the flag says the list was cut ("et al.")."""
    raw = _ORG_TAGS.sub("", raw.strip())
    truncated = bool(_ET_AL.search(raw))
    raw = _ET_AL.sub("", raw)
    return tuple(n for n in _names(raw) if n), truncated


def _names(raw: str) -> list[str]:
    """"A; B" and "A and B" separate names, so a comma inside one is "Last, First" ("Lee, Ann;
    Ray, Bob" is Ann Lee and Bob Ray); without them commas separate names ("Ann Lee, Bob Ray"),
    except that two single words ("Lee, Ann") are one name written last name first."""
    if not raw:
        return []
    if re.search(r";|\s+and\s+", raw):
        return [_first_last(p) for p in re.split(r"\s*;\s*|\s+and\s+", raw) if p.strip()]
    parts = [p.strip() for p in raw.split(",") if p.strip()]
    if len(parts) == 2 and all(len(p.split()) == 1 for p in parts) and not raw.rstrip().endswith("."):
        return [_first_last(raw)]
    return parts


def _first_last(name: str) -> str:
    last, comma, first = name.strip().partition(",")
    return f"{first.strip()} {last.strip()}".strip() if comma else name.strip()


def text_hash(paper: Paper) -> str:
    """What decides whether a paper must be re-indexed: its text and its metadata."""
    fields = (paper.text, paper.title, paper.authors, paper.year, paper.venue, paper.url,
              paper.abstract, paper.doi, paper.arxiv_id)
    return content_hash(repr(fields))


def merge(kept: Paper, duplicate: Paper) -> Paper:
    """Keep the first paper's id and the fuller text of the two (a shortened copy read first
    loses nothing of the full abstract read later); fill gaps from the duplicate and remember
    its id."""
    if len(duplicate.text.split()) > len(kept.text.split()):
        kept = replace(kept, abstract=duplicate.abstract, text=duplicate.text,
                       original=duplicate.original, method=duplicate.method or kept.method)
    return replace(
        kept,
        title=kept.title or duplicate.title,
        authors=kept.authors or duplicate.authors,
        authors_truncated=kept.authors_truncated if kept.authors else duplicate.authors_truncated,
        year=kept.year or duplicate.year,
        venue=kept.venue or duplicate.venue,
        url=kept.url or duplicate.url,
        doi=kept.doi or duplicate.doi,
        arxiv_id=kept.arxiv_id or duplicate.arxiv_id,
        method=kept.method or duplicate.method,
        aliases=tuple(dict.fromkeys((*kept.aliases, duplicate.id, *duplicate.aliases))),
    )


def undo_stale_merges(catalog: Catalog, papers: list[Paper], stored: dict[str, str],
                      finder: DuplicateFinder) -> list[str]:
    """Records an older version merged that today's rules would keep apart (a templated paper
    folded into its sibling): their alias is dropped and their stored hash forgotten, so this
    run indexes them as papers of their own. Returns their ids."""
    ids = [p.id for p in papers if p.id in stored]
    alias_of: dict[str, str] = {}
    for part, marks in batches(ids):
        alias_of.update(catalog.db.execute(
            f"SELECT alias, paper_id FROM aliases WHERE alias IN ({marks})", part).fetchall())
    undo = [p.id for p in papers if p.id in alias_of and stored[p.id] == text_hash(p)
            and finder.find(p) != alias_of[p.id]]
    if undo:
        catalog.remove(undo)
        for paper_id in undo:
            stored.pop(paper_id)
    return undo
