"""Keyword retrieval: BM25 over the same chunks as the vector index (SQLite FTS5, Porter
stemming), stored in the paper catalogue and updated with it by ingest."""

from __future__ import annotations

import math
from functools import lru_cache

from rag.index.catalog import Catalog
from rag.index.filters import Filters
from rag.text.lexicon import STOPWORDS, alnum_words, pairs, spaced
from rag.types import Chunk, ScoredChunk

COMMON_SHARE, COMMON_FLOOR = 0.1, 1000


def match_expression(query: str, catalog: Catalog | None = None) -> str:
    """An FTS5 expression that ORs the query's content words, each quoted so that no user
    text is read as FTS syntax. Method names and numbers survive as they are. Given the
    catalogue, words found in over a tenth of the chunks (and at least 1,000) are left out while
    a rarer word remains: BM25 gives them almost no weight, and scoring every chunk that says
    "learning" made keyword search grow with the index."""
    words = [p for w in alnum_words(query) if w.lower() not in STOPWORDS for p in pairs(w)]
    # a pair of characters of a script written without spaces is a two-word phrase ("回 译")
    unique = list(dict.fromkeys(spaced(w.lower()) for w in words))
    size = catalog.chunk_estimate() if catalog is not None and len(unique) > 1 else 0
    if catalog is not None and size >= COMMON_FLOOR:  # a smaller index has no word that common
        cap = max(COMMON_FLOOR, int(size * COMMON_SHARE))
        rare = [w for w in unique if catalog.keyword_hits(f'"{w}"', cap) < cap]
        unique = rare or unique
    return " OR ".join(f'"{w}"' for w in unique)


def keyword_search(catalog: Catalog, query: str, limit: int, filters: Filters | None = None,
                   title_weight: float = 1.0) -> list[ScoredChunk]:
    """BM25 over chunk text and the paper's title, a title word weighing ``title_weight``
    (``RAG_RETRIEVAL__TITLE_WEIGHT``) times a text word."""
    expression = match_expression(query, catalog)
    if not expression:
        return []
    rows = catalog.keyword_search(expression, limit, filters, title_weight)
    return [ScoredChunk(Chunk(id=cid, paper_id=pid, index=int(cid.rsplit("#", 1)[-1]), text=text,
                              text_hash=""), score)
            for cid, pid, text, score in rows]


def chunks_saying(catalog: Catalog, term: str, limit: int = 8) -> int:
    """How many indexed chunks (counted up to ``limit``) contain the word or phrase."""
    words = alnum_words(spaced(term))
    if not words:
        return 0
    return catalog.keyword_hits('"' + " ".join(w.lower() for w in words) + '"', limit)


class TermStats:
    """How common a word is in the collection: chunk counts (up to a cap) and an IDF weight,
    read from the keyword index and remembered per word."""

    def __init__(self, catalog: Catalog, cap: int = 200) -> None:
        self.catalog, self.cap = catalog, cap
        self.total = max(1, catalog.keyword_count())
        self.count = lru_cache(maxsize=8192)(self._count)

    def _count(self, term: str) -> int:
        return chunks_saying(self.catalog, term, self.cap)

    def weight(self, term: str) -> float:
        """log((N + 1) / (df + 1)), df counted up to the cap: rare and unknown words weigh most."""
        return math.log((self.total + 1) / (self.count(term) + 1))
