"""The catalogue's tables (SQLite) and how a paper record is stored in them; the queries are in
``catalog.py``."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import asdict

from rag.text.authors import name_tokens
from rag.text.lexicon import spaced
from rag.text.names import method_name, spelled_out
from rag.types import Paper

SCHEMA_VERSION = 7  # 3: chunks carry their paper's title, a second (weighted) keyword column;
#                    4: a method spelled out before its short name is known by the short name;
#                    5: author names of any script are indexed ("王小明", not only Latin letters);
#                    6: the keyword index holds each character of Chinese, Japanese, Korean and Thai
#                       text as a word (``fts_text``: the chunk ``spaced``, where that differs);
#                    7: abstracts' sentence vectors, stored at ingest for the reader (``sentence_vectors``)
BATCH = 500

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS papers (
    id TEXT PRIMARY KEY, source TEXT NOT NULL, record TEXT NOT NULL, source_hash TEXT NOT NULL,
    year INTEGER, venue TEXT, has_abstract INTEGER NOT NULL, method TEXT, dedupe_key TEXT
);
CREATE INDEX IF NOT EXISTS papers_source ON papers(source);
CREATE INDEX IF NOT EXISTS papers_year ON papers(year);
CREATE INDEX IF NOT EXISTS papers_venue ON papers(venue);
CREATE INDEX IF NOT EXISTS papers_method ON papers(lower(method)) WHERE method IS NOT NULL;
CREATE INDEX IF NOT EXISTS papers_dedupe ON papers(dedupe_key);
CREATE INDEX IF NOT EXISTS papers_no_abstract ON papers(id) WHERE has_abstract = 0;
CREATE TABLE IF NOT EXISTS venues (name TEXT PRIMARY KEY, norm TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS author_tokens (
    token TEXT NOT NULL, paper_id TEXT NOT NULL, pos INTEGER NOT NULL,
    PRIMARY KEY (token, paper_id, pos)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS author_tokens_paper ON author_tokens(paper_id);
CREATE TABLE IF NOT EXISTS aliases (
    alias TEXT PRIMARY KEY, paper_id TEXT NOT NULL, source TEXT NOT NULL, source_hash TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS aliases_source ON aliases(source);
CREATE INDEX IF NOT EXISTS aliases_paper ON aliases(paper_id);
CREATE TABLE IF NOT EXISTS chunks (
    rowid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, paper_id TEXT NOT NULL, text TEXT NOT NULL,
    title TEXT NOT NULL DEFAULT '', fts_text TEXT, fts_title TEXT
);
CREATE INDEX IF NOT EXISTS chunks_paper ON chunks(paper_id);
{KEYWORD_INDEX}
CREATE TABLE IF NOT EXISTS lsh (
    band_key INTEGER NOT NULL, paper_id TEXT NOT NULL, PRIMARY KEY (band_key, paper_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS lsh_paper ON lsh(paper_id);
{SENTENCE_VECTORS}
"""
KEYWORD_TRIGGERS = (
    """CREATE TRIGGER IF NOT EXISTS chunks_added AFTER INSERT ON chunks BEGIN
    INSERT INTO chunk_fts (rowid, text, title)
    VALUES (new.rowid, coalesce(new.fts_text, new.text), coalesce(new.fts_title, new.title));
END""",
    """CREATE TRIGGER IF NOT EXISTS chunks_removed AFTER DELETE ON chunks BEGIN
    INSERT INTO chunk_fts (chunk_fts, rowid, text, title)
    VALUES ('delete', old.rowid, coalesce(old.fts_text, old.text), coalesce(old.fts_title, old.title));
END""",
)
KEYWORD_INDEX_STATEMENTS = (
    """CREATE VIRTUAL TABLE IF NOT EXISTS chunk_fts USING fts5(
    text, title, content = 'chunks', content_rowid = 'rowid', tokenize = 'porter unicode61')""",
    *KEYWORD_TRIGGERS,
)
# A sentence's vector under the embedder that made it, keyed by a hash of its exact text (the
# reader looks sentences up by text); a paper's rows go with the paper. A rowid table: a 1.5 KB
# vector fits a row of its page, where a WITHOUT ROWID row spills to overflow pages (the
# catalogue was four times the size).
SENTENCE_VECTORS = (
    """CREATE TABLE IF NOT EXISTS sentence_vectors (
    paper_id TEXT NOT NULL, key TEXT NOT NULL, embedder TEXT NOT NULL, vector BLOB NOT NULL)""",
    "CREATE UNIQUE INDEX IF NOT EXISTS sentence_vectors_row ON sentence_vectors(paper_id, key, embedder)",
    "CREATE INDEX IF NOT EXISTS sentence_vectors_key ON sentence_vectors(key, embedder)",
)
SCHEMA = SCHEMA.replace("{KEYWORD_INDEX}", ";\n".join(KEYWORD_INDEX_STATEMENTS) + ";") \
    .replace("{SENTENCE_VECTORS}", ";\n".join(SENTENCE_VECTORS) + ";")

