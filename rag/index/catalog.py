"""The paper catalogue: every paper record (metadata-only ones included) in SQLite next to the
vector index, with the hash of the record as parsed, so re-ingest can skip what has not changed.

Everything a question or an ingest looks up is an indexed column or table, so no lookup scans
the catalogue: year, venue, source and method name are columns with indexes; author names are
normalised tokens (``author_tokens``); near-duplicate detection keeps MinHash band keys
(``lsh``, see ``dedupe.py``) and an exact-text key. The keyword index is an external-content
FTS5 table over ``chunks`` (ranked with SQLite's Okapi BM25): a paper's rows are found and
deleted through an index, and a new paper deletes nothing. Chunks are written in the same
transaction as their paper, so the keyword index never drifts from the catalogue.

Merged duplicates live in ``aliases`` (alias id -> kept id) and are folded into
``Paper.aliases`` when a paper is read. ``meta`` holds the index generation (``live.py``).

Readers that must see one consistent state while an ingest writes (the service) open the
catalogue ``pinned``: one read transaction, a snapshot in WAL mode, until they reopen.
"""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from rag.errors import IndexMismatchError, StoreError
from rag.index.catalog_schema import OLDEST_MIGRATED, SCHEMA, SCHEMA_VERSION, batches, load_paper, migrate
from rag.index.catalog_writer import CatalogWriter
from rag.index.filters import Filters, paper_condition
from rag.text.authors import fold
from rag.text.clean import content_hash
from rag.types import Chunk, Paper

log = logging.getLogger(__name__)
_FEW_PAPERS = 200  # a filter this selective is searched chunk by chunk


