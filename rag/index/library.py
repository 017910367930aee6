"""The opened index: paper catalogue + vector index + the embedder and chunker that built it,
for one index generation (``stamp.py``). Built once in an entry point from Settings and passed
down; nothing here is global. The chunker (llama-index) is only loaded when something chunks:
answering a question never does."""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import cached_property

from rag.errors import StoreError
from rag.index.catalog import Catalog
from rag.index.chroma import chroma_client
from rag.index.chunking import Chunker, chunker_signature
from rag.index.embedding import Embedder, build_embedder
from rag.index.snapshots import follow_snapshot
from rag.index.stamp import Stamp, inside, read_stamp
from rag.index.vectors import ChromaIndex, VectorIndex
from rag.settings import Settings

log = logging.getLogger(__name__)


@dataclass
class Library:
    settings: Settings
    catalog: Catalog
    vectors: VectorIndex
    embedder: Embedder
    stamp: Stamp = field(default_factory=Stamp)

    @cached_property
    def chunker(self) -> Chunker:
        return Chunker(self.settings.chunking)

    def close(self) -> None:
        self.catalog.close()


def check_data_dir(settings: Settings) -> None:
    data_dir = settings.data_dir
    if data_dir.exists() and not data_dir.is_dir():
        raise StoreError(f"{data_dir} is a file, not a directory. Set RAG_DATA_DIR to a folder.")
    if data_dir.exists() and not os.access(data_dir, os.R_OK | os.W_OK | os.X_OK):
        raise StoreError(f"the data directory {data_dir} is not readable and writable. "
                         "Fix its permissions or point RAG_DATA_DIR elsewhere.")


def open_library(settings: Settings, *, embedder: Embedder | None = None,
                 vectors: VectorIndex | None = None, stamp: Stamp | None = None,
                 pinned: bool = False, fresh: bool = False) -> Library:
    """Open the generation ``stamp`` names (default: the live one, from the data directory).
    ``pinned``: the catalogue keeps one snapshot (readers beside a running ingest); ``fresh``:
    the embedded vector store is read as it is on disk now (reopening after an ingest)."""
    check_data_dir(settings)
    if stamp is None and settings.store.snapshot_dir is not None:
        try:
            follow_snapshot(settings)  # the newest catalogue another machine published
        except StoreError as exc:  # serve what this machine has; the live index reports it
            log.warning("%s", exc)
    stamp = stamp or read_stamp(settings)
    catalog_path = inside(settings.data_dir, stamp.catalog)
    with ThreadPoolExecutor(max_workers=1) as pool:  # load the model while the store opens
        loading = pool.submit(build_embedder, settings.embedding) if embedder is None else None
        client = chroma_client(settings, fresh=fresh) if vectors is None else None
        embedder = embedder or loading.result()  # type: ignore[union-attr]
    if vectors is None:
        vectors = ChromaIndex(client, stamp.collection, embedder.name,
                              chunker_signature(settings.chunking))
    catalog = Catalog(catalog_path, pinned=pinned)
    return Library(settings, catalog, vectors, embedder, stamp)


def retarget(lib: Library, stamp: Stamp) -> None:
    """Point a library a writer opened before it took the writer lock at the generation the
    stamp names now. When another writer stamped in between (a rebuild may have swapped in
    other files), the catalogue and the vector store are opened again, as they are on disk now."""
    if lib.stamp != stamp:
        catalog = Catalog(inside(lib.settings.data_dir, stamp.catalog))
        vectors = ChromaIndex(chroma_client(lib.settings, fresh=True), stamp.collection,
                              lib.embedder.name, chunker_signature(lib.settings.chunking))
        lib.catalog.close()
        lib.catalog, lib.vectors = catalog, vectors
    lib.stamp = stamp


class MethodNames(Mapping[str, list[str]]):
    """Lower-cased method names (as the abstracts introduce them) -> paper ids, read from the
    catalogue's index on demand: nothing is built from every paper at start-up."""

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog

    def __getitem__(self, name: str) -> list[str]:
        ids = self.catalog.method_papers([name]).get(name.lower())
        if not ids:
            raise KeyError(name)
        return ids

    def __iter__(self) -> Iterator[str]:
        return iter(self.catalog.method_names())

    def __len__(self) -> int:
        return len(self.catalog.method_names())

    def __bool__(self) -> bool:
        return True


def method_index(lib: Library) -> MethodNames:
    return MethodNames(lib.catalog)


def disagreement(lib: Library) -> str | None:
    """Why the catalogue and the vector store cannot both be right, or None. Vectors are
    written before their catalogue rows, so a healthy index never has fewer vectors than
    catalogue chunks; an empty catalogue beside stored vectors means the catalogue was lost."""
    chunks, vectors = lib.catalog.chunk_count(), lib.vectors.count()
    if chunks == 0 and vectors > 0:
        return (f"the paper catalogue ({lib.catalog.path.name}) is empty but the vector store holds "
                f"{vectors} chunks: the catalogue was lost. Run `rag ingest` with the same files to "
                "restore it (stored vectors are reused), or `rag ingest --rebuild`.")
    if vectors < chunks:
        return (f"the vector store holds {vectors} chunks but the catalogue lists {chunks}: vectors "
                "were lost. Run `rag ingest` to re-embed the missing ones, or `rag ingest --rebuild`.")
    return None
