"""The opened index: paper catalogue + vector index + the embedder and chunker that built it.

Built once in an entry point from Settings and passed down; nothing here is global.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from .catalog import Catalog
from .chunking import Chunker
from .embedding import Embedder, build_embedder
from .errors import StoreError
from .settings import Settings
from .store import ChromaIndex, VectorIndex


@dataclass
class Library:
    settings: Settings
    catalog: Catalog
    vectors: VectorIndex
    embedder: Embedder
    chunker: Chunker

    def close(self) -> None:
        self.catalog.close()


def open_library(settings: Settings, *, embedder: Embedder | None = None,
                 vectors: VectorIndex | None = None, rebuild: bool = False) -> Library:
    data_dir = settings.data_dir
    if data_dir.exists() and not data_dir.is_dir():
        raise StoreError(f"{data_dir} is a file, not a directory. Set RAG_DATA_DIR to a folder.")
    if data_dir.exists() and not os.access(data_dir, os.R_OK | os.W_OK | os.X_OK):
        raise StoreError(f"the data directory {data_dir} is not readable and writable. "
                         "Fix its permissions or point RAG_DATA_DIR elsewhere.")
    embedder = embedder or build_embedder(settings.embedding)
    chunker = Chunker(settings.chunking)
    if vectors is None:
        vectors = ChromaIndex(data_dir / "chroma", settings.collection, embedder.name,
                              chunker.signature, rebuild=rebuild)
    catalog = Catalog(data_dir / "papers.sqlite")
    if rebuild:
        catalog.clear()
    return Library(settings, catalog, vectors, embedder, chunker)


def method_index(lib: Library) -> dict[str, list[str]]:
    """Lower-cased method names (as the abstracts introduce them) -> paper ids."""
    index: dict[str, list[str]] = {}
    for paper in lib.catalog.papers():
        if paper.method:
            index.setdefault(paper.method.lower(), []).append(paper.id)
    return index
