"""The index generation stamp: ``index.json`` in the data directory, written last by every
ingest (atomically: a temporary file renamed over it). It says which generation is live, so that

- a running service notices a finished ingest with one ``stat`` and reopens (``live.py``);
- ``--rebuild`` builds a new catalogue file and collection beside the live ones and swaps them
  in by writing the stamp, so readers never see an empty or half-built index;
- a catalogue and a vector store that disagree (a lost file) are detected, not trusted.

A stamp names generations, never paths: ``build`` is the rebuild whose vector collection is
live (``abstracts`` for 0, ``abstracts-g3`` for 3) and ``catalog`` the generation whose
catalogue file is live (``papers.sqlite`` for 0, ``papers-g3.sqlite`` for 3); every file name
is made here from those numbers and resolved inside its folder. A stamp that cannot be read or
that names anything else is a ``StampError``: never "generation 0". Writers replace it with a
compare-and-swap (``swap_stamp``), so a writer that started from an older generation cannot
stamp over a newer one.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rag.errors import StoreError

if TYPE_CHECKING:
    from rag.settings import Settings

STAMP_FILE = "index.json"
FORMAT = 2
_LARGEST = 10**12
_CATALOG = re.compile(r"papers(?:-g(\d{1,12}))?\.sqlite")
_CHECKSUM = re.compile(r"[0-9a-f]{64}")
RESTORE = ("Run `rag ingest` to restore it from the newest intact generation on disk (the "
           "index itself is untouched).")


class StampError(StoreError):
    """The stamp cannot be read, or it names something a stamp may not."""


class StampConflict(StoreError):
    """Another writer stamped while this one worked (the compare-and-swap failed)."""


@dataclass(frozen=True)
class Stamp:
    generation: int = 0
    build: int = 0  # the rebuild whose collection is live
    catalog_of: int = 0  # the generation whose catalogue file is live
    papers: int = 0
    chunks: int = 0
    checksum: str = ""  # sha256 of a published snapshot (shared stamps, and what followed them)
    base: str = field(default="abstracts", compare=False)  # RAG_COLLECTION, never read from a file

    @property
    def collection(self) -> str:
        return collection_name(self.base, self.build)

    @property
    def catalog(self) -> str:
        return catalog_name(self.catalog_of)

    @property
    def files(self) -> tuple[int, int]:
        """What a reader opens: the same pair means the same collection and catalogue file."""
        return self.build, self.catalog_of

    def next_build(self, build: int | None = None) -> Stamp:
        """Where a rebuild writes: the next generation, with its own catalogue file and (unless a
        stopped rebuild's ``build`` is resumed) its own collection."""
        generation = self.generation + 1
        return replace(self, generation=generation, build=build or generation, catalog_of=generation,
                       papers=0, chunks=0, checksum="")

    def to_json(self) -> dict[str, Any]:
        data = {"format": FORMAT, "generation": self.generation, "build": self.build,
                "catalog": self.catalog_of, "papers": self.papers, "chunks": self.chunks}
        return {**data, "checksum": self.checksum} if self.checksum else data


def catalog_name(number: int) -> str:
    return "papers.sqlite" if number == 0 else f"papers-g{number}.sqlite"


def catalog_number(name: str) -> int | None:
    """The generation a catalogue file name stands for, or None for any other name."""
    match = _CATALOG.fullmatch(name)
    return None if match is None else int(match.group(1) or 0)


def collection_name(base: str, build: int) -> str:
    return base if build == 0 else f"{base}-g{build}"


def collection_build(base: str, name: str) -> int | None:
    """The build a collection name stands for, or None when it is not one of ``base``'s."""
    if name == base:
        return 0
    digits = name.removeprefix(f"{base}-g")
    return int(digits) if digits != name and digits.isdigit() and len(digits) <= 12 else None


def inside(folder: Path, name: str) -> Path:
    """``folder / name``, refused unless it resolves to a file directly inside ``folder``."""
    path = folder / name
    if path.resolve().parent != folder.resolve():
        raise StampError(f"{name!r} is not a file of {folder}; refusing to use it. Check the folder "
                         "for links that point elsewhere.")
    return path


def _number(data: dict[str, Any], key: str) -> int:
    value = data.get(key, 0)
    if type(value) is not int or not 0 <= value < _LARGEST:
        raise ValueError(f"{key} is {value!r}, not a count")
    return value


def _legacy(data: dict[str, Any], base: str) -> tuple[int, int]:
    """(build, catalogue) from a stamp written before stamps named generations: its names are
    taken only when they are exactly what a generation is called."""
    catalog = catalog_number(str(data.get("catalog", "papers.sqlite")))
    build = collection_build(base, str(data.get("collection", base)))
    if catalog is None:
        raise ValueError(f"it names the catalogue {data.get('catalog')!r}, which is not a catalogue "
                         "file name (papers.sqlite or papers-gN.sqlite)")
    if build is None:
        raise ValueError(f"it names the collection {data.get('collection')!r}, not {base!r} or one "
                         f"of its generations (set RAG_COLLECTION to the name the index was built with)")
    return build, catalog


def parse_stamp(text: str, base: str) -> Stamp:
    """The stamp in ``text``; ValueError says why it is not one."""
    data = json.loads(text)
    if not isinstance(data, dict):
        raise ValueError("it is not a JSON object")
    if "format" not in data:
        build, catalog = _legacy(data, base)
    elif data["format"] == FORMAT:
        build, catalog = _number(data, "build"), _number(data, "catalog")
    else:
        raise ValueError(f"format {data['format']!r} is not one this version reads (upgrade abstract-rag)")
    generation = _number(data, "generation")
    if build > generation or catalog > generation:
        raise ValueError(f"it names build {build} and catalogue {catalog} after its generation {generation}")
    checksum = data.get("checksum", "")
    if checksum and not (isinstance(checksum, str) and _CHECKSUM.fullmatch(checksum)):
        raise ValueError("its checksum is not a sha256 digest")
    return Stamp(generation, build, catalog, _number(data, "papers"), _number(data, "chunks"),
                 checksum, base)


def read_stamp_file(path: Path, base: str, advice: str = RESTORE) -> Stamp | None:
    """The stamp in this file; None when there is no file. Anything else is a StampError."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise StampError(f"the index stamp {path} cannot be read ({exc}). {advice}") from exc
    try:
        return parse_stamp(text, base)
    except (ValueError, TypeError) as exc:
        raise StampError(f"the index stamp {path} is not a valid stamp ({exc}). {advice}") from exc


def write_stamp_file(path: Path, stamp: Stamp) -> None:
    """Write atomically: a temporary file, flushed, renamed over the stamp."""
    temporary = path.with_name(f"{path.name}.tmp-{os.getpid()}")
    with temporary.open("w", encoding="utf-8") as handle:
        json.dump(stamp.to_json(), handle)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)


@contextmanager
def stamp_lock(path: Path) -> Iterator[None]:
    """Held for the few milliseconds of a compare-and-swap on this stamp file."""
    with path.with_name(f"{path.name}.lock").open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def generation_on_disk(path: Path, base: str) -> int:
    """The generation in this stamp file: 0 when there is none (before the first ingest), -1
    when it cannot be read."""
    try:
        stamp = read_stamp_file(path, base)
    except StampError:
        return -1
    return 0 if stamp is None else stamp.generation


def swap_stamp_file(path: Path, stamp: Stamp, expected: int) -> None:
    """Write ``stamp`` only if the file still holds generation ``expected`` (0: no stamp yet;
    -1: an unreadable one). Otherwise another writer got there first: StampConflict."""
    with stamp_lock(path):
        found = generation_on_disk(path, stamp.base)
        if found != expected:
            raise StampConflict(
                f"{path} moved from generation {expected} to {found} while this ingest ran (another "
                "writer stamped it); nothing was stamped over it. Run `rag ingest` again: it "
                "starts from the newest generation and re-embeds nothing it already has.")
        write_stamp_file(path, stamp)


def file_token(path: Path) -> tuple[int, int, int] | None:
    """A cheap fingerprint of a stamp file (one stat): it changes when the file is replaced."""
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_ino, st.st_mtime_ns, st.st_size


def stamp_path(settings: Settings) -> Path:
    return settings.data_dir / STAMP_FILE


def stamped_generation(catalog: Path) -> int | None:
    """The generation an ingest stamped into this catalogue file (its meta table), or None."""
    try:
        db = sqlite3.connect(f"file:{catalog}?mode=ro", uri=True, timeout=5)
        try:
            row = db.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()
        finally:
            db.close()
    except sqlite3.Error:
        return None
    return int(row[0]) if row and str(row[0]).isdigit() else None


def read_stamp(settings: Settings) -> Stamp:
    """The live generation. No stamp and no stamped catalogue: generation 0 (before the first
    ingest). A missing stamp beside a stamped catalogue, or an unreadable one: StampError."""
    path = stamp_path(settings)
    stamp = read_stamp_file(path, settings.collection)
    if stamp is not None:
        if stamp.generation and not (settings.data_dir / stamp.catalog).exists() and any(
                catalog_number(p.name) is not None for p in settings.data_dir.glob("papers*.sqlite")):
            # another catalogue is there: the stamp is what is wrong (a lost catalogue with none
            # beside it is a lost file instead, which /readyz reports and `rag ingest` repairs)
            raise StampError(f"the index stamp {path} names the catalogue {stamp.catalog}, which is "
                             f"not in {settings.data_dir}; it is not trusted. {RESTORE}")
        return stamp
    if any(catalog_number(p.name) is not None and stamped_generation(p) is not None
           for p in settings.data_dir.glob("papers*.sqlite")):
        raise StampError(f"the index stamp {path} is missing, but {settings.data_dir} holds a "
                         f"stamped index. {RESTORE}")
    return Stamp(base=settings.collection)


def swap_stamp(settings: Settings, stamp: Stamp, expected: int) -> None:
    swap_stamp_file(stamp_path(settings), stamp, expected)


def stamp_token(settings: Settings) -> tuple[int, int, int] | None:
    """One ``stat`` of the local stamp: it changes when an ingest finishes."""
    return file_token(stamp_path(settings))