# Version 2 -> 3, in place (no re-embedding): chunks get their paper's title, the keyword index
# is rebuilt with a title column.
MIGRATE_2_TO_3 = (
    "ALTER TABLE chunks ADD COLUMN title TEXT NOT NULL DEFAULT ''",
    "UPDATE chunks SET title = coalesce((SELECT json_extract(p.record, '$.title') FROM papers p "
    "WHERE p.id = chunks.paper_id), '')",
    "DROP TRIGGER IF EXISTS chunks_added", "DROP TRIGGER IF EXISTS chunks_removed",
    "DROP TABLE IF EXISTS chunk_fts",
    *KEYWORD_INDEX_STATEMENTS,
    "INSERT INTO chunk_fts (chunk_fts) VALUES ('rebuild')",
)


OLDEST_MIGRATED = 2  # older catalogues are built again (`rag ingest --rebuild`)
INSERT_AUTHOR_TOKENS = "INSERT OR IGNORE INTO author_tokens (token, paper_id, pos) VALUES (?,?,?)"


def author_token_rows(paper_id: str, authors: Sequence[str]) -> list[tuple[str, str, int]]:
    """The ``author_tokens`` rows of a paper: each word of each author's name, with the author's place."""
    return [(t, paper_id, pos) for pos, name in enumerate(authors) for t in name_tokens(name)]


def _set_method(db: sqlite3.Connection, paper_id: str, data: dict[str, object], method: str) -> None:
    data["method"] = method
    db.execute("UPDATE papers SET record = ?, method = ? WHERE id = ?",
               (json.dumps(data, ensure_ascii=False), method, paper_id))


def migrate(db: sqlite3.Connection, version: int) -> list[str]:
    """An older catalogue (versions 2 to 6) brought to SCHEMA_VERSION in place, inside the caller's
    transaction; what each step changed, for the log."""
    done = []
    if version == 2:
        for statement in MIGRATE_2_TO_3:
            db.execute(statement)
    if version in (2, 3):
        done.append(f"{rename_methods(db)} methods renamed to short names")
    if version in (2, 3, 4):
        done.append(f"{retoken_authors(db)} papers' author names indexed again")
    if version in (2, 3, 4, 5):
        done.append(f"{space_keyword_index(db)} chunks' characters indexed one by one")
        done.append(f"{name_methods_any_script(db)} methods named in letters of any script")
    for statement in SENTENCE_VECTORS:  # 6 -> 7: filled by the next `rag ingest`
        db.execute(statement)
    done.append("sentence vectors: the next `rag ingest` stores them")
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    return done


def fts_columns(text: str, title: str) -> tuple[str | None, str | None]:
    """What the keyword index reads instead of a chunk's text and title (None: the same)."""
    fts_text, fts_title = spaced(text), spaced(title)
    return (None if fts_text == text else fts_text), (None if fts_title == title else fts_title)


