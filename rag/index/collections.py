"""Collections: the bundled corpus is the ``demo`` collection (the data directory itself, as
before); a collection of your own, ``rag ingest my.bib --collection mine`` or
``RAG_COLLECTION=mine``, lives in ``<data dir>/collections/mine`` with its own catalogue and
vectors, so your library is never mixed into the demo. ``in_collection`` is the one place a
name becomes a data directory; ``load_settings`` applies it to RAG_COLLECTION."""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from rag.errors import InputError
from rag.settings import Settings

DEMO = "demo"
LEGACY = "abstracts"  # the demo's vector collection name (indexes built before collections)
FOLDER = "collections"
_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,62}$")


@dataclass(frozen=True)
class CollectionInfo:
    name: str
    papers: int  # 0: not ingested yet
    data_dir: Path


def name_of(settings: Settings) -> str:
    return DEMO if settings.collection in (DEMO, LEGACY) else settings.collection


def root_of(settings: Settings) -> Path:
    """The data directory that holds every collection (the demo's own)."""
    data_dir = settings.data_dir
    if data_dir.parent.name == FOLDER and data_dir.name == settings.collection:
        return data_dir.parent.parent
    return data_dir


def in_collection(settings: Settings, name: str | None = None) -> Settings:
    """Settings for the collection ``name`` (default: the one the settings name)."""
    name = (name or settings.collection).strip().lower()
    root = root_of(settings)
    if name in (DEMO, LEGACY):
        return settings.model_copy(update={"data_dir": root, "collection": LEGACY})
    if not _NAME.match(name):
        raise InputError(f"{name!r} is not a collection name: use lower-case letters, digits, '-' "
                         "and '_' (up to 63), e.g. --collection my-library.")
    return settings.model_copy(update={"data_dir": root / FOLDER / name, "collection": name})


def _paper_count(data_dir: Path) -> int:
    """Papers in a collection's newest catalogue, read without opening the vector store."""
    catalogs = sorted(data_dir.glob("papers*.sqlite"), key=lambda p: p.stat().st_mtime)
    if not catalogs:
        return 0
    try:
        db = sqlite3.connect(f"file:{catalogs[-1]}?mode=ro", uri=True)
        try:
            return int(db.execute("SELECT count(*) FROM papers").fetchone()[0])
        finally:
            db.close()
    except sqlite3.Error:
        return 0


def list_collections(settings: Settings) -> list[CollectionInfo]:
    """The demo and every collection ingested beside it, with their paper counts."""
    root = root_of(settings)
    found = [CollectionInfo(DEMO, _paper_count(root), root)]
    folder = root / FOLDER
    if folder.is_dir():
        found += [CollectionInfo(p.name, _paper_count(p), p) for p in sorted(folder.iterdir())
                  if p.is_dir() and _NAME.match(p.name)]
    return found
