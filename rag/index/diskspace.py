"""A failing write, said in one line: a full disk told apart from other store failures.

Chroma reports a full disk in several ways ("database or disk is full", SQLite code 13, or only
"Error in compaction: Failed to apply logs" when the log was written and applying it was not),
so a store failure on a disk with almost no space left counts as a full disk too."""

from __future__ import annotations

import errno
import shutil
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from rag.errors import RagError, StoreError

LOW_SPACE = 32 * 1024 * 1024  # below this, a failed store write is taken for a full disk
_FULL = ("database or disk is full", "no space left on device", "disk quota exceeded", "(code: 13)")


class DiskFullError(StoreError):
    """A write failed because the disk holding the index is full."""


def _chain(exc: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def says_disk_full(exc: BaseException) -> bool:
    for link in _chain(exc):
        if isinstance(link, OSError) and link.errno in (errno.ENOSPC, errno.EDQUOT):
            return True
        if isinstance(link, sqlite3.Error) and getattr(link, "sqlite_errorcode", None) == 13:
            return True
        if any(text in str(link).lower() for text in _FULL):
            return True
    return False


def is_store_failure(exc: BaseException) -> bool:
    """Raised by the vector store, SQLite or the file system (not a bug of ours)."""
    return any(isinstance(link, sqlite3.Error | OSError) or type(link).__module__.startswith("chromadb")
               for link in _chain(exc))


def free_bytes(path: Path) -> int | None:
    for folder in (path, *path.parents):
        if folder.exists():
            try:
                return shutil.disk_usage(folder).free
            except OSError:
                return None
    return None


def _size(count: int) -> str:
    return f"{count / 1e6:.1f} MB" if count >= 1e5 else f"{count / 1e3:.0f} kB"


def write_failure(exc: BaseException, data_dir: Path, server: bool) -> StoreError:
    """The one-line error for a failed write of the index."""
    free = free_bytes(data_dir)
    low = free is not None and free < LOW_SPACE
    saved = ("what was finished is kept, and a running service keeps serving the generation it has "
             "open. Free some space, then run `rag ingest` again (nothing finished is embedded twice).")
    if says_disk_full(exc) or low:
        where = (f"the disk holding {data_dir} is full ({_size(free or 0)} free)" if low or not server
                 else "the Chroma server's disk is full")
        return DiskFullError(f"{where}: the ingest stopped; {saved}")
    first = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:200]
    where = "the Chroma server (check its disk and its log)" if server else str(data_dir)
    return StoreError(f"the index could not be written ({type(exc).__name__}: {first}); check "
                      f"{where}. What was finished is kept; run `rag ingest` again.")


@contextmanager
def writing(data_dir: Path, server: bool) -> Iterator[None]:
    """Store failures inside become one StoreError (a DiskFullError when the disk is full)."""
    try:
        yield
    except (RagError, KeyboardInterrupt) as exc:
        cause = exc.__cause__
        if isinstance(exc, StoreError) and not isinstance(exc, DiskFullError) and cause is not None \
                and is_store_failure(cause):  # e.g. "cannot be opened ... run --rebuild" on a full disk
            failure = write_failure(cause, data_dir, server)
            if isinstance(failure, DiskFullError):
                raise failure from exc
        raise
    except Exception as exc:
        if not is_store_failure(exc):
            raise
        raise write_failure(exc, data_dir, server) from exc