def space_keyword_index(db: sqlite3.Connection) -> int:
    """Version 5 -> 6, in place: chunks get ``fts_text`` and ``fts_title``, the triggers read
    them, and each chunk whose text or title is written without spaces is indexed again. Returns
    how many were."""
    have = {r[1] for r in db.execute("PRAGMA table_info(chunks)")}
    for column in ("fts_text", "fts_title"):
        if column not in have:
            db.execute(f"ALTER TABLE chunks ADD COLUMN {column} TEXT")
    db.execute("DROP TRIGGER IF EXISTS chunks_added")
    db.execute("DROP TRIGGER IF EXISTS chunks_removed")
    for statement in KEYWORD_TRIGGERS:
        db.execute(statement)
    changed = 0
    for rowid, text, title in db.execute("SELECT rowid, text, title FROM chunks").fetchall():
        fts_text, fts_title = fts_columns(text, title)
        if fts_text is None and fts_title is None:
            continue
        db.execute("INSERT INTO chunk_fts (chunk_fts, rowid, text, title) VALUES ('delete', ?, ?, ?)",
                   (rowid, text, title))
        db.execute("UPDATE chunks SET fts_text = ?, fts_title = ? WHERE rowid = ?", (fts_text, fts_title, rowid))
        db.execute("INSERT INTO chunk_fts (rowid, text, title) VALUES (?, ?, ?)",
                   (rowid, fts_text or text, fts_title or title))
        changed += 1
    return changed


def name_methods_any_script(db: sqlite3.Connection) -> int:
    """Version 5 -> 6, in place: the method an abstract with letters beyond ASCII introduces is
    read again ("We present Ümlaut-Net" had no name; "We propose ÉLAN" none either). Returns how
    many papers changed."""
    changed = 0
    for pid, record in db.execute("SELECT id, record FROM papers").fetchall():
        data = json.loads(record)
        text = data.get("text") or ""
        if text.isascii():
            continue
        found = method_name(text)
        if found and found != data.get("method"):
            _set_method(db, pid, data, found)
            changed += 1
    return changed


def rename_methods(db: sqlite3.Connection) -> int:
    """Version 3 -> 4, in place: a paper whose method was read as the first word of a name the
    abstract spells out ("Entropy-Based" of "Entropy-Based Adaptive Weighting for Self-Training
    (EAST)") is known by the short name, in its record and its column. Only such papers change
    (a merged record may carry its duplicate's name). Returns how many changed."""
    changed = 0
    for pid, record in db.execute("SELECT id, record FROM papers WHERE method IS NOT NULL").fetchall():
        data = json.loads(record)
        old, found = data.get("method"), method_name(data["text"])
        if old and found and found != old and spelled_out(data["text"], old) == found:
            _set_method(db, pid, data, found)
            changed += 1
    return changed


def retoken_authors(db: sqlite3.Connection) -> int:
    """Version 4 -> 5, in place: every paper's author tokens read again with ``name_tokens``, which
    now keeps letters of any script (a name in Chinese or Greek had no tokens, so no author filter
    found it). Returns how many papers gained or lost a token."""
    changed = 0
    for pid, record in db.execute("SELECT id, record FROM papers").fetchall():
        rows = set(author_token_rows(pid, json.loads(record).get("authors") or []))
        if rows != set(db.execute("SELECT token, paper_id, pos FROM author_tokens WHERE paper_id = ?", (pid,))):
            db.execute("DELETE FROM author_tokens WHERE paper_id = ?", (pid,))
            db.executemany(INSERT_AUTHOR_TOKENS, sorted(rows))
            changed += 1
    return changed


def dump_paper(paper: Paper) -> str:
    data = asdict(paper)
    data.pop("aliases")
    return json.dumps(data, ensure_ascii=False)


def load_paper(record: str, aliases: tuple[str, ...] = ()) -> Paper:
    data = json.loads(record)
    data["authors"] = tuple(data["authors"])
    return Paper(**data, aliases=aliases)


def batches(items: Sequence[str]) -> Iterator[tuple[list[str], str]]:
    for start in range(0, len(items), BATCH):
        part = list(items[start : start + BATCH])
        yield part, ",".join("?" * len(part))
