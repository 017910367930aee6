"""``rag ingest --rebuild``: the whole index again, into a new catalogue file and collection
beside the live ones (which keep serving), swapped in at the end by the stamp.

- A rebuild from some sources drops the papers of every other source: it says how many, from
  which files, and goes ahead only when told to (``drop_others``, the CLI's ``--yes``).
- A rebuild that was stopped (Ctrl-C, kill -9) leaves its collection behind: the next rebuild
  resumes it, so every chunk it had embedded is reused, and the vectors of papers that are no
  longer part of the rebuild are removed at the end. Its half-written catalogue is rebuilt
  (reading it again costs no embedding).
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Iterable
from pathlib import Path

from rag.errors import IndexMismatchError, InputError
from rag.index.chroma import chroma_client, collection_names
from rag.index.embedding import Embedder
from rag.index.library import Library, open_library
from rag.index.stamp import Stamp, catalog_number, collection_build, inside
from rag.ingest.formats import scan
from rag.ingest.origins import origin_of
from rag.ingest.pipeline import IngestReport, Progress, StopCheck, index_files
from rag.ingest.session import writer_session
from rag.settings import Settings

log = logging.getLogger(__name__)


def rebuild(settings: Settings, paths: Iterable[Path], progress: Progress | None = None, *,
            embedder: Embedder | None = None, batch_size: int = 64,
            should_stop: StopCheck = lambda: False, drop_others: bool = False,
            wait: float = 0.0) -> IngestReport:
    """Build the whole index again from ``paths`` and swap it in. Stopped half-way, the live
    index is untouched and the next rebuild resumes."""
    paths = list(paths)
    with writer_session(settings, wait=wait, rebuild=True) as session:
        live = session.start.live
        if not drop_others:
            refuse_drops(settings, live, paths)
        client = chroma_client(settings)
        stopped = stopped_build(settings, client, live)
        target = live.next_build(stopped)
        _drop_catalogue(settings, target.catalog)
        lib = _open_target(settings, target, embedder, client, resumed=stopped is not None)
        try:
            report = index_files(lib, paths, progress, batch_size, should_stop)
            report.resumed = stopped is not None
            if report.resumed:
                _remove_strays(lib)
            report.removed = dropped_papers(settings.data_dir / live.catalog, lib.catalog.path)
            session.finish(lib, report, force=True)
        finally:
            lib.close()
        _drop_old_generations(settings, keep={live.collection, target.collection},
                              keep_files={live.catalog, target.catalog})
        return report


def papers_outside(catalog: Path, paths: Iterable[Path]) -> tuple[int, int, list[str]]:
    """Papers of this catalogue, and duplicates merged into papers, that none of these files (or
    folders) gave, and the names of the files that did. Records indexed before origins were kept
    count by file name."""
    files = [f for p in paths if Path(p).exists() for f in scan(Path(p))[0]]
    origins, names = {origin_of(f) for f in files}, {f.name for f in files}
    db = sqlite3.connect(f"file:{catalog}?mode=ro", uri=True, timeout=30)
    try:
        records = db.execute("SELECT id, source, 0 FROM papers UNION ALL SELECT alias, source, 1 FROM aliases")
        given: dict[str, tuple[str, set[str]]] = {}
        merged: set[str] = set()
        for pid, source, alias in records:
            given[pid] = (source, set())
            merged.update([pid] if alias else [])
        try:
            for pid, origin in db.execute("SELECT paper_id, origin FROM origins"):
                if pid in given:
                    given[pid][1].add(origin)
        except sqlite3.OperationalError:  # no origins table: only file names are known
            pass
    finally:
        db.close()
    dropped = {pid: (source, found) for pid, (source, found) in given.items()
               if (found and not found & origins) or (not found and source not in names)}
    sources = {Path(o).name for _, found in dropped.values() for o in found}
    sources |= {s for s, found in dropped.values() if not found}
    aliases = len(dropped.keys() & merged)
    return len(dropped) - aliases, aliases, sorted(sources)


def refuse_drops(settings: Settings, live: Stamp, paths: list[Path]) -> None:
    catalog = settings.data_dir / live.catalog
    if not catalog.exists():
        return
    count, merged, files = papers_outside(inside(settings.data_dir, live.catalog), paths)
    if count or merged:
        shown = ", ".join(files[:5]) + (f" and {len(files) - 5} more" if len(files) > 5 else "")
        noun = "paper" if count == 1 else "papers"
        also = f" (and {merged} duplicate{'s' if merged > 1 else ''} merged into papers)" if merged else ""
        where = "1 file" if len(files) == 1 else f"{len(files)} files"
        raise InputError(f"{count} {noun}{also} from {where} not in this rebuild would be "
                         f"removed ({shown}). List those files too (`rag ingest --rebuild FILE ...`), "
                         "or add --yes to remove them.")


def stopped_build(settings: Settings, client: object, live: Stamp) -> int | None:
    """The build of a rebuild that was stopped before it stamped (a collection newer than the
    live build), to resume; None when there is none."""
    builds = [b for name in collection_names(client)
              if (b := collection_build(settings.collection, name)) is not None and b > live.build]
    return max(builds, default=None)


def _open_target(settings: Settings, target: Stamp, embedder: Embedder | None, client: object,
                 resumed: bool) -> Library:
    try:
        return open_library(settings, embedder=embedder, stamp=target)
    except IndexMismatchError:  # the stopped rebuild used another embedder: start it afresh
        if not resumed:
            raise
        log.warning("the stopped rebuild's collection %s was built differently; starting afresh",
                    target.collection)
        client.delete_collection(target.collection)  # type: ignore[attr-defined]
        return open_library(settings, embedder=embedder, stamp=target)


def _remove_strays(lib: Library) -> None:
    """Vectors a stopped rebuild stored for papers this one does not have."""
    kept = {r[0] for r in lib.catalog.db.execute("SELECT id FROM chunks")}
    strays = sorted(lib.vectors.all_ids() - kept)  # type: ignore[attr-defined]
    if strays:
        log.info("removing %d vectors the stopped rebuild left for papers not in this one", len(strays))
        lib.vectors.delete(strays)


def dropped_papers(old: Path, new: Path) -> int:
    """Papers of the old catalogue the new one has neither as a paper nor as a merged duplicate."""
    if not old.exists() or old.resolve() == new.resolve():
        return 0
    db = sqlite3.connect(f"file:{new}?mode=ro", uri=True, timeout=30)
    try:
        db.execute("ATTACH DATABASE ? AS old", (f"file:{old}?mode=ro",))
        return int(db.execute(
            "SELECT count(*) FROM old.papers WHERE id NOT IN "
            "(SELECT id FROM main.papers UNION SELECT alias FROM main.aliases)").fetchone()[0])
    finally:
        db.close()


def _drop_catalogue(settings: Settings, name: str) -> None:
    for suffix in ("", "-wal", "-shm"):
        inside(settings.data_dir, f"{name}{suffix}").unlink(missing_ok=True)


def _drop_old_generations(settings: Settings, keep: set[str], keep_files: set[str]) -> None:
    """Collections and catalogue files older than the previous generation (which a service may
    still be reading until it notices the swap), and those of stopped rebuilds, are removed."""
    client = chroma_client(settings)
    for name in collection_names(client):
        if collection_build(settings.collection, name) is not None and name not in keep:
            client.delete_collection(name)
    for path in settings.data_dir.glob("papers*.sqlite"):
        if catalog_number(path.name) is not None and path.name not in keep_files:
            _drop_catalogue(settings, path.name)