class Catalog(CatalogWriter):
    def __init__(self, path: Path, *, pinned: bool = False) -> None:
        self.path = path
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(path, check_same_thread=False, timeout=30,
                                      isolation_level=None if pinned else "DEFERRED")
            self._prepare()
            if pinned:  # one snapshot for this reader until it reopens
                self.db.execute("BEGIN")
                self.db.execute("SELECT count(*) FROM meta").fetchone()
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"cannot open the paper catalogue {path}: {exc}. Check the data "
                             "directory (RAG_DATA_DIR) or run `rag ingest --rebuild`.") from exc
        except OSError as exc:
            raise StoreError(f"cannot open the paper catalogue {path}: {exc}. Check the data "
                             "directory (RAG_DATA_DIR).") from exc

    def _prepare(self) -> None:
        version = self.db.execute("PRAGMA user_version").fetchone()[0]
        tables = {r[0] for r in self.db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if "papers" in tables and OLDEST_MIGRATED <= version < SCHEMA_VERSION:
            self._migrate()
            version = SCHEMA_VERSION
        if "papers" in tables and version < SCHEMA_VERSION:
            raise IndexMismatchError(
                f"the paper catalogue {self.path} was written by an older version of abstract-rag. "
                "Run `rag ingest --rebuild` to build it again.")
        if version < SCHEMA_VERSION:
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.executescript(SCHEMA)
            self.db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def _migrate(self) -> None:
        """Versions 2 to 6 -> 7 in place, in one transaction (a second process waits, then sees 7)."""
        self.db.execute("BEGIN IMMEDIATE")
        try:
            version = self.db.execute("PRAGMA user_version").fetchone()[0]
            for step in migrate(self.db, version):
                log.info("catalogue %s: %s", self.path, step)
            self.db.execute("COMMIT")
        except sqlite3.DatabaseError:
            self.db.execute("ROLLBACK")
            raise

    def close(self) -> None:
        self.db.close()

    # ------------------------------------------------------------------ reading
    def count(self) -> int:
        return int(self.db.execute("SELECT count(*) FROM papers").fetchone()[0])

    def empty(self) -> bool:
        return self.db.execute("SELECT 1 FROM papers LIMIT 1").fetchone() is None

    def chunk_count(self) -> int:
        return int(self.db.execute("SELECT count(*) FROM chunks").fetchone()[0])

    def chunk_estimate(self) -> int:
        """About how many chunks there are (the largest rowid: one index probe, not a count)."""
        return int(self.db.execute("SELECT coalesce(max(rowid), 0) FROM chunks").fetchone()[0])

    def hashes(self, ids: Iterable[str]) -> dict[str, str]:
        """Stored source hashes for these ids, papers and aliases alike."""
        found: dict[str, str] = {}
        for part, marks in batches(list(ids)):
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
        return load_paper(row[1], self._aliases_of(row[0]))

    def get_many(self, ids: Iterable[str]) -> dict[str, Paper]:
        return {pid: p for pid in dict.fromkeys(ids) if (p := self.get(pid)) is not None}

    def _aliases_of(self, paper_id: str) -> tuple[str, ...]:
        rows = self.db.execute("SELECT alias FROM aliases WHERE paper_id = ? ORDER BY alias",
                               (paper_id,))
        return tuple(r[0] for r in rows)

    def papers(self) -> Iterator[Paper]:
        """Every paper (a full scan: for exports and tools, never on the question path)."""
        for pid, record in self.db.execute("SELECT id, record FROM papers ORDER BY id").fetchall():
            yield load_paper(record, self._aliases_of(pid))

    def chunks_of(self, paper_ids: Iterable[str]) -> list[Chunk]:
        """The stored chunks of these papers, in paper order then chunk order."""
        wanted = list(dict.fromkeys(paper_ids))
        rows: dict[str, list[Chunk]] = {pid: [] for pid in wanted}
        for part, marks in batches(wanted):
            for cid, pid, text in self.db.execute(
                    f"SELECT id, paper_id, text FROM chunks WHERE paper_id IN ({marks})", part):
                rows[pid].append(Chunk(id=cid, paper_id=pid, index=int(cid.rsplit("#", 1)[-1]),
                                       text=text, text_hash=content_hash(text)))
        return [c for pid in wanted for c in sorted(rows[pid], key=lambda c: c.index)]

    # ------------------------------------------------------------------ filters and lookups
    def paper_ids(self, filters: Filters, *, limit: int | None = None,
                  abstract: bool | None = None) -> list[str]:
        """Ids of papers passing the filters (indexed), optionally only those with(out) an
        abstract, in id order."""
        where, params = paper_condition(filters)
        if abstract is not None:
            where += f" AND p.has_abstract = {int(abstract)}"
        # papers without an abstract are few: walk their partial index, not the year range
        hint = " INDEXED BY papers_no_abstract" if abstract is False else ""
        sql = f"SELECT p.id FROM papers p{hint} WHERE {where} ORDER BY p.id"
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        return [r[0] for r in self.db.execute(sql, params)]

    def page(self, filters: Filters, text: str, offset: int, limit: int) -> tuple[int, list[Paper]]:
        """(total, one page of papers) passing the filters whose record contains ``text``."""
        where, params = paper_condition(filters)
        if text:
            where += " AND instr(lower(p.record), ?) > 0"
            params = [*params, text.lower()]
        total = int(self.db.execute(f"SELECT count(*) FROM papers p WHERE {where}", params).fetchone()[0])
        rows = self.db.execute(f"SELECT p.id, p.record FROM papers p WHERE {where} ORDER BY p.id "
                               "LIMIT ? OFFSET ?", [*params, limit, offset]).fetchall()
        return total, [load_paper(record, self._aliases_of(pid)) for pid, record in rows]

    def count_matching(self, filters: Filters) -> int:
        where, params = paper_condition(filters)
        return int(self.db.execute(f"SELECT count(*) FROM papers p WHERE {where}", params).fetchone()[0])

    def filter_ids(self, ids: Iterable[str], filters: Filters) -> set[str]:
        """Those of these ids whose papers pass the filters."""
        where, params = paper_condition(filters)
        kept: set[str] = set()
        for part, marks in batches(list(dict.fromkeys(ids))):
            rows = self.db.execute(f"SELECT p.id FROM papers p WHERE p.id IN ({marks}) AND {where}",
                                   [*part, *params])
            kept.update(r[0] for r in rows)
        return kept

    def venues_matching(self, text: str) -> list[str]:
        """Venue names containing this text (case and diacritics ignored)."""
        rows = self.db.execute("SELECT name FROM venues WHERE instr(norm, ?) > 0", (fold(text),))
        return [r[0] for r in rows]

    def sources_matching(self, prefix: str) -> list[str]:
        rows = self.db.execute("SELECT DISTINCT source FROM papers WHERE source >= ? AND source < ?",
                               (prefix, prefix + "\uffff"))
        return [r[0] for r in rows]

    def method_papers(self, names: Iterable[str]) -> dict[str, list[str]]:
        """Lower-cased method name -> ids of the papers whose abstracts introduce it."""
        found: dict[str, list[str]] = {}
        for part, marks in batches([n.lower() for n in dict.fromkeys(names)]):
            for name, pid in self.db.execute(
                    f"SELECT lower(method), id FROM papers WHERE method IS NOT NULL AND "
                    f"lower(method) IN ({marks}) ORDER BY id", part):
                found.setdefault(name, []).append(pid)
        return found

    def title_names(self, words: Iterable[str]) -> set[str]:
        """The lower-cased ``words`` a title opens with as its name ("Quarrystone: sonar ...")."""
        escaped = {w.lower(): w.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") for w in words}
        return {w for w, e in escaped.items() if self.db.execute(
            "SELECT 1 FROM chunks WHERE lower(title) LIKE ? ESCAPE '\\' LIMIT 1", (e + ":%",)).fetchone()}

    def method_names(self) -> list[str]:
        return [r[0] for r in self.db.execute(
            "SELECT DISTINCT lower(method) FROM papers WHERE method IS NOT NULL")]

    # ------------------------------------------------------------------ duplicates (dedupe.py)
    def exact_duplicate(self, key: str, not_id: str) -> str | None:
        row = self.db.execute("SELECT id FROM papers WHERE dedupe_key = ? AND id != ? LIMIT 1",
                              (key, not_id)).fetchone()
        return row[0] if row else None

    def band_members(self, keys: Sequence[int], most: int) -> dict[int, list[str]]:
        """The paper ids of each band key that has at most ``most`` of them (``dedupe.py``); a
        crowded band (a big family of templated abstracts shares it) costs ``most`` index rows,
        not one per member, and is left out."""
        if not keys:
            return {}
        one = "SELECT ?, (SELECT count(*) FROM (SELECT 1 FROM lsh WHERE band_key = ? LIMIT ?))"
        sizes = self.db.execute(" UNION ALL ".join([one] * len(keys)),
                                [v for k in keys for v in (k, k, most + 1)]).fetchall()
        wanted = [key for key, size in sizes if 0 < size <= most]
        found: dict[int, list[str]] = {}
        for part, marks in batches(wanted):
            for key, paper_id in self.db.execute(
                    f"SELECT band_key, paper_id FROM lsh WHERE band_key IN ({marks})", part):
                found.setdefault(key, []).append(paper_id)
        return found

    # ------------------------------------------------------------------ keyword search
    def keyword_search(self, match: str, limit: int, filters: Filters | None = None,
                       title_weight: float = 1.0) -> list[tuple[str, str, str, float]]:
        """(chunk id, paper id, text, BM25 score; higher is better) for an FTS5 MATCH expression,
        optionally only within papers passing the filters (joined on indexed columns). A word
        of the paper's title counts ``title_weight`` times a word of the chunk's text."""
        rank = f"bm25(chunk_fts, 1.0, {float(title_weight)!r})"
        sql = (f"SELECT c.id, c.paper_id, c.text, -{rank} FROM chunk_fts "
               "JOIN chunks c ON c.rowid = chunk_fts.rowid")
        params: list[object] = []
        where = "chunk_fts MATCH ?"
        if filters is not None and filters.author and self.count_matching(filters) <= _FEW_PAPERS:
            # one author's papers: look their chunks up in the FTS index one by one, instead of
            # scoring every chunk that matches and dropping all but a few in the join
            condition, params = paper_condition(filters)
            rowids = [r[0] for r in self.db.execute(
                f"SELECT c.rowid FROM chunks c JOIN papers p ON p.id = c.paper_id WHERE {condition}", params)]
            where += " AND chunk_fts.rowid IN (SELECT value FROM json_each(?))"
            params, filters = [json.dumps(rowids)], None
        if filters is not None and filters.active:
            condition, params = paper_condition(filters)
            sql += " JOIN papers p ON p.id = c.paper_id"
            where += f" AND {condition}"
        sql += f" WHERE {where} ORDER BY {rank} LIMIT ?"
        try:
            rows = self.db.execute(sql, [match, *params, limit]).fetchall()
        except sqlite3.OperationalError as exc:  # a query FTS5 cannot parse matches nothing
            log.warning("keyword query %r failed: %s", match, exc)
            return []
        return [(r[0], r[1], r[2], float(r[3])) for r in rows]

    def keyword_count(self) -> int:
        return self.chunk_count()

    def keyword_hits(self, match: str, cap: int) -> int:
        """How many chunks match, counted up to ``cap`` without ranking them (so that a common
        word costs at most ``cap`` index rows, not a BM25 pass over every chunk that says it)."""
        try:
            row = self.db.execute("SELECT count(*) FROM (SELECT rowid FROM chunk_fts WHERE chunk_fts "
                                  "MATCH ? LIMIT ?)", (match, cap)).fetchone()
        except sqlite3.OperationalError as exc:
            log.warning("keyword query %r failed: %s", match, exc)
            return 0
        return int(row[0])

    # ------------------------------------------------------------------ meta (generation)
    def meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def set_meta(self, values: dict[str, str]) -> None:
        with self.db:
            self.db.executemany("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                                list(values.items()))

    def ids_from(self, source: str) -> set[str]:
        rows = self.db.execute("SELECT id FROM papers WHERE source = ? UNION "
                               "SELECT alias FROM aliases WHERE source = ?", (source, source))
        return {r[0] for r in rows}
