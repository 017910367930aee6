"""Ingest: read files, merge duplicates, chunk, embed what changed, upsert. Idempotent.

Each batch is written to the vector index first and to the catalogue second, so an ingest that
is killed half-way leaves nothing the next run cannot finish: unfinished papers are simply
not in the catalogue yet, and their vectors (already in Chroma) are reused, not recomputed.
"""

from __future__ import annotations

import fcntl
import logging
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from rag.errors import FormatError, StoreError
from rag.index.embedding import Embedder, embed_batched
from rag.index.library import Library, open_library
from rag.index.snapshots import publish_snapshot
from rag.index.stamp import read_stamp, write_stamp
from rag.index.vectors import chroma_client, collection_names
from rag.ingest.formats import Problem, read_file, scan
from rag.ingest.origins import Origins, origin_of
from rag.ingest.papers import DuplicateFinder, merge, text_hash, undo_stale_merges
from rag.settings import Settings
from rag.types import Chunk, Paper

log = logging.getLogger(__name__)
Progress = Callable[[str, int], None]  # (event, amount): "total", "advance"
StopCheck = Callable[[], bool]


class IngestStopped(KeyboardInterrupt):
    """Raised between batches when a stop was requested (Ctrl-C): everything before is saved."""


@dataclass
class IngestReport:
    files: int = 0
    papers: int = 0
    metadata_only: int = 0
    unchanged: int = 0
    indexed: int = 0
    chunks_embedded: int = 0
    chunks_reused: int = 0
    duplicates_merged: int = 0
    merges: list[tuple[str, str]] = field(default_factory=list)  # (merged id, kept id)
    removed: int = 0
    repaired: int = 0  # papers re-indexed because their vectors were lost
    unrepaired: int = 0  # papers still without vectors (their files were not read this time)
    generation: int = 0
    problems: list[Problem] = field(default_factory=list)
    seconds: float = 0.0


def count_lines(path: Path) -> int:
    """For the progress bar; a file that cannot be opened counts 0 (reading it reports why)."""
    try:
        with path.open("rb") as handle:
            return sum(1 for _ in handle)
    except OSError:
        return 0


@contextmanager
def writer_lock(data_dir: Path) -> Iterator[None]:
    """One writer at a time: embedded Chroma is thread-safe but not process-safe, so ingest
    holds an exclusive lock; the HTTP service (any number of workers) only reads."""
    data_dir.mkdir(parents=True, exist_ok=True)
    with (data_dir / "writer.lock").open("w") as handle:
        for attempt in range(20):  # a reader testing the lock (/readyz) holds it for microseconds
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if attempt == 19:
                    raise StoreError(f"another `rag ingest` is writing to {data_dir}; wait for it "
                                     "to finish.") from None
                time.sleep(0.025)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def ingest(lib: Library, paths: Iterable[Path], progress: Progress | None = None,
           batch_size: int = 64, should_stop: StopCheck = lambda: False) -> IngestReport:
    """Add, update and remove papers in the live index in place, then stamp a new generation."""
    with writer_lock(lib.settings.data_dir):
        report = _ingest(lib, paths, progress, batch_size, should_stop)
        _publish(lib, report)
        return report


def rebuild(settings: Settings, paths: Iterable[Path], progress: Progress | None = None, *,
            embedder: Embedder | None = None, batch_size: int = 64,
            should_stop: StopCheck = lambda: False) -> IngestReport:
    """Build the whole index again into a new catalogue file and collection, beside the live
    ones (which keep serving), and swap them in at the end by writing the stamp. The writer
    lock is taken first. Stopped half-way, the live index is untouched."""
    with writer_lock(settings.data_dir):
        live = read_stamp(settings)
        target = live.next_build(settings.collection)
        _drop(settings, target.collection, target.catalog)
        lib = open_library(settings, embedder=embedder, stamp=target)
        try:
            report = _ingest(lib, paths, progress, batch_size, should_stop)
            _publish(lib, report, force=True)
        finally:
            lib.close()
        _drop_old_generations(settings, keep={live.collection, target.collection},
                              keep_files={live.catalog, target.catalog})
        return report


