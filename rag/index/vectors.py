"""The vector index: a Protocol and its Chroma implementation, embedded (``PersistentClient``,
files in the data directory) or server (``HttpClient`` to ``chroma run``), chosen by
``RAG_STORE__MODE``.

Chroma is never given an embedding function: its default one downloads a model. Vectors always
come from our own embedder. Metadata filters arrive as a ``VectorFilter`` and become Chroma's
``where``: a year range and short lists only (see ``filters.py``).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Protocol

import numpy as np

from rag.errors import IndexMismatchError, StoreError
from rag.index.filters import VectorFilter
from rag.types import Chunk, Paper, ScoredChunk

log = logging.getLogger(__name__)
_BATCH = 500
# HNSW's search breadth: at Chroma's default (100) the tail of a top-30 differed between processes
# for a third of dev questions; at 400 every process returns the same, exact neighbours.
EF_SEARCH = 400


class VectorIndex(Protocol):
    def upsert(self, chunks: Sequence[Chunk], vectors: np.ndarray,
               papers: dict[str, Paper]) -> None: ...

    def query(self, vector: np.ndarray, k: int,
              where: VectorFilter | None = None) -> list[ScoredChunk]: ...

    def vectors_for(self, text_hashes: Sequence[str]) -> dict[str, np.ndarray]: ...

    def vectors_by_id(self, chunk_ids: Sequence[str]) -> dict[str, np.ndarray]: ...

    def chunk_ids(self, paper_ids: Sequence[str]) -> set[str]: ...

    def all_ids(self) -> set[str]:
        """Every chunk id in the collection (a full walk: for cleaning up after a rebuild)."""
        ...

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


def chroma_where(where: VectorFilter | None) -> dict[str, Any] | None:
    if where is None:
        return None
    clauses: list[dict[str, Any]] = []
    if where.year_from is not None:
        clauses.append({"year": {"$gte": where.year_from}})
    if where.year_to is not None:
        clauses.append({"year": {"$lte": where.year_to}})
    for key, values in (("venue", where.venues), ("source", where.sources),
                        ("paper_id", where.paper_ids)):
        if values is not None:
            clauses.append({key: {"$in": list(values)}})
    if not clauses:
        return None
    return clauses[0] if len(clauses) == 1 else {"$and": clauses}


def _chunk_from(chunk_id: str, document: str, meta: dict[str, Any]) -> Chunk:
    return Chunk(id=chunk_id, paper_id=str(meta["paper_id"]), index=int(meta["chunk_index"]),
                 text=document, text_hash=str(meta["text_hash"]))


@contextmanager
def _reading() -> Iterator[None]:
    """A failing read (a store that is being rewritten, or unreachable) is a StoreError: the
    service answers 503 with Retry-After, never 500."""
    try:
        yield
    except StoreError:
        raise
    except Exception as exc:
        raise StoreError(f"the vector store could not be read ({exc}); retry in a moment.") from exc


class ChromaIndex:
    """Chunks in one Chroma collection (cosine space). The collection's metadata records the
    embedder and chunker that built it; opening it with others raises IndexMismatchError."""

    def __init__(self, client: Any, collection: str, embedder: str, chunker: str,
                 *, create: bool = True) -> None:
        self.client, self.name = client, collection
        wanted = {"embedder": embedder, "chunker": chunker}
        try:
            if create:
                self.collection = client.get_or_create_collection(
                    collection, embedding_function=None, metadata=wanted,
                    configuration={"hnsw": {"space": "cosine", "ef_search": EF_SEARCH}})
                _exact_enough(self.collection)
            else:
                self.collection = client.get_collection(collection, embedding_function=None)
        except Exception as exc:
            raise StoreError(f"the vector collection {collection!r} cannot be opened ({exc}). "
                             "Run `rag ingest` (or `rag ingest --rebuild`) to build it.") from exc
        built = self.collection.metadata or {}
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
              where: VectorFilter | None = None) -> list[ScoredChunk]:
        """Nearest chunks, optionally only those passing the metadata filter."""
        if where is not None and where.empty:
            return []
        with _reading():  # no count() first: Chroma returns what there is (nothing when empty)
            reply = self.collection.query(
                query_embeddings=[np.asarray(vector, dtype=np.float32)], n_results=k,
                where=chroma_where(where), include=["documents", "metadatas", "distances"],
            )
        rows = zip(reply["ids"][0], reply["documents"][0], reply["metadatas"][0],
                   reply["distances"][0], strict=True)
        return [ScoredChunk(_chunk_from(i, d, m), 1.0 - float(dist)) for i, d, m, dist in rows]

    def vectors_for(self, text_hashes: Sequence[str]) -> dict[str, np.ndarray]:
        """Vectors already stored for these chunk texts, so unchanged text is never re-embedded."""
        found: dict[str, np.ndarray] = {}
        unique = list(dict.fromkeys(text_hashes))
        for start in range(0, len(unique), _BATCH):
            with _reading():
                reply = self.collection.get(where={"text_hash": {"$in": unique[start : start + _BATCH]}},
                                            include=["embeddings", "metadatas"])
            for meta, vector in zip(reply["metadatas"], reply["embeddings"], strict=True):
                found[str(meta["text_hash"])] = np.asarray(vector, dtype=np.float32)
        return found

    def vectors_by_id(self, chunk_ids: Sequence[str]) -> dict[str, np.ndarray]:
        """Stored vectors of these chunks (the answer path: ids come from the catalogue)."""
        found: dict[str, np.ndarray] = {}
        unique = list(dict.fromkeys(chunk_ids))
        for start in range(0, len(unique), _BATCH):
            with _reading():
                reply = self.collection.get(ids=unique[start : start + _BATCH], include=["embeddings"])
            for cid, vector in zip(reply["ids"], reply["embeddings"], strict=True):
                found[cid] = np.asarray(vector, dtype=np.float32)
        return found

    def chunk_ids(self, paper_ids: Sequence[str]) -> set[str]:
        ids: set[str] = set()
        unique = list(dict.fromkeys(paper_ids))
        for start in range(0, len(unique), _BATCH):
            with _reading():
                reply = self.collection.get(where={"paper_id": {"$in": unique[start : start + _BATCH]}},
                                            include=[])
            ids.update(reply["ids"])
        return ids

    def missing(self, chunk_ids: Sequence[str]) -> set[str]:
        """Those of these chunk ids the collection does not hold."""
        absent = set(chunk_ids)
        unique = list(dict.fromkeys(chunk_ids))
        for start in range(0, len(unique), _BATCH):
            with _reading():
                absent -= set(self.collection.get(ids=unique[start : start + _BATCH], include=[])["ids"])
        return absent

    def all_ids(self) -> set[str]:
        """Every chunk id in the collection (a full walk: for cleaning up after a rebuild)."""
        ids: set[str] = set()
        while True:
            with _reading():
                page = self.collection.get(include=[], limit=5000, offset=len(ids))["ids"]
            ids.update(page)
            if len(page) < 5000:
                return ids

    def delete(self, chunk_ids: Sequence[str]) -> None:
        if chunk_ids:
            self.collection.delete(ids=list(chunk_ids))

    def count(self) -> int:
        with _reading():
            return int(self.collection.count())


def _exact_enough(collection: Any) -> None:
    """A collection built before EF_SEARCH was set gets it (a setting of the collection, no rebuild)."""
    hnsw = (getattr(collection, "configuration", None) or {}).get("hnsw") or {}
    if hnsw.get("ef_search", 0) < EF_SEARCH:
        collection.modify(configuration={"hnsw": {"ef_search": EF_SEARCH}})
