"""The vector index: a Protocol and its Chroma implementation, embedded (``PersistentClient``,
files in the data directory) or server (``HttpClient`` to ``chroma run``), chosen by
``RAG_STORE__MODE``.

Chroma is never given an embedding function: its default one downloads a model. Vectors always
come from our own embedder. Metadata filters arrive as a ``VectorFilter`` and become Chroma's
``where``: a year range and short lists only (see ``filters.py``).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from rag.errors import IndexMismatchError, StoreError
from rag.index.diskspace import DiskFullError, says_disk_full
from rag.index.filters import VectorFilter
from rag.types import Chunk, Paper, ScoredChunk

if TYPE_CHECKING:
    from rag.settings import Settings

log = logging.getLogger(__name__)
_BATCH = 500
_OPEN_LOCK = threading.Lock()


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


def check_server_version(server: str, client: str) -> None:
    """The Chroma server must speak the client's API: the same major version."""
    if server.split(".")[0] != client.split(".")[0]:
        raise StoreError(f"the Chroma server runs version {server}, but this client is {client}; "
                         f"run a {client.split('.')[0]}.x server (`chroma run` from the same "
                         "chromadb package) or install a matching chromadb.")


def _import_chromadb() -> Any:
    """``import chromadb`` without the import-time signature checks of its ``@override``
    decorators (the ``overrides`` package compares every overriding method's signature with its
    base class's as each class is defined: a development lint that costs about 0.35 s of every
    cold start). The decorators still mark the methods, so ``EnforceOverrides`` works; the real
    functions are put back once chromadb and the API module of the chosen mode are loaded."""
    import sys

    if "chromadb.api.rust" in sys.modules:
        import chromadb
        return chromadb
    try:
        import overrides
        module = sys.modules["overrides.overrides"]
        saved = overrides.override, overrides.overrides, module.override, module.overrides  # type: ignore[attr-defined]
    except (ImportError, KeyError, AttributeError):  # another overrides layout: import as is
        import chromadb
        return chromadb

    def mark(method: Any = None, **_: Any) -> Any:
        if method is None:
            return mark
        method.__override__ = True
        return method

    overrides.override = overrides.overrides = mark  # type: ignore[assignment]
    module.override = module.overrides = mark  # type: ignore[attr-defined]
    try:
        import chromadb
        import chromadb.api.fastapi  # noqa: F401  the API modules are imported lazily by the client
        import chromadb.api.rust  # noqa: F401
    finally:
        overrides.override, overrides.overrides, module.override, module.overrides = saved  # type: ignore[attr-defined]
    return chromadb


def chroma_client(settings: Settings, *, fresh: bool = False) -> Any:
    """A Chroma client for the configured mode. ``fresh``: in embedded mode, a client that
    reads the files as they are now (Chroma caches one system per path in the process and
    keeps serving what it loaded; clients opened before keep working on their own state)."""
    chromadb = _import_chromadb()
    from chromadb.api.shared_system_client import SharedSystemClient

    store = settings.store
    options = chromadb.Settings(anonymized_telemetry=False)
    if store.mode == "server":
        where = f"{'https' if store.ssl else 'http'}://{store.host}:{store.port}"
        headers = {"Authorization": f"Bearer {store.token.get_secret_value()}"} if store.token else None
        try:
            client = chromadb.HttpClient(host=store.host, port=store.port, ssl=store.ssl,
                                         headers=headers, settings=options, tenant=store.tenant,
                                         database=store.database)
            version = client.get_version()
        except Exception as exc:
            raise StoreError(f"cannot reach the Chroma server at {where} ({exc}). Start it "
                             f"(`chroma run --path DIR --port {store.port}`) or fix RAG_STORE__HOST/"
                             "PORT/SSL/TOKEN.") from exc
        check_server_version(str(version), chromadb.__version__)
        return client
    path = settings.data_dir / "chroma"
    try:
        path.mkdir(parents=True, exist_ok=True)
        with _OPEN_LOCK:
            if fresh:
                SharedSystemClient._identifier_to_system.pop(str(path), None)
                SharedSystemClient._identifier_to_refcount.pop(str(path), None)
            return chromadb.PersistentClient(path=str(path), settings=options)
    except OSError as exc:
        raise StoreError(f"cannot use the data directory {path}: {exc.strerror or exc}. "
                         "Check its permissions or set RAG_DATA_DIR.") from exc
    except Exception as exc:  # chromadb raises its own types for a damaged store
        if says_disk_full(exc):  # not damaged: rebuilding would not help
            raise DiskFullError(f"the vector store in {path} cannot be opened: the disk is full "
                                f"({exc}). Free some space, then try again.") from exc
        raise StoreError(f"the vector store in {path} cannot be opened ({exc}). "
                         "Run `rag ingest --rebuild` to build it again.") from exc


def collection_names(client: Any) -> list[str]:
    return [c if isinstance(c, str) else c.name for c in client.list_collections()]


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
                    collection, embedding_function=None, configuration={"hnsw": {"space": "cosine"}},
                    metadata=wanted)
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
