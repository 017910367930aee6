"""Where an ingest starts and how it ends, both under the writer lock (and, with a shared
snapshot folder, the writer lease):

- ``begin``: follow the newest published generation, then read the live stamp. An unreadable
  stamp is never taken for generation 0: it is recovered from the newest intact generation on
  disk (``recovery.py``) and rewritten, or the ingest refuses and says what to do;
- ``finish``: stamp the next generation with a compare-and-swap against what ``begin`` read
  (a writer that started from an older generation never stamps over a newer one), then
  publish it, again only over the generation it started from.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Protocol

from rag.errors import StoreError
from rag.index.chroma import chroma_client, collection_names
from rag.index.recovery import recover_stamp
from rag.index.snapshots import follow_snapshot, needs_publishing, publish_snapshot, shared_generation
from rag.index.stamp import (
    Stamp,
    StampConflict,
    StampError,
    catalog_number,
    collection_build,
    generation_on_disk,
    read_stamp,
    stamp_path,
    swap_stamp,
)

if TYPE_CHECKING:
    from rag.index.lease import Lease
    from rag.index.library import Library
    from rag.settings import Settings

log = logging.getLogger(__name__)


class Changes(Protocol):
    indexed: int
    removed: int
    repaired: int
    duplicates_merged: int
    generation: int
    recovered: bool


@dataclass(frozen=True)
class Start:
    live: Stamp  # the generation this ingest starts from
    expected: int  # what the local stamp file holds now (0: none): the stamp's compare-and-swap
    shared: int  # what the shared stamp holds now (0: none, -1: unreadable): publishing's
    recovered: bool = False


def begin(settings: Settings, *, rebuild: bool = False) -> Start:
    if settings.store.snapshot_dir is not None:
        try:
            follow_snapshot(settings)
        except StoreError as exc:
            log.warning("the published index was not taken: %s", exc)
    shared = shared_generation(settings)
    try:
        live = read_stamp(settings)
    except StampError as exc:
        live, expected = _recover(settings, exc, rebuild)
        return Start(live, expected, shared, recovered=True)
    if shared > live.generation:
        raise StoreError(f"the shared folder {settings.store.snapshot_dir} holds generation {shared}, "
                         f"but this machine has {live.generation} and could not take the newer one "
                         "(see the warning above). Fix that first, so nothing is built on an old index.")
    return Start(live, live.generation, shared)


def _recover(settings: Settings, why: StampError, rebuild: bool) -> tuple[Stamp, int]:
    """The newest intact generation on disk, stamped again (and what the stamp file holds now).
    For a rebuild with none intact: a starting point after every generation on disk (so it
    overwrites none of them), stamped only when the rebuild is done."""
    client = chroma_client(settings)
    found = recover_stamp(settings, client)
    expected = generation_on_disk(stamp_path(settings), settings.collection)
    if found is not None:
        swap_stamp(settings, found, expected)
        log.warning("%s; restored generation %s (%s, %s), the newest intact one on disk", why,
                    found.generation, found.catalog, found.collection)
        return found, found.generation
    if not rebuild:
        raise StampError(f"{why} No intact generation was found on disk either: run `rag ingest "
                         "--rebuild` with your files to build the index again.") from why
    numbers = [n for p in settings.data_dir.glob("papers*.sqlite") if (n := catalog_number(p.name))]
    numbers += [b for name in collection_names(client)
                if (b := collection_build(settings.collection, name)) is not None]
    last = max(numbers, default=0)
    return Stamp(generation=last, build=last, catalog_of=last, base=settings.collection), expected


def finish(lib: Library, report: Changes, start: Start, lease: Lease | None,
           *, force: bool = False) -> None:
    """Stamp the finished ingest as the next generation (only if anything changed), last, then
    publish it."""
    settings, live = lib.settings, start.live
    changed = report.indexed or report.removed or report.repaired or report.duplicates_merged
    if not (force or changed or live.generation == 0):
        report.generation = live.generation
        if needs_publishing(settings, live, start.shared):  # an earlier run could not
            publish_snapshot(settings, live, start.shared, lease)
        return
    stamp = replace(lib.stamp, generation=live.generation + 1, papers=lib.catalog.count(),
                    chunks=lib.catalog.chunk_count(), checksum="")
    lib.catalog.set_meta({"generation": str(stamp.generation), "build": str(stamp.build),
                          "collection": stamp.collection})
    swap_stamp(settings, stamp, start.expected)
    lib.stamp = stamp
    report.generation = stamp.generation
    if settings.store.snapshot_dir is None:
        return
    try:
        publish_snapshot(settings, stamp, start.shared, lease)
    except StampConflict:  # another publisher won: step back, so the next run takes its generation
        swap_stamp(settings, live, stamp.generation)
        raise
