"""Which input file gave each paper, by the file's resolved path.

A paper's ``source`` is the file's name (what filters and ids use); two files of the same name in
different folders are still different origins. After a file has been read to the end, the papers
it gave before and no longer gives are released; a paper is removed only when no file that was
read gives it any more. Papers indexed before origins were kept have none: they are never removed
by reading some other file that happens to share their file name.

The table lives in the catalogue's SQLite file, next to the papers it points at.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from pathlib import Path

_SCHEMA = """
CREATE TABLE IF NOT EXISTS origins (
    origin TEXT NOT NULL, paper_id TEXT NOT NULL, PRIMARY KEY (origin, paper_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS origins_paper ON origins(paper_id);
"""


def origin_of(path: Path) -> str:
    """The identity of an input file: its resolved, absolute path."""
    return str(Path(path).resolve())


class Origins:
    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db
        self.db.executescript(_SCHEMA)

    def ids_from(self, origin: str) -> set[str]:
        """Ids this file gave that are still in the catalogue (papers or merged aliases)."""
        rows = self.db.execute(
            "SELECT paper_id FROM origins WHERE origin = ? AND (paper_id IN (SELECT id FROM papers)"
            " OR paper_id IN (SELECT alias FROM aliases))", (origin,))
        return {r[0] for r in rows}

    def origins_of(self, paper_id: str) -> set[str]:
        return {r[0] for r in self.db.execute("SELECT origin FROM origins WHERE paper_id = ?", (paper_id,))}

    def claim(self, origin: str, ids: Iterable[str]) -> None:
        with self.db:
            self.db.executemany("INSERT OR IGNORE INTO origins (origin, paper_id) VALUES (?, ?)",
                                [(origin, i) for i in ids])

    def release(self, origin: str, ids: Iterable[str]) -> set[str]:
        """Forget that this file gives these ids; returns those no file gives any more."""
        gone = sorted(set(ids))
        with self.db:
            self.db.executemany("DELETE FROM origins WHERE origin = ? AND paper_id = ?",
                                [(origin, i) for i in gone])
        still: set[str] = set()
        for start in range(0, len(gone), 500):
            part = gone[start : start + 500]
            rows = self.db.execute(f"SELECT DISTINCT paper_id FROM origins WHERE paper_id IN "
                                   f"({','.join('?' * len(part))})", part)
            still.update(r[0] for r in rows)
        return set(gone) - still