def _publish(lib: Library, report: IngestReport, force: bool = False) -> None:
    """Stamp the finished ingest as a new generation, last (only if anything changed)."""
    live = read_stamp(lib.settings)
    changed = report.indexed or report.removed or report.repaired or report.duplicates_merged
    if not (force or changed or live.generation == 0):
        report.generation = live.generation
        publish_snapshot(lib.settings, live)  # if an earlier run could not
        return
    stamp = replace(lib.stamp, generation=max(live.generation + 1, lib.stamp.generation),
                    papers=lib.catalog.count(), chunks=lib.catalog.chunk_count())
    lib.catalog.set_meta({"generation": str(stamp.generation), "collection": stamp.collection})
    write_stamp(lib.settings, stamp)
    lib.stamp = stamp
    publish_snapshot(lib.settings, stamp)
    report.generation = stamp.generation


def _drop(settings: Settings, collection: str, catalog: str) -> None:
    client = chroma_client(settings)
    if collection in collection_names(client):
        client.delete_collection(collection)
    for suffix in ("", "-wal", "-shm"):
        (settings.data_dir / f"{catalog}{suffix}").unlink(missing_ok=True)


def _drop_old_generations(settings: Settings, keep: set[str], keep_files: set[str]) -> None:
    """Collections and catalogue files older than the previous generation (which a service may
    still be reading until it notices the swap) are removed."""
    base = settings.collection
    client = chroma_client(settings)
    for name in collection_names(client):
        if (name == base or name.startswith(f"{base}-g")) and name not in keep:
            client.delete_collection(name)
    for path in settings.data_dir.glob("papers*.sqlite"):
        if path.name not in keep_files:
            _drop(settings, "", path.name)


def _ingest(lib: Library, paths: Iterable[Path], progress: Progress | None,
            batch_size: int, should_stop: StopCheck) -> IngestReport:
    started = time.perf_counter()
    report = IngestReport()
    files: list[Path] = []
    for given in paths:
        found, ignored = scan(Path(given))
        files += found
        report.problems += ignored
    tick = progress or (lambda event, amount: None)
    tick("total", sum(count_lines(f) for f in files))
    report.repaired = _forget_lost_vectors(lib)
    finder = DuplicateFinder(lib.catalog)
    origins = Origins(lib.catalog.db)
    for path in files:
        try:
            _ingest_file(lib, path, finder, origins, report, tick, batch_size, should_stop)
        except FormatError as exc:  # this file only: the others are still read
            log.warning("%s", exc)
            report.problems.append(Problem(path.name, None, f"{exc}; the rest of the file skipped"))
        report.files += 1
    if report.repaired:
        report.unrepaired = len(_papers_without_vectors(lib))
    report.seconds = time.perf_counter() - started
    return report


def _papers_without_vectors(lib: Library) -> set[str]:
    if lib.vectors.count() >= lib.catalog.chunk_count():
        return set()
    ids = [r[0] for r in lib.catalog.db.execute("SELECT id FROM chunks")]
    missing = lib.vectors.missing(ids)  # type: ignore[attr-defined]
    return {cid.rsplit("#", 1)[0] for cid in missing}


def _forget_lost_vectors(lib: Library) -> int:
    """Papers whose chunks the vector store lost (a deleted or truncated store) lose their
    stored hash, so this run indexes them again instead of calling them unchanged."""
    lost = _papers_without_vectors(lib)
    if lost:
        log.warning("%d papers have no vectors; they are indexed again", len(lost))
        lib.catalog.forget(lost)
    return len(lost)


