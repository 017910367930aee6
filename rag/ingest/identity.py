"""Which id a record gets (the rule for every format is in docs/ingest.md, "Identity").

- A record that carries an id (JSONL/CSV ``id``, BibTeX key, RIS ``ID``, CSL ``id``, OpenAlex
  work, arXiv id) keeps it.
- A record without one gets a content id: ``h-`` and a hash of its abstract, the same for the
  same text in any file, different for any two texts (any script: ``clean.dedupe_key``).
- A plain-text (bundled-format) paragraph gets ``<file name without extension>-<hash of the
  paragraph>``: an edit elsewhere in the file never moves it, and two files never mint the same
  id. The bundled corpus keeps the ids it has always had (``<prefix>-<line>``, which the eval
  gold ids use): ``rag/assets/bundled_ids.tsv`` maps each of its paragraphs to that id, by
  content, so an unchanged bundled abstract keeps its id in an edited copy too. The table is
  written by ``python -m rag.ingest.formats.seed`` (and checked by tests/rag/ingest/test_identity.py).
"""

from __future__ import annotations

import hashlib
import unicodedata
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from rag.ingest.formats.common import Problem
from rag.text.clean import dedupe_key
from rag.types import Paper

if TYPE_CHECKING:
    from rag.index.catalog import Catalog
    from rag.ingest.origins import Origins

BUNDLED_IDS = Path(__file__).resolve().parent.parent / "assets" / "bundled_ids.tsv"


def paragraph_key(text: str) -> str:
    """What identifies a plain-text paragraph: its text up to Unicode form and spacing."""
    folded = " ".join(unicodedata.normalize("NFC", text).split())
    return hashlib.sha256(folded.encode("utf-8", "surrogatepass")).hexdigest()[:16]


@cache
def _bundled() -> dict[tuple[str, str], str]:
    table: dict[tuple[str, str], str] = {}
    if BUNDLED_IDS.exists():
        for row in BUNDLED_IDS.read_text(encoding="utf-8").splitlines():
            paper_id, key = row.split("\t")
            table[(paper_id[:3], key)] = paper_id
    return table


def seed_id(file_name: str, paragraph: str) -> str:
    """The id of a plain-text paragraph: its bundled id when the bundled corpus has it (for a
    file of the same three-character prefix), else the file's stem and the paragraph's hash."""
    key = paragraph_key(paragraph)
    bundled = _bundled().get((file_name[:3], key))
    return bundled or f"{Path(file_name).stem}-{key[:10]}"


class IdClaims:
    """Duplicate ids are evidence, not keys: a record whose id another record of the same file,
    or a paper another file gave, already holds with a different text is kept apart under
    ``<id>~<hash of its text>`` and named in a notice (file:line of both records). The record
    that held the id first (earlier in the file, or already in the index from another file)
    keeps it, so nothing flips between runs. Identical records under one id are one paper."""

    def __init__(self, catalog: Catalog, origins: Origins, origin: str) -> None:
        self.catalog, self.origins, self.origin = catalog, origins, origin
        self.given: dict[str, tuple[int | None, str]] = {}  # id -> (line, key) in this file
        self.notices: list[Problem] = []

    def settle(self, paper: Paper) -> Paper:
        key = _record_key(paper)
        held = self.given.get(paper.id)
        where = None
        if held is not None and held[1] != key:
            where = f"{paper.source}:{held[0]}"
        elif held is None:
            where = self._held_elsewhere(paper, key)
        if where is None:
            self.given.setdefault(paper.id, (paper.line, key))
            return paper
        kept = f"{paper.id}~{key[:8]}"
        self.notices.append(Problem(paper.source, paper.line, f"id {paper.id!r} is also the id of "
                                    f"another record ({where}); this one is kept apart as {kept!r}"))
        self.given.setdefault(kept, (paper.line, key))
        return replace(paper, id=kept)

    def _held_elsewhere(self, paper: Paper, key: str) -> str | None:
        """Where another file's record holds this id with another text, or None."""
        stored = self.catalog.get(paper.id)
        if stored is None or stored.id != paper.id or _record_key(stored) == key:
            return None
        owners = self.origins.origins_of(paper.id)
        if self.origin in owners or (not owners and stored.source == paper.source):
            return None  # this file's own record, edited
        return f"{stored.source}:{stored.line}" if stored.line is not None else stored.source


def _record_key(paper: Paper) -> str:
    return dedupe_key(paper.text or repr((paper.title, paper.authors, paper.venue, paper.year)))
