"""The paper catalogue: every paper record (metadata-only ones included) in SQLite next to the
vector index, with the hash of the record as parsed, so re-ingest can skip what has not changed.

It also holds the keyword index: an FTS5 table of the same chunks as the vector index, ranked
with SQLite's built-in Okapi BM25. Chunks are written in the same transaction as their paper,
so the keyword index can never drift from the catalogue, and it is never rebuilt on start-up.

Merged duplicates live in ``aliases`` (alias id -> kept id) and are folded into
``Paper.aliases`` when a paper is read.
"""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, replace
from pathlib import Path

from .errors import StoreError
from .types import Chunk, Paper

log = logging.getLogger(__name__)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS papers (
    id TEXT PRIMARY KEY, source TEXT NOT NULL, record TEXT NOT NULL, source_hash TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS papers_source ON papers(source);
CREATE TABLE IF NOT EXISTS aliases (
    alias TEXT PRIMARY KEY, paper_id TEXT NOT NULL, source TEXT NOT NULL, source_hash TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS aliases_source ON aliases(source);
CREATE VIRTUAL TABLE IF NOT EXISTS chunk_fts USING fts5(
    chunk_id UNINDEXED, paper_id UNINDEXED, text, tokenize = 'porter unicode61'
);
"""


def _dump(paper: Paper) -> str:
    data = asdict(paper)
    data.pop("aliases")
    return json.dumps(data, ensure_ascii=False)


def _load(record: str, aliases: tuple[str, ...] = ()) -> Paper:
    data = json.loads(record)
    data["authors"] = tuple(data["authors"])
    return Paper(**data, aliases=aliases)


class Catalog:
    def __init__(self, path: Path) -> None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(path, check_same_thread=False)
            self.db.executescript(_SCHEMA)
        except (OSError, sqlite3.Error) as exc:
            raise StoreError(f"cannot open the paper catalogue {path}: {exc}. Check the data "
                             "directory (RAG_DATA_DIR) or run `rag ingest --rebuild`.") from exc

    def close(self) -> None:
        self.db.close()

    def clear(self) -> None:
        with self.db:
            self.db.execute("DELETE FROM papers")
            self.db.execute("DELETE FROM aliases")
            self.db.execute("DELETE FROM chunk_fts")

    def count(self) -> int:
        return int(self.db.execute("SELECT count(*) FROM papers").fetchone()[0])

    def hashes(self, ids: Iterable[str]) -> dict[str, str]:
        """Stored source hashes for these ids, papers and aliases alike."""
        wanted = list(ids)
        found: dict[str, str] = {}
        for start in range(0, len(wanted), 500):
            part = wanted[start : start + 500]
            marks = ",".join("?" * len(part))
            for table, key in (("papers", "id"), ("aliases", "alias")):
                rows = self.db.execute(
                    f"SELECT {key}, source_hash FROM {table} WHERE {key} IN ({marks})", part)
                found.update(dict(rows.fetchall()))
        return found

    def get(self, paper_id: str) -> Paper | None:
        row = self.db.execute("SELECT id, record FROM papers WHERE id = ?", (paper_id,)).fetchone()
        if row is None:
            target = self.db.execute("SELECT paper_id FROM aliases WHERE alias = ?",
                                     (paper_id,)).fetchone()
            if target is None:
                return None
            return self.get(target[0])
        return _load(row[1], self._aliases_of(row[0]))

    def get_many(self, ids: Iterable[str]) -> dict[str, Paper]:
        return {pid: p for pid in dict.fromkeys(ids) if (p := self.get(pid)) is not None}

    def _aliases_of(self, paper_id: str) -> tuple[str, ...]:
        rows = self.db.execute("SELECT alias FROM aliases WHERE paper_id = ? ORDER BY alias",
                               (paper_id,))
        return tuple(r[0] for r in rows)

    def papers(self) -> Iterator[Paper]:
        for pid, record in self.db.execute("SELECT id, record FROM papers ORDER BY id").fetchall():
            yield _load(record, self._aliases_of(pid))

    def save(self, papers: Iterable[tuple[Paper, str]],
             aliases: Iterable[tuple[str, str, str, str]] = (),
             chunks: Iterable[Chunk] = ()) -> None:
        """Store (paper, source hash) pairs, (alias, kept id, source, hash) rows and the papers'
        chunks for keyword search, atomically. A saved paper's old chunks are replaced."""
        papers = list(papers)
        with self.db:
            self.db.executemany("DELETE FROM chunk_fts WHERE paper_id = ?",
                                [(p.id,) for p, _ in papers])
            self.db.executemany("INSERT INTO chunk_fts (chunk_id, paper_id, text) VALUES (?,?,?)",
                                [(c.id, c.paper_id, c.text) for c in chunks])
            self.db.executemany(
                "INSERT OR REPLACE INTO papers (id, source, record, source_hash) VALUES (?,?,?,?)",
                [(p.id, p.source, _dump(replace(p, aliases=())), h) for p, h in papers],
            )
            self.db.executemany(
                "INSERT OR REPLACE INTO aliases (alias, paper_id, source, source_hash) "
                "VALUES (?,?,?,?)", list(aliases))
            self.db.execute("DELETE FROM papers WHERE id IN (SELECT alias FROM aliases)")

    def ids_from(self, source: str) -> set[str]:
        rows = self.db.execute("SELECT id FROM papers WHERE source = ? UNION "
                               "SELECT alias FROM aliases WHERE source = ?", (source, source))
        return {r[0] for r in rows}

    def remove(self, ids: Iterable[str]) -> None:
        gone = list(ids)
        with self.db:
            self.db.executemany("DELETE FROM papers WHERE id = ?", [(i,) for i in gone])
            self.db.executemany("DELETE FROM chunk_fts WHERE paper_id = ?", [(i,) for i in gone])
            self.db.executemany("DELETE FROM aliases WHERE alias = ?", [(i,) for i in gone])

    def keyword_search(self, match: str, limit: int,
                       paper_ids: Sequence[str] | None = None) -> list[tuple[str, str, str, float]]:
        """(chunk id, paper id, text, BM25 score; higher is better) for an FTS5 MATCH expression,
        optionally only within some papers."""
        sql = ("SELECT chunk_id, paper_id, text, -bm25(chunk_fts) FROM chunk_fts "
               "WHERE chunk_fts MATCH ?")
        params: list[object] = [match]
        if paper_ids is not None:
            sql += f" AND paper_id IN ({','.join('?' * len(paper_ids))})"
            params += list(paper_ids)
        sql += " ORDER BY bm25(chunk_fts) LIMIT ?"
        try:
            rows = self.db.execute(sql, [*params, limit]).fetchall()
        except sqlite3.OperationalError as exc:  # a query FTS5 cannot parse matches nothing
            log.warning("keyword query %r failed: %s", match, exc)
            return []
        return [(r[0], r[1], r[2], float(r[3])) for r in rows]

    def keyword_count(self) -> int:
        return int(self.db.execute("SELECT count(*) FROM chunk_fts").fetchone()[0])
