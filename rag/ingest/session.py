"""The one writer session: everything that writes the index (``rag ingest``, ``rag ingest
--rebuild``) does it inside ``writer_session``, and the live service asks ``writing_now``.

The ritual, in this order, for the whole block:

1. ``diskspace.writing``: a full disk is said plainly, not as a storage traceback;
2. the shared folder's writer lease (``lease.py``), when a snapshot folder is set: one writer
   across machines;
3. the writer lock (``writer.lock`` in the data folder): one writer on this machine, because
   embedded Chroma is thread-safe but not process-safe; the HTTP service only reads;
4. ``generation.begin``: the live generation, read only once the lock is held;

and ``session.finish(lib, report)`` stamps (and publishes) the next generation at the end.
"""

from __future__ import annotations

import fcntl
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rag.errors import StoreError
from rag.index.diskspace import writing
from rag.index.lease import Lease, shared_lease
from rag.ingest.generation import Changes, Start, begin, finish

if TYPE_CHECKING:
    from rag.index.library import Library
    from rag.settings import Settings

LOCK_FILE = "writer.lock"


@dataclass(frozen=True)
class WriterSession:
    """What a writer holds between ``begin`` and ``finish``."""

    settings: Settings
    start: Start
    lease: Lease | None

    def finish(self, lib: Library, report: Changes, *, force: bool = False) -> None:
        """Stamp what was written as the next generation (always, with ``force``), then publish."""
        report.recovered = self.start.recovered
        finish(lib, report, self.start, self.lease, force=force)


@contextmanager
def writer_session(settings: Settings, *, wait: float = 0.0,
                   rebuild: bool = False) -> Iterator[WriterSession]:
    """Hold the disk check, the shared lease and the writer lock for the block, and begin."""
    with writing(settings.data_dir, settings.store.mode == "server"), \
            shared_lease(settings) as lease, writer_lock(settings.data_dir, wait):
        yield WriterSession(settings, begin(settings, rebuild=rebuild), lease)


@contextmanager
def writer_lock(data_dir: Path, wait: float = 0.0) -> Iterator[None]:
    """One writer at a time on this data folder. Another writer is waited for up to ``wait``
    seconds, then refused."""
    data_dir.mkdir(parents=True, exist_ok=True)
    deadline = time.monotonic() + max(wait, 0.5)  # a reader testing the lock holds it for microseconds
    with (data_dir / LOCK_FILE).open("w") as handle:
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise StoreError(f"another `rag ingest` is writing to {data_dir}; wait for it "
                                     "to finish (or pass --wait SECONDS to wait for it).") from None
                time.sleep(0.025 if wait < 1 else 0.2)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def writing_now(data_dir: Path) -> bool:
    """True while a writer session holds this data folder's writer lock."""
    path = data_dir / LOCK_FILE
    if not path.exists():
        return False
    with path.open("a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        fcntl.flock(handle, fcntl.LOCK_UN)
        return False
