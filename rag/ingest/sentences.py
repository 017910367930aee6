"""The last step of an ingest: embed the sentences of every abstract that has none stored
(papers this run indexed, and papers of a catalogue older than version 7), as the answer path
will read them, and keep them in the catalogue (``rag.index.sentence_vectors``).

A few papers at a time, each group saved in its own transaction: a stop (Ctrl-C) or a kill
keeps what was saved, the index is complete without the rest (the answer path embeds what is
not stored, as before), and the next ingest finishes it."""

from __future__ import annotations

import logging
from collections.abc import Callable

from rag.index.embedding import embed_batched
from rag.index.library import Library
from rag.index.sentence_vectors import papers_without, store
from rag.text.injection import evidence_sentences, scrubbed

log = logging.getLogger(__name__)
PAPERS_PER_SAVE = 32


def store_sentence_vectors(lib: Library, tick: Callable[[str, int], None],
                           should_stop: Callable[[], bool]) -> tuple[int, int]:
    """(sentences embedded, papers left for the next ingest)."""
    if not lib.settings.ingest.sentence_vectors:
        return 0, 0
    todo = papers_without(lib.catalog, lib.embedder.name)
    if todo:
        tick("sentences total", len(todo))
    embedded = 0
    for start in range(0, len(todo), PAPERS_PER_SAVE):
        if should_stop():
            left = len(todo) - start
            log.info("stopped: %d papers' sentence vectors are left for the next ingest", left)
            return embedded, left
        papers = list(lib.catalog.get_many(todo[start:start + PAPERS_PER_SAVE]).values())
        rows = [(p.id, s) for p in papers for s in evidence_sentences(scrubbed(p))]
        texts = list(dict.fromkeys(s for _, s in rows))
        vectors = dict(zip(texts, embed_batched(lib.embedder, texts, lib.settings.embedding.batch_size),
                           strict=True)) if texts else {}
        store(lib.catalog, lib.embedder.name, ((pid, s, vectors[s]) for pid, s in rows))
        embedded += len(texts)
        tick("sentences", len(papers))
    return embedded, 0
