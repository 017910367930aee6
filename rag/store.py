"""The vector index: a Protocol and its Chroma implementation (embedded PersistentClient).

Chroma is never given an embedding function: its default one downloads a model. Vectors always
come from our own embedder.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from .errors import IndexMismatchError, StoreError
from .types import Chunk, Paper, ScoredChunk

log = logging.getLogger(__name__)


class VectorIndex(Protocol):
    def upsert(self, chunks: Sequence[Chunk], vectors: np.ndarray,
               papers: dict[str, Paper]) -> None: ...

    def query(self, vector: np.ndarray, k: int,
              paper_ids: Sequence[str] | None = None) -> list[ScoredChunk]: ...

    def vectors_for(self, text_hashes: Sequence[str]) -> dict[str, np.ndarray]: ...

    def chunk_ids(self, paper_ids: Sequence[str]) -> set[str]: ...

    def delete(self, chunk_ids: Sequence[str]) -> None: ...

    def count(self) -> int: ...


def chunk_metadata(chunk: Chunk, paper: Paper) -> dict[str, Any]:
    """Flattened to Chroma's scalar types; None values are left out."""
    meta: dict[str, Any] = {
        "paper_id": chunk.paper_id,
        "chunk_index": chunk.index,
        "text_hash": chunk.text_hash,
        "source": paper.source,
        "authors": "; ".join(paper.authors),
    }
    for key, value in (("year", paper.year), ("venue", paper.venue), ("title", paper.title)):
        if value is not None:
            meta[key] = value
    return meta


def _chunk_from(chunk_id: str, document: str, meta: dict[str, Any]) -> Chunk:
    return Chunk(id=chunk_id, paper_id=str(meta["paper_id"]), index=int(meta["chunk_index"]),
                 text=document, text_hash=str(meta["text_hash"]))


class ChromaIndex:
    """Chunks in one Chroma collection (cosine space). The collection's metadata records the
    embedder and chunker that built it; opening it with others raises IndexMismatchError."""

    def __init__(self, path: Path, collection: str, embedder: str, chunker: str,
                 rebuild: bool = False) -> None:
        import chromadb

        try:
            path.mkdir(parents=True, exist_ok=True)
            self.client = chromadb.PersistentClient(
                path=str(path), settings=chromadb.Settings(anonymized_telemetry=False)
            )
            if rebuild and collection in [c.name for c in self.client.list_collections()]:
                self.client.delete_collection(collection)
            self.collection = self.client.get_or_create_collection(
                collection, embedding_function=None,
                configuration={"hnsw": {"space": "cosine"}},
                metadata={"embedder": embedder, "chunker": chunker},
            )
        except OSError as exc:
            raise StoreError(f"cannot use the data directory {path}: {exc.strerror or exc}. "
                             "Check its permissions or set RAG_DATA_DIR.") from exc
        except Exception as exc:  # chromadb raises its own types for a damaged store
            raise StoreError(f"the vector store in {path} cannot be opened ({exc}). "
                             "Run `rag ingest --rebuild` to build it again.") from exc
        built = self.collection.metadata or {}
        wanted = {"embedder": embedder, "chunker": chunker}
        for key, value in wanted.items():
            if built.get(key) != value:
                raise IndexMismatchError(
                    f"the index was built with {key} {built.get(key)!r}, but the settings ask for "
                    f"{value!r}. Run `rag ingest --rebuild` to rebuild it, or change the settings back."
                )

    def upsert(self, chunks: Sequence[Chunk], vectors: np.ndarray,
               papers: dict[str, Paper]) -> None:
        if not chunks:
            return
        self.collection.upsert(
            ids=[c.id for c in chunks],
            embeddings=np.asarray(vectors, dtype=np.float32),
            documents=[c.text for c in chunks],
            metadatas=[chunk_metadata(c, papers[c.paper_id]) for c in chunks],
        )

    def query(self, vector: np.ndarray, k: int,
              paper_ids: Sequence[str] | None = None) -> list[ScoredChunk]:
        """Nearest chunks, optionally only among some papers (metadata filters)."""
        total = self.collection.count()
        if total == 0 or (paper_ids is not None and not paper_ids):
            return []
        where = {"paper_id": {"$in": list(paper_ids)}} if paper_ids is not None else None
        reply = self.collection.query(
            query_embeddings=[np.asarray(vector, dtype=np.float32)], n_results=min(k, total),
            where=where, include=["documents", "metadatas", "distances"],
        )
        rows = zip(reply["ids"][0], reply["documents"][0], reply["metadatas"][0],
                   reply["distances"][0], strict=True)
        return [ScoredChunk(_chunk_from(i, d, m), 1.0 - float(dist)) for i, d, m, dist in rows]

    def vectors_for(self, text_hashes: Sequence[str]) -> dict[str, np.ndarray]:
        """Vectors already stored for these chunk texts, so unchanged text is never re-embedded."""
        found: dict[str, np.ndarray] = {}
        unique = list(dict.fromkeys(text_hashes))
        for start in range(0, len(unique), 500):
            reply = self.collection.get(where={"text_hash": {"$in": unique[start : start + 500]}},
                                        include=["embeddings", "metadatas"])
            for meta, vector in zip(reply["metadatas"], reply["embeddings"], strict=True):
                found[str(meta["text_hash"])] = np.asarray(vector, dtype=np.float32)
        return found

    def chunk_ids(self, paper_ids: Sequence[str]) -> set[str]:
        ids: set[str] = set()
        unique = list(dict.fromkeys(paper_ids))
        for start in range(0, len(unique), 500):
            reply = self.collection.get(where={"paper_id": {"$in": unique[start : start + 500]}},
                                        include=[])
            ids.update(reply["ids"])
        return ids

    def delete(self, chunk_ids: Sequence[str]) -> None:
        if chunk_ids:
            self.collection.delete(ids=list(chunk_ids))

    def count(self) -> int:
        return self.collection.count()