def _ingest_file(lib: Library, path: Path, finder: DuplicateFinder, origins: Origins,
                 report: IngestReport, tick: Progress, batch_size: int, should_stop: StopCheck) -> None:
    """Read one file to its end, index it, then drop the papers that only this file (by its
    resolved path) gave and no longer gives. A file that fails half-way removes nothing."""
    seen: set[str] = set()
    batch: list[Paper] = []
    done_lines = 0
    for item in read_file(path, lib.settings.ingest.max_abstract_chars):
        if isinstance(item, Problem):
            log.warning("%s", item)
            report.problems.append(item)
            continue
        seen.add(item.id)
        batch.append(item)
        if len(batch) >= batch_size:
            _index_batch(lib, batch, finder, report)
            if should_stop():
                raise IngestStopped
            tick("advance", (batch[-1].line or done_lines) - done_lines)
            done_lines, batch = batch[-1].line or done_lines, []
    _index_batch(lib, batch, finder, report)
    tick("advance", count_lines(path) - done_lines)
    origin = origin_of(path)
    origins.claim(origin, seen)
    stale = origins.release(origin, origins.ids_from(origin) - seen)
    if stale:
        lib.vectors.delete(sorted(lib.vectors.chunk_ids(sorted(stale))))
        lib.catalog.remove(stale)
        report.removed += len(stale)


def _index_batch(lib: Library, papers: list[Paper], finder: DuplicateFinder,
                 report: IngestReport) -> None:
    if not papers:
        return
    report.papers += len(papers)
    report.metadata_only += sum(not p.has_abstract for p in papers)
    stored = lib.catalog.hashes(p.id for p in papers)
    undo_stale_merges(lib.catalog, papers, stored, finder)
    to_save: dict[str, tuple[Paper, str]] = {}
    aliases: list[tuple[str, str, str, str]] = []
    for paper in papers:
        digest = text_hash(paper)
        if stored.get(paper.id) == digest:
            report.unchanged += 1
            continue
        kept_id = finder.find(paper)
        if kept_id is None:
            finder.add(paper)
            to_save[paper.id] = (paper, digest)
            continue
        kept, kept_hash = to_save.get(kept_id) or _stored(lib, kept_id)
        to_save[kept.id] = (merge(kept, paper), kept_hash)
        aliases.append((paper.id, kept.id, paper.source, digest))
        report.duplicates_merged += 1
        report.merges.append((paper.id, kept.id))
    chunks = _write(lib, [p for p, _ in to_save.values()], report)
    lib.catalog.save(to_save.values(), aliases, chunks)
    finder.flush()
    report.indexed += sum(1 for p, _ in to_save.values() if p.id in {q.id for q in papers})


def _stored(lib: Library, paper_id: str) -> tuple[Paper, str]:
    paper = lib.catalog.get(paper_id)
    assert paper is not None, paper_id
    return paper, lib.catalog.hashes([paper.id])[paper.id]


def _write(lib: Library, papers: list[Paper], report: IngestReport) -> list[Chunk]:
    """Chunk, embed only chunk texts the index has never seen, drop stale chunks, upsert."""
    chunks: list[Chunk] = [c for p in papers for c in lib.chunker.chunks(p)]
    if not papers:
        return chunks
    known = lib.vectors.vectors_for([c.text_hash for c in chunks])
    missing = list(dict.fromkeys(c.text for c in chunks if c.text_hash not in known))
    if missing:
        fresh = embed_batched(lib.embedder, missing, lib.settings.embedding.batch_size)
        by_text = dict(zip(missing, fresh, strict=True))
        known.update({c.text_hash: by_text[c.text] for c in chunks if c.text in by_text})
    report.chunks_embedded += len(missing)
    report.chunks_reused += len(chunks) - len(missing)
    new_ids = {c.id for c in chunks}
    stale = lib.vectors.chunk_ids([p.id for p in papers]) - new_ids
    lib.vectors.delete(sorted(stale))
    if chunks:
        vectors = np.vstack([known[c.text_hash] for c in chunks])
        lib.vectors.upsert(chunks, vectors, {p.id: p for p in papers})
    return chunks
