"""A running service follows the index. Each request asks ``LiveEngine.current()`` for the
engine; that costs one ``stat`` of the generation stamp, and when an ingest has stamped a new
generation, the request waits (at most ``SWAP_WAIT`` seconds) while it is opened beside the old
one and swapped in, so a paper ingested before a question is there to answer it. A watcher
thread does the same every ``RAG_STORE__RELOAD_SECONDS`` with no traffic at all, and, with a
shared snapshot folder, copies in each newly published catalogue first (``snapshots.py``).

Requests already running keep the engine they started with and finish on the old index (it is
closed when the last of them lets go of it). A new generation is queried once before it serves
anyone; if it cannot be opened or read (an unreadable stamp, a full disk, a snapshot that does
not match its checksum), the generation that is open keeps serving, ``problem`` says why
(``/readyz`` fails with it), and the open is tried again a little later."""

from __future__ import annotations

import contextlib
import ctypes
import logging
import threading
import time
import weakref
from collections.abc import Callable

from rag.engine import Engine, build_engine
from rag.index.library import disagreement, open_library
from rag.index.snapshots import follow_snapshot, shared_generation, snapshot_token
from rag.index.stamp import generation_on_disk, read_stamp, stamp_path, stamp_token
from rag.ingest.session import writing_now
from rag.llm.client import ChatModel
from rag.settings import Settings

log = logging.getLogger(__name__)
SWAP_WAIT = 30.0  # seconds a request waits for a new generation to open before it is served the old
RETRY = 5.0  # seconds before a generation that failed to open (or a failed copy) is tried again
Token = tuple[int, int, int] | None


class LiveEngine:
    def __init__(self, settings: Settings, engine: Engine, *, chat_model: ChatModel | None = None,
                 opener: Callable[[Settings, Engine], Engine] | None = None, watch: bool = True) -> None:
        self.settings = settings
        self._engine = engine
        self._chat_model = chat_model
        self._opener = opener or self._open
        self._seen: Token = stamp_token(settings)
        self._failed: tuple[Token, float] | None = None  # a token that failed to open, and when
        self._opening = threading.Lock()
        self._following = threading.Lock()
        self._published: Token = snapshot_token(settings)
        self._follow_retry = 0.0
        self.open_problem: str | None = None
        self.follow_problem: str | None = None
        self.reopened = 0
        self._stop = threading.Event()
        if watch and settings.store.reload_seconds:
            threading.Thread(target=_watch, args=(weakref.ref(self), self._stop, settings.store.reload_seconds),
                             daemon=True, name="index-watch").start()

    @property
    def problem(self) -> str | None:
        return self.open_problem or self.follow_problem

    def current(self) -> Engine:
        """The engine of the newest generation; a newly stamped one is opened first."""
        if self.settings.store.reload_seconds:
            token = stamp_token(self.settings)
            if token != self._seen and (self._failed is None or self._failed[0] != token):
                self._reload(token, wait=SWAP_WAIT)
        return self._engine

    def refresh(self) -> Engine:
        """Follow and open the newest generation now, waiting (for tests and tools)."""
        self._follow(force=True)
        token = stamp_token(self.settings)
        if token != self._seen:
            self._reload(token, wait=None)
        return self._engine

    def tick(self) -> None:
        """What the watcher does every RAG_STORE__RELOAD_SECONDS."""
        self._follow()
        token = stamp_token(self.settings)
        failed = self._failed
        if token != self._seen and (failed is None or failed[0] != token or time.monotonic() >= failed[1]):
            self._reload(token, wait=None)

    def stop(self) -> None:
        """Stop watching the stamp (the engine stays open)."""
        self._stop.set()

    def close(self) -> None:
        self.stop()
        self._engine.close()

    def served(self) -> int:
        return self._engine.library.stamp.generation

    def newest(self) -> int:
        """The newest generation this machine knows of (its stamp, or the published one)."""
        local = generation_on_disk(stamp_path(self.settings), self.settings.collection)
        return max(local, shared_generation(self.settings), self.served())

    def _follow(self, force: bool = False) -> None:
        """With a shared snapshot folder: copy in a newly published catalogue; the local stamp
        it writes then triggers the swap."""
        if self.settings.store.snapshot_dir is None:
            return
        token = snapshot_token(self.settings)
        retry = self.follow_problem is not None and time.monotonic() >= self._follow_retry
        if token == self._published and not (force or retry):
            return
        if not self._following.acquire(blocking=force):
            return  # the watcher is copying it already
        try:
            follow_snapshot(self.settings)
        except Exception as exc:  # keep serving what we have; say why
            self.follow_problem = (f"the published index could not be taken ({exc}); serving "
                                   f"generation {self.served()}.")
            self._follow_retry = time.monotonic() + RETRY
            log.warning("%s", self.follow_problem)
            return
        finally:
            self._following.release()
        self._published, self.follow_problem = token, None

    def _reload(self, token: Token, wait: float | None) -> None:
        if not self._opening.acquire(timeout=-1 if wait is None else wait):
            return  # another open is slow: serve the open generation meanwhile
        try:
            if stamp_token(self.settings) == self._seen:
                return  # opened while we waited
            self._swap(token)
        finally:
            self._opening.release()

    def _swap(self, token: Token) -> None:
        try:
            engine = self._opener(self.settings, self._engine)
            probe(engine)
        except Exception as exc:  # keep serving the open generation; say why
            self.open_problem = (f"a new index generation could not be opened ({exc}); serving "
                                 f"generation {self.served()}, which is open.")
            log.warning("%s", self.open_problem)
            self._failed = (token, time.monotonic() + RETRY)
            return
        old = self._engine
        self._engine, self._seen, self.open_problem, self._failed = engine, token, None, None
        weakref.finalize(old, return_freed_memory)  # once the last request holding it is done
        self.reopened += 1
        log.info("index generation %s opened", engine.library.stamp.generation)

    def _open(self, settings: Settings, old: Engine) -> Engine:
        library = open_library(settings, embedder=old.library.embedder, stamp=read_stamp(settings),
                               pinned=True, fresh=True)  # followed already, by _follow
        return build_engine(settings, library=library, chat_model=self._chat_model)


def probe(engine: Engine) -> None:
    """One query on a newly opened generation, before it serves anyone (a store that opens but
    cannot be read, e.g. on a full disk, fails here, not on every request)."""
    library = engine.library
    if library.vectors.count():
        library.vectors.query(library.embedder.embed(["probe"])[0], 1)
    library.catalog.count()


def return_freed_memory() -> None:
    """Hand the heap pages an old generation freed back to the system. Without it glibc keeps
    them (the vector store's native code frees in small pieces), and a service that swaps
    generations all day grows by a few MB with each one (measured: +5 MB per swap, flat with it)."""
    with contextlib.suppress(OSError, AttributeError):  # not glibc: nothing to do
        ctypes.CDLL(None).malloc_trim(0)


def _watch(ref: weakref.ref[LiveEngine], stop: threading.Event, interval: float) -> None:
    while not stop.wait(interval):
        live = ref()
        if live is None:
            return
        try:
            live.tick()
        except Exception:  # noqa: BLE001  the watcher must outlive any one failure
            log.exception("index watcher")
        del live


def index_problem(live: LiveEngine) -> str | None:
    """Why the service cannot answer from its index right now, or None."""
    engine = live.current()
    if live.problem:
        return live.problem
    if writing_now(live.settings.data_dir):
        return None  # counts move while an ingest writes; the stamp decides afterwards
    return disagreement(engine.library)
