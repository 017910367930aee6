"""Sentence vectors kept in the catalogue, so answering a question does not embed the abstracts'
sentences again. The reader compares every candidate sentence of the retrieved abstracts with
the question, and embedding them per question was about two thirds of a question's time.

Ingest stores each abstract's sentences (split as the answer path splits them, see
``rag.ingest.sentences``) under the embedder that made them, keyed by a hash of the exact
text; a paper's rows are written and removed with the paper. ``StoredVectors`` is the answer
path's embedder: stored vectors are looked up, everything else (the question, a sentence of a
paper indexed before version 7) is embedded as before. A stored vector is the one the embedder
returns for that text, so answers are the same with or without the store.
"""

from __future__ import annotations

import hashlib
import logging
import sqlite3
from collections.abc import Iterable, Sequence

import numpy as np

from rag.index.catalog import Catalog
from rag.index.catalog_schema import batches
from rag.index.embedding import Embedder

log = logging.getLogger(__name__)


def sentence_key(text: str) -> str:
    """The store's key for a sentence: its exact text, hashed (another spelling is another key)."""
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()


def lookup(catalog: Catalog, keys: Sequence[str], embedder: str) -> dict[str, np.ndarray]:
    """The stored vectors of these keys made by ``embedder``; keys not stored are left out."""
    found: dict[str, np.ndarray] = {}
    for part, marks in batches(list(dict.fromkeys(keys))):
        rows = catalog.db.execute(
            f"SELECT key, vector FROM sentence_vectors WHERE embedder = ? AND key IN ({marks})",
            [embedder, *part])
        found.update((key, np.frombuffer(blob, dtype=np.float32)) for key, blob in rows)
    return found


def store(catalog: Catalog, embedder: str, rows: Iterable[tuple[str, str, np.ndarray]]) -> int:
    """Save (paper id, sentence, vector) rows in one transaction; how many were saved."""
    values = [(pid, sentence_key(text), embedder, np.asarray(vector, dtype=np.float32).tobytes())
              for pid, text, vector in rows]
    with catalog.db:
        catalog.db.executemany(
            "INSERT OR REPLACE INTO sentence_vectors (paper_id, key, embedder, vector) VALUES (?,?,?,?)",
            values)
    return len(values)


def papers_without(catalog: Catalog, embedder: str) -> list[str]:
    """Papers with an abstract and no stored sentence vector of ``embedder``, in id order."""
    rows = catalog.db.execute(
        "SELECT id FROM papers p WHERE has_abstract = 1 AND NOT EXISTS (SELECT 1 FROM "
        "sentence_vectors s WHERE s.paper_id = p.id AND s.embedder = ?) ORDER BY id", (embedder,))
    return [r[0] for r in rows]


class StoredVectors:
    """An Embedder for the answer path: a text's stored vector when the catalogue has one, the
    inner embedder's otherwise. A catalogue that cannot be read (closed by a reload, locked)
    costs speed, never an answer: everything is embedded as before."""

    def __init__(self, inner: Embedder, catalog: Catalog) -> None:
        self.inner, self.catalog, self.name = inner, catalog, inner.name

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        keys = [sentence_key(t) for t in texts]
        try:
            found = lookup(self.catalog, keys, self.name)
        except sqlite3.Error as exc:
            log.debug("sentence vectors not read (%s); embedding instead", exc)
            found = {}
        missing = list(dict.fromkeys(t for t, k in zip(texts, keys, strict=True) if k not in found))
        fresh = dict(zip(missing, self.inner.embed(missing), strict=True)) if missing else {}
        rows = [found[k] if k in found else fresh[t] for t, k in zip(texts, keys, strict=True)]
        return np.vstack(rows).astype(np.float32) if rows else np.zeros((0, 0), dtype=np.float32)
