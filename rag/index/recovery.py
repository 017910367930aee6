"""An unreadable or missing stamp is recovered from the data directory itself: every ingest
writes the generation it stamps (and its build) into the catalogue's ``meta`` table before the
stamp, so the newest catalogue that is intact, stamped and whose vector collection holds at
least its chunks is the newest generation the index had. Used by writers only (under the
writer lock); a running service keeps serving what it has open and says why."""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rag.index.stamp import Stamp, catalog_number, collection_build

if TYPE_CHECKING:
    from rag.settings import Settings

log = logging.getLogger(__name__)


def _meta(path: Path, base: str) -> tuple[int, int, int, int] | None:
    """(generation, build, papers, chunks) of an intact, stamped catalogue file, else None."""
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
        try:
            if db.execute("PRAGMA quick_check").fetchone()[0] != "ok":
                return None
            meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
            papers = int(db.execute("SELECT count(*) FROM papers").fetchone()[0])
            chunks = int(db.execute("SELECT count(*) FROM chunks").fetchone()[0])
        finally:
            db.close()
    except sqlite3.Error:
        return None
    generation = str(meta.get("generation", ""))
    build = meta.get("build")
    if build is None:  # written before the build was kept: read it from the collection name
        found = collection_build(base, str(meta.get("collection", "")))
        build = None if found is None else str(found)
    if not generation.isdigit() or build is None or not str(build).isdigit():
        return None
    return int(generation), int(build), papers, chunks


def _vectors(client: Any, name: str) -> int:
    try:
        return int(client.get_collection(name).count())
    except Exception:  # noqa: BLE001  no such collection, or a damaged one: not intact
        return -1


def recover_stamp(settings: Settings, client: Any) -> Stamp | None:
    """The newest intact generation on disk, or None when there is none."""
    base = settings.collection
    best: Stamp | None = None
    for path in sorted(settings.data_dir.glob("papers*.sqlite")):
        number = catalog_number(path.name)
        found = None if number is None else _meta(path, base)
        if number is None or found is None:
            continue
        generation, build, papers, chunks = found
        candidate = Stamp(generation, build, number, papers, chunks, base=base)
        if best is not None and (generation, number) <= (best.generation, best.catalog_of):
            continue
        if _vectors(client, candidate.collection) < chunks:
            log.warning("%s (generation %s) is not intact: its vectors are missing", path.name, generation)
            continue
        best = candidate
    return best
