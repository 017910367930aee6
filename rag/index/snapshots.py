"""Past one machine: catalogue snapshots by generation (docs/scaling.md, "N machines").

Vectors live in Chroma's server, which every machine shares. The catalogue and keyword index
are one SQLite file per generation, written by one ingest at a time, so they are not shared as
a database: with ``RAG_STORE__SNAPSHOT_DIR`` set to a shared folder (NFS, a synced bucket, ...)

- ``rag ingest`` publishes each generation it stamps: a consistent copy of the catalogue made
  with SQLite's backup API (``papers-gN.sqlite``), then the shared stamp ``index.json``, last;
- every service (``rag serve``, ``rag slack``, ``rag ask``) copies the newest published
  catalogue into its own data directory and stamps it there, after which the live index
  (``live.py``) swaps it in as it does after a local ingest. Reads stay local SQLite.

A snapshot file is never opened in the shared folder, only copied out of it, so a reader never
sees a half-written file and the shared storage needs no locking.
"""

from __future__ import annotations

import logging
import os
import shutil
import sqlite3
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from rag.errors import StoreError
from rag.index.stamp import STAMP_FILE, Stamp, file_token, read_stamp, read_stamp_file, write_stamp, write_stamp_file

if TYPE_CHECKING:
    from rag.settings import Settings

log = logging.getLogger(__name__)
KEEP = 2  # published snapshots kept: the newest and the one before (a follower may be copying it)


def _shared(settings: Settings) -> Path | None:
    return settings.store.snapshot_dir


def shared_stamp(settings: Settings) -> Stamp | None:
    """The newest published generation, or None when nothing is published (or readable)."""
    folder = _shared(settings)
    return read_stamp_file(folder / STAMP_FILE) if folder is not None else None


def publish_snapshot(settings: Settings, stamp: Stamp) -> Path | None:
    """Copy the stamped catalogue to the shared folder and stamp it there (last), unless that
    generation is published already."""
    folder = _shared(settings)
    published = shared_stamp(settings)
    if folder is None or (published is not None and published.generation >= stamp.generation):
        return None
    name = f"papers-g{stamp.generation}.sqlite"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        temporary = folder / f"{name}.tmp-{os.getpid()}"
        source = sqlite3.connect(settings.data_dir / stamp.catalog)
        target = sqlite3.connect(temporary)
        try:
            source.backup(target)
        finally:
            target.close()
            source.close()
        os.replace(temporary, folder / name)
        write_stamp_file(folder / STAMP_FILE, replace(stamp, catalog=name))
    except (OSError, sqlite3.Error) as exc:
        raise StoreError(f"the index was built but could not be published to {folder} ({exc}). "
                         "Check that RAG_STORE__SNAPSHOT_DIR is writable, then run `rag ingest` "
                         "again (nothing is re-embedded).") from exc
    _prune(folder, keep=KEEP)
    return folder / name


def follow_snapshot(settings: Settings) -> bool:
    """Bring the newest published catalogue into the local data directory and stamp it there.
    True when a newer generation was taken; False when there is nothing newer (or no folder)."""
    shared = shared_stamp(settings)
    if shared is None:
        return False
    local = read_stamp(settings)
    if shared.generation <= local.generation:
        return False
    folder = _shared(settings)
    assert folder is not None
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    temporary = settings.data_dir / f"{shared.catalog}.tmp-{os.getpid()}"
    try:
        shutil.copyfile(folder / shared.catalog, temporary)
        os.replace(temporary, settings.data_dir / shared.catalog)
    except OSError as exc:  # pruned while we copied, or the share is down: try again later
        temporary.unlink(missing_ok=True)
        log.warning("could not copy snapshot %s: %s", shared.catalog, exc)
        return False
    write_stamp(settings, shared)
    _prune(settings.data_dir, keep=KEEP + 1, live=shared.catalog)
    log.info("followed published index generation %s", shared.generation)
    return True


def snapshot_token(settings: Settings) -> tuple[int, int, int] | None:
    """One ``stat`` of the shared stamp: it changes when an ingest publishes."""
    folder = _shared(settings)
    return file_token(folder / STAMP_FILE) if folder is not None else None


def _prune(folder: Path, keep: int, live: str | None = None) -> None:
    """Remove all but the newest ``keep`` snapshot catalogues (never the live one)."""
    def generation(path: Path) -> int:
        digits = path.stem.removeprefix("papers-g")
        return int(digits) if digits.isdigit() else -1

    files = sorted((p for p in folder.glob("papers-g*.sqlite") if generation(p) >= 0), key=generation)
    for old in files[:-keep]:
        if old.name == live:
            continue
        for path in (old, old.with_name(old.name + "-wal"), old.with_name(old.name + "-shm")):
            path.unlink(missing_ok=True)
