"""What every reader shares: the Problem of a row, the length cap, how files are decoded."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from rag.types import Paper


@dataclass(frozen=True)
class Problem:
    """A row that could not be read; the rest of the file is still ingested."""

    source: str
    line: int | None  # None: the problem is the whole file
    reason: str

    def __str__(self) -> str:
        where = f"{self.source}:{self.line}" if self.line is not None else self.source
        return f"{where}: {self.reason}"


Reader = Callable[[Path, int], Iterator[Paper | Problem]]  # (path, max abstract characters)
MAX_ABSTRACT_CHARS = 20_000  # the default of RAG_INGEST__MAX_ABSTRACT_CHARS
ENCODING_ERRORS = "surrogateescape"  # bad bytes reach their row, which is then reported


def abstract_problem(abstract: str, limit: int) -> str | None:
    """Why an abstract (as read, before any clean-up) cannot be used, or None."""
    if len(abstract) > limit:
        return (f"abstract is {len(abstract):,} characters long, over the cap of {limit:,} "
                "(RAG_INGEST__MAX_ABSTRACT_CHARS); skipped")
    return None
