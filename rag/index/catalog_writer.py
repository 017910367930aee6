"""The catalogue's write side: saving papers with their chunks, aliases, author tokens and band
keys in one transaction, and removing them. ``Catalog`` (catalog.py) is the read side."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import replace

from rag.index.catalog_schema import INSERT_AUTHOR_TOKENS, author_token_rows, batches, dump_paper, fts_columns
from rag.index.dedupe import band_keys, shingle_hashes
from rag.text.authors import fold
from rag.text.clean import dedupe_key
from rag.types import Chunk, Paper


class CatalogWriter:
    db: sqlite3.Connection

    def save(self, papers: Iterable[tuple[Paper, str]],
             aliases: Iterable[tuple[str, str, str, str]] = (),
             chunks: Iterable[Chunk] = ()) -> None:
        """Store (paper, source hash) pairs, (alias, kept id, source, hash) rows and the papers'
        chunks for keyword search, atomically. A saved paper's old rows are replaced; a new
        paper's are not looked for."""
        papers = list(papers)
        aliases = list(aliases)
        with self.db:
            existing = self._existing([p.id for p, _ in papers] + [a[0] for a in aliases])
            self._remove_rows(existing)
            titles = {p.id: p.title or "" for p, _ in papers}
            self.db.executemany(
                "INSERT INTO chunks (id, paper_id, text, title, fts_text, fts_title) VALUES (?,?,?,?,?,?)",
                [(c.id, c.paper_id, c.text, title, *fts_columns(c.text, title))
                 for c in chunks for title in (titles.get(c.paper_id, ""),)])
            for paper, digest in papers:
                self._insert(paper, digest)
            self.db.executemany(
                "INSERT OR REPLACE INTO aliases (alias, paper_id, source, source_hash) "
                "VALUES (?,?,?,?)", aliases)

    def _existing(self, ids: list[str]) -> list[str]:
        found: list[str] = []
        for part, marks in batches(list(dict.fromkeys(ids))):
            found += [r[0] for r in self.db.execute(f"SELECT id FROM papers WHERE id IN ({marks})", part)]
        return found

    def _insert(self, paper: Paper, digest: str) -> None:
        key = dedupe_key(paper.text) if paper.text else None
        self.db.execute(
            "INSERT INTO papers (id, source, record, source_hash, year, venue, has_abstract, method, "
            "dedupe_key) VALUES (?,?,?,?,?,?,?,?,?)",
            (paper.id, paper.source, dump_paper(replace(paper, aliases=())), digest, paper.year,
             paper.venue, int(paper.has_abstract), paper.method, key))
        if paper.venue:
            self.db.execute("INSERT OR IGNORE INTO venues (name, norm) VALUES (?, ?)",
                            (paper.venue, fold(paper.venue)))
        self.db.executemany(INSERT_AUTHOR_TOKENS, author_token_rows(paper.id, paper.authors))
        if paper.text:
            self.db.executemany("INSERT OR IGNORE INTO lsh (band_key, paper_id) VALUES (?, ?)",
                                [(k, paper.id) for k in band_keys(shingle_hashes(paper.text))])

    def _remove_rows(self, ids: Sequence[str]) -> None:
        rows = [(i,) for i in ids]
        for table, key in (("papers", "id"), ("chunks", "paper_id"), ("author_tokens", "paper_id"),
                           ("lsh", "paper_id"), ("sentence_vectors", "paper_id")):
            self.db.executemany(f"DELETE FROM {table} WHERE {key} = ?", rows)

    def remove(self, ids: Iterable[str]) -> None:
        gone = list(ids)
        with self.db:
            self._remove_rows(gone)
            self.db.executemany("DELETE FROM aliases WHERE alias = ?", [(i,) for i in gone])

    def forget(self, ids: Iterable[str]) -> None:
        """Drop these papers' stored hashes: the next ingest indexes them again."""
        with self.db:
            self.db.executemany("UPDATE papers SET source_hash = '' WHERE id = ?", [(i,) for i in ids])

    def clear(self) -> None:
        with self.db:
            for table in ("papers", "aliases", "chunks", "author_tokens", "lsh", "venues", "meta",
                          "sentence_vectors"):
                self.db.execute(f"DELETE FROM {table}")
