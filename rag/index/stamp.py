"""The index generation stamp: ``index.json`` in the data directory, written last by every
ingest (atomically: a temporary file renamed over it). It names the live catalogue file and
vector collection and the counts they had, so that

- a running service notices a finished ingest with one ``stat`` and reopens (``live.py``);
- ``--rebuild`` builds a new catalogue file and collection beside the live ones and swaps them
  in by writing the stamp, so readers never see an empty or half-built index;
- a catalogue and a vector store that disagree (a lost file) are detected, not trusted.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rag.settings import Settings

STAMP_FILE = "index.json"


@dataclass(frozen=True)
class Stamp:
    generation: int = 0
    collection: str = "abstracts"
    catalog: str = "papers.sqlite"
    papers: int = 0
    chunks: int = 0

    def next_build(self, base: str) -> Stamp:
        """Where a rebuild writes: a new catalogue file and collection for the next generation."""
        generation = self.generation + 1
        return replace(self, generation=generation, collection=f"{base}-g{generation}",
                       catalog=f"papers-g{generation}.sqlite", papers=0, chunks=0)


def stamp_path(settings: Settings) -> Path:
    return settings.data_dir / STAMP_FILE


def read_stamp_file(path: Path) -> Stamp | None:
    """The stamp in this file, or None when it is missing or unreadable."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return Stamp(**{k: data[k] for k in Stamp.__dataclass_fields__ if k in data})
    except (OSError, ValueError, TypeError):
        return None


def write_stamp_file(path: Path, stamp: Stamp) -> None:
    """Write atomically: a temporary file, flushed, renamed over the stamp."""
    temporary = path.with_name(f"{path.name}.tmp-{os.getpid()}")
    with temporary.open("w", encoding="utf-8") as handle:
        json.dump(asdict(stamp), handle)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)


def file_token(path: Path) -> tuple[int, int, int] | None:
    """A cheap fingerprint of a stamp file (one stat): it changes when the file is replaced."""
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_ino, st.st_mtime_ns, st.st_size


def read_stamp(settings: Settings) -> Stamp:
    """The live generation; before the first ingest, generation 0 with the default names."""
    return read_stamp_file(stamp_path(settings)) or Stamp(collection=settings.collection)


def write_stamp(settings: Settings, stamp: Stamp) -> None:
    write_stamp_file(stamp_path(settings), stamp)


def stamp_token(settings: Settings) -> tuple[int, int, int] | None:
    """One ``stat`` of the local stamp: it changes when an ingest finishes."""
    return file_token(stamp_path(settings))
