"""Ingest: read files, merge duplicates, chunk, embed what changed, upsert. Idempotent.

Each batch is written to the vector index first and to the catalogue second, so an ingest that
is killed half-way leaves nothing the next run cannot finish: unfinished papers are simply
not in the catalogue yet, and their vectors (already in Chroma) are reused, not recomputed.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from rag.errors import FormatError
from rag.index.embedding import Embedder, build_embedder, embed_batched
from rag.index.library import Library, open_library, retarget
from rag.ingest.formats import Problem, read_file, scan
from rag.ingest.identity import IdClaims
from rag.ingest.origins import Origins, origin_of
from rag.ingest.papers import DuplicateFinder, merge, text_hash, undo_stale_merges
from rag.ingest.sentences import store_sentence_vectors
from rag.ingest.session import writer_session
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
    sentences_embedded: int = 0  # abstracts' sentences stored for the reader (rag.ingest.sentences)
    sentences_left: int = 0  # papers whose sentences a stop left for the next ingest
    duplicates_merged: int = 0
    merges: list[tuple[str, str]] = field(default_factory=list)  # (merged id, kept id)
    removed: int = 0
    repaired: int = 0  # papers re-indexed because their vectors were lost
    unrepaired: int = 0  # papers still without vectors (their files were not read this time)
    generation: int = 0
    recovered: bool = False  # the stamp was unreadable and restored from the newest intact generation
    resumed: bool = False  # a rebuild that took up where a stopped one left off
    problems: list[Problem] = field(default_factory=list)  # rows skipped, files not read
    notices: list[Problem] = field(default_factory=list)  # rows kept, with something to say (an id clash)
    seconds: float = 0.0


def count_lines(path: Path) -> int:
    """For the progress bar; a file that cannot be opened counts 0 (reading it reports why)."""
    try:
        with path.open("rb") as handle:
            return sum(1 for _ in handle)
    except OSError:
        return 0


def ingest(lib: Library, paths: Iterable[Path], progress: Progress | None = None,
           batch_size: int = 64, should_stop: StopCheck = lambda: False,
           wait: float = 0.0) -> IngestReport:
    """Add, update and remove papers in the live index in place, then stamp a new generation.
    The live generation is read once the writer lock is held: a library opened before, while a
    rebuild swapped in other files, is pointed at those first."""
    with writer_session(lib.settings, wait=wait) as session:
        retarget(lib, session.start.live)
        report = index_files(lib, paths, progress, batch_size, should_stop)
        session.finish(lib, report)
        return report


def ingest_files(settings: Settings, paths: Iterable[Path], progress: Progress | None = None, *,
                 embedder: Embedder | None = None, batch_size: int = 64,
                 should_stop: StopCheck = lambda: False, wait: float = 0.0) -> IngestReport:
    """`rag ingest`: the library is opened once the writer lock is held, on the generation the
    stamp names then (or, when the stamp is unreadable, on the one recovered from disk)."""
    embedder = embedder or build_embedder(settings.embedding)  # loads before the lock is taken
    with writer_session(settings, wait=wait) as session:
        lib = open_library(settings, embedder=embedder, stamp=session.start.live)
        try:
            report = index_files(lib, paths, progress, batch_size, should_stop)
            session.finish(lib, report)
        finally:
            lib.close()
        return report


def index_files(lib: Library, paths: Iterable[Path], progress: Progress | None,
                batch_size: int, should_stop: StopCheck) -> IngestReport:
    """Read ``paths`` into ``lib``: the work of a writer session, which the caller holds."""
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
    report.sentences_embedded, report.sentences_left = store_sentence_vectors(lib, tick, should_stop)
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
    merged_here: dict[str, Paper] = {}  # records of this file merged into another paper
    done_lines = 0
    origin = origin_of(path)
    claims = IdClaims(lib.catalog, origins, origin)
    for item in read_file(path, lib.settings.ingest.max_abstract_chars):
        if isinstance(item, Problem):
            log.info("%s", item)  # the report says it to the user, once
            report.problems.append(item)
            continue
        item = claims.settle(item)
        seen.add(item.id)
        batch.append(item)
        if len(batch) >= batch_size:
            _index_batch(lib, batch, finder, report, merged_here)
            if should_stop():
                raise IngestStopped
            tick("advance", (batch[-1].line or done_lines) - done_lines)
            done_lines, batch = batch[-1].line or done_lines, []
    _index_batch(lib, batch, finder, report, merged_here)
    tick("advance", count_lines(path) - done_lines)
    report.notices += claims.notices
    origins.claim(origin, seen)
    gone = origins.ids_from(origin) - seen
    renamed = _renamed(lib, gone, merged_here)
    for old_id, paper in renamed.items():
        _rename(lib, old_id, paper, finder, report)
    origins.release(origin, renamed)  # the old id stays, as an alias of the new one
    stale = origins.release(origin, gone - renamed.keys())
    if stale:
        lib.vectors.delete(sorted(lib.vectors.chunk_ids(sorted(stale))))
        lib.catalog.remove(stale)
        report.removed += len(stale)


def _renamed(lib: Library, gone: set[str], merged_here: dict[str, Paper]) -> dict[str, Paper]:
    """Papers this file no longer gives under their id, whose record it now gives under a new
    id (an edited plain-text abstract, or an index whose ids an older rule minted): the record
    was merged into the old paper on its way in. Old id -> the record as read now."""
    if not gone or not merged_here:
        return {}
    rows = lib.catalog.db.execute("SELECT paper_id, alias FROM aliases")
    return {paper: merged_here[alias] for paper, alias in rows if paper in gone and alias in merged_here}


def _rename(lib: Library, old_id: str, paper: Paper, finder: DuplicateFinder, report: IngestReport) -> None:
    """Index ``paper`` as itself in place of ``old_id``, which stays as its alias (links and
    saved ids still resolve)."""
    lib.vectors.delete(sorted(lib.vectors.chunk_ids([old_id])))
    lib.catalog.remove([old_id, paper.id])
    if (paper.id, old_id) in report.merges:
        report.merges.remove((paper.id, old_id))
        report.duplicates_merged -= 1
    counted = report.papers, report.metadata_only  # read once already
    _index_batch(lib, [paper], finder, report, {})
    report.papers, report.metadata_only = counted
    lib.catalog.save([], [(old_id, paper.id, paper.source, text_hash(paper))], [])
    with lib.catalog.db:  # duplicates other files merged into the old paper follow it
        lib.catalog.db.execute("UPDATE aliases SET paper_id = ? WHERE paper_id = ?", (paper.id, old_id))
    report.notices.append(Problem(paper.source, paper.line, f"{old_id} is now {paper.id} (its text "
                                  f"changed, or its id was minted by an older rule); {old_id} still "
                                  "finds it"))


def _index_batch(lib: Library, papers: list[Paper], finder: DuplicateFinder,
                 report: IngestReport, merged_here: dict[str, Paper]) -> None:
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
        if kept_id is not None and kept_id not in to_save and lib.catalog.get(kept_id) is None:
            kept_id = None  # a paper removed in this run (renamed) that the finder remembers
        if kept_id is None:
            finder.add(paper)
            to_save[paper.id] = (paper, digest)
            continue
        kept, kept_hash = to_save.get(kept_id) or _stored(lib, kept_id)
        to_save[kept.id] = (merge(kept, paper), kept_hash)
        aliases.append((paper.id, kept.id, paper.source, digest))
        merged_here[paper.id] = paper
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
