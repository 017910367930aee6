"""Past one machine: catalogue snapshots by generation (docs/scaling.md, "N machines").

Vectors live in Chroma's server, which every machine shares. The catalogue and keyword index
are one SQLite file per generation, written by one ingest at a time, so they are not shared as
a database: with ``RAG_STORE__SNAPSHOT_DIR`` set to a shared folder (NFS, a synced bucket, ...)

- ``rag ingest`` takes the folder's writer lease (``lease.py``: one writer across machines),
  and publishes each generation it stamps: a consistent copy of the catalogue made with
  SQLite's backup API (``papers-gN.sqlite``), then the shared stamp ``index.json``, last, with
  the copy's sha256 in it. It publishes only over the generation it started from (a
  compare-and-swap), never over another publisher's;
- every service (``rag serve``, ``rag slack``, ``rag ask``) copies the newest published
  catalogue into its own data directory, checks the copy against the checksum, and stamps it
  there, after which the live index (``live.py``) swaps it in as it does after a local ingest.

File names come from generation numbers, never from the stamp's text, and resolve inside the
folder or the data directory. A snapshot file is never opened in the shared folder, only copied
out of it, so a reader never sees a half-written file.
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import sqlite3
import threading
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from rag.errors import StoreError
from rag.index.stamp import (
    STAMP_FILE,
    Stamp,
    StampConflict,
    catalog_name,
    catalog_number,
    file_token,
    generation_on_disk,
    inside,
    read_stamp_file,
    stamp_lock,
    stamp_path,
    swap_stamp,
    write_stamp_file,
)

if TYPE_CHECKING:
    from rag.index.lease import Lease
    from rag.settings import Settings

log = logging.getLogger(__name__)
KEEP = 2  # published snapshots kept: the newest and the one before (a follower may be copying it)
REPUBLISH = "Run `rag ingest` on the ingesting machine to publish the index again."


class SnapshotMismatch(StoreError):
    """A copied snapshot does not match the checksum its stamp gives."""


def _shared(settings: Settings) -> Path | None:
    return settings.store.snapshot_dir


def shared_stamp(settings: Settings) -> Stamp | None:
    """The newest published generation; None when nothing is published. StampError when the
    shared stamp cannot be read or names what it may not."""
    folder = _shared(settings)
    return None if folder is None else read_stamp_file(folder / STAMP_FILE, settings.collection, REPUBLISH)


def shared_generation(settings: Settings) -> int:
    """The published generation: 0 when none, -1 when the shared stamp cannot be read."""
    folder = _shared(settings)
    return 0 if folder is None else generation_on_disk(folder / STAMP_FILE, settings.collection)


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def _backup(source: Path, target: Path) -> None:
    reading, writing = sqlite3.connect(f"file:{source}?mode=ro", uri=True), sqlite3.connect(target)
    try:
        reading.backup(writing)
    finally:
        writing.close()
        reading.close()


def needs_publishing(settings: Settings, live: Stamp, shared: int) -> bool:
    """Whether the live generation is not (or not properly) published yet."""
    if _shared(settings) is None or shared > live.generation:
        return False
    if shared < live.generation:
        return True
    try:
        published = shared_stamp(settings)
    except StoreError:
        return True
    return published is None or not published.checksum


def publish_snapshot(settings: Settings, stamp: Stamp, based_on: int,
                     lease: Lease | None = None) -> Path | None:
    """Copy the stamped catalogue to the shared folder and stamp it there, last, with its
    checksum; only while the shared stamp still holds ``based_on`` (the generation this writer
    started from: 0 none, -1 unreadable). Otherwise StampConflict, and nothing is replaced."""
    folder = _shared(settings)
    if folder is None:
        return None
    name = catalog_name(stamp.generation)
    temporary = folder / f"{name}.tmp-{os.getpid()}-{threading.get_ident()}"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        _backup(inside(settings.data_dir, stamp.catalog), inside(folder, temporary.name))
        published = replace(stamp, catalog_of=stamp.generation, checksum=sha256_of(temporary))
        with stamp_lock(folder / STAMP_FILE):
            if lease is not None:
                lease.check()
            found = generation_on_disk(folder / STAMP_FILE, settings.collection)
            if found != based_on:
                raise StampConflict(
                    f"another machine published generation {found} to {folder} while this ingest "
                    f"ran (from generation {based_on}); nothing was published over it. Run `rag "
                    "ingest` again: it takes the newest published generation first.")
            os.replace(temporary, inside(folder, name))
            write_stamp_file(folder / STAMP_FILE, published)
    except (OSError, sqlite3.Error) as exc:
        raise StoreError(f"the index was built but could not be published to {folder} ({exc}). "
                         "Check that RAG_STORE__SNAPSHOT_DIR is writable and has space, then run "
                         "`rag ingest` again (nothing is re-embedded).") from exc
    finally:
        temporary.unlink(missing_ok=True)
    _prune(folder, keep=KEEP)
    return folder / name


def follow_snapshot(settings: Settings) -> bool:
    """Bring the newest published catalogue into the local data directory, checked against its
    checksum, and stamp it there. True when a newer generation was taken; False when there is
    nothing newer (or no folder, or the copy failed and is tried again later). An unreadable
    shared stamp or a snapshot that does not match raises; an unreadable local stamp is healed."""
    shared = shared_stamp(settings)
    if shared is None:
        return False
    local = generation_on_disk(stamp_path(settings), settings.collection)
    if shared.generation <= local:
        return False
    folder = _shared(settings)
    assert folder is not None
    name = catalog_name(shared.generation)
    if not shared.checksum:
        raise SnapshotMismatch(f"the published stamp in {folder} has no checksum for {name}, so the "
                               f"copy cannot be checked; not taken. {REPUBLISH}")
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    temporary = settings.data_dir / f"{name}.tmp-{os.getpid()}-{threading.get_ident()}"
    try:
        shutil.copyfile(inside(folder, name), inside(settings.data_dir, temporary.name))
        if sha256_of(temporary) != shared.checksum:
            raise SnapshotMismatch(f"the published snapshot {folder / name} does not match the checksum "
                                   f"in its stamp (a damaged or altered file); not taken. {REPUBLISH}")
        os.replace(temporary, inside(settings.data_dir, name))
    except OSError as exc:  # pruned while we copied, or the share is down: try again later
        log.warning("could not copy snapshot %s: %s", name, exc)
        return False
    finally:
        temporary.unlink(missing_ok=True)
    try:
        swap_stamp(settings, replace(shared, catalog_of=shared.generation), expected=local)
    except StampConflict:  # another follower (or an ingest) stamped first
        if generation_on_disk(stamp_path(settings), settings.collection) >= shared.generation:
            return False
        raise
    _prune(settings.data_dir, keep=KEEP + 1, live=name)
    log.info("followed published index generation %s", shared.generation)
    return True


def snapshot_token(settings: Settings) -> tuple[int, int, int] | None:
    """One ``stat`` of the shared stamp: it changes when an ingest publishes."""
    folder = _shared(settings)
    return file_token(folder / STAMP_FILE) if folder is not None else None


def _prune(folder: Path, keep: int, live: str | None = None) -> None:
    """Remove all but the newest ``keep`` snapshot catalogues (never the live one)."""
    numbered = [(n, p) for p in folder.glob("papers-g*.sqlite") if (n := catalog_number(p.name))]
    for _, old in sorted(numbered)[:-keep]:
        if old.name == live:
            continue
        for path in (old, old.with_name(old.name + "-wal"), old.with_name(old.name + "-shm")):
            path.unlink(missing_ok=True)
