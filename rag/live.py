"""A running service follows the index: each request asks ``LiveEngine.current()`` for the
engine, which looks at the generation stamp (one ``stat``, at most every
``RAG_STORE__RELOAD_SECONDS``). When an ingest has stamped a new generation, the new index is
opened beside the old one on a background thread and swapped in when ready; requests already
running keep the engine they started with and finish on the old index (it is closed when the
last of them lets go of it). If the new generation cannot be opened, the old one keeps serving
and ``problem`` says why (``/readyz`` reports it)."""

from __future__ import annotations

import fcntl
import logging
import threading
import time
from collections.abc import Callable

from rag.engine import Engine, build_engine
from rag.index.library import disagreement, open_library
from rag.index.snapshots import follow_snapshot, shared_stamp, snapshot_token
from rag.index.stamp import read_stamp, stamp_token
from rag.llm.client import ChatModel
from rag.settings import Settings

log = logging.getLogger(__name__)


class LiveEngine:
    def __init__(self, settings: Settings, engine: Engine, *, chat_model: ChatModel | None = None,
                 opener: Callable[[Settings, Engine], Engine] | None = None) -> None:
        self.settings = settings
        self._engine = engine
        self._chat_model = chat_model
        self._opener = opener or self._open
        self._seen = stamp_token(settings)
        self._checked = time.monotonic()
        self._lock = threading.Lock()
        self._opening: threading.Thread | None = None
        self._following: threading.Thread | None = None
        self._published = snapshot_token(settings)
        self.problem: str | None = None
        self.reopened = 0

    def current(self) -> Engine:
        """The engine for the newest generation that is open (never waits for an open)."""
        interval = self.settings.store.reload_seconds
        now = time.monotonic()
        if interval and now - self._checked >= interval:
            self._checked = now
            self._follow()
            token = stamp_token(self.settings)
            if token != self._seen:
                self._start(token)
        return self._engine

    def refresh(self) -> Engine:
        """Open the newest generation now, if it is new (waits; for tests and tools)."""
        if self.settings.store.snapshot_dir is not None:
            follow_snapshot(self.settings)
        token = stamp_token(self.settings)
        if token != self._seen:
            self._start(token)
        thread = self._opening
        if thread is not None:
            thread.join()
        return self._engine

    def _follow(self) -> None:
        """With a shared snapshot folder: when another machine has published, copy the new
        catalogue in on a background thread; its local stamp then triggers the swap."""
        if self.settings.store.snapshot_dir is None:
            return
        token = snapshot_token(self.settings)
        with self._lock:
            if token == self._published or (self._following is not None and self._following.is_alive()):
                return
            self._published = token
            self._following = threading.Thread(target=self._copy, daemon=True, name="snapshot-follow")
            self._following.start()

    def _copy(self) -> None:
        try:
            follow_snapshot(self.settings)
        except Exception as exc:  # keep serving what we have; say why
            self.problem = f"the published index could not be copied ({exc}); serving the previous one."
            log.warning("%s", self.problem)
        shared = shared_stamp(self.settings)
        if shared is not None and shared.generation > read_stamp(self.settings).generation:
            self._published = None  # not taken (the copy failed): look again next time

    def _start(self, token: tuple[int, int, int] | None) -> None:
        with self._lock:
            if self._opening is not None and self._opening.is_alive():
                return
            self._opening = threading.Thread(target=self._swap, args=(token,), daemon=True,
                                             name="index-reopen")
            self._opening.start()

    def _swap(self, token: tuple[int, int, int] | None) -> None:
        try:
            engine = self._opener(self.settings, self._engine)
        except Exception as exc:  # keep serving the old generation; say why
            self.problem = f"a new index generation could not be opened ({exc}); serving the previous one."
            log.warning("%s", self.problem)
            self._seen = token  # retried when the stamp changes again
            return
        self._engine, self._seen, self.problem = engine, token, None
        self.reopened += 1
        log.info("index generation %s opened", engine.library.stamp.generation)

    def _open(self, settings: Settings, old: Engine) -> Engine:
        library = open_library(settings, embedder=old.library.embedder, pinned=True, fresh=True)
        return build_engine(settings, library=library, chat_model=self._chat_model)


def ingest_running(settings: Settings) -> bool:
    """True while a `rag ingest` holds the writer lock of this data directory."""
    path = settings.data_dir / "writer.lock"
    if not path.exists():
        return False
    with path.open("a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        fcntl.flock(handle, fcntl.LOCK_UN)
        return False


def index_problem(live: LiveEngine) -> str | None:
    """Why the service cannot answer from its index right now, or None."""
    engine = live.current()
    if live.problem:
        return live.problem
    if ingest_running(live.settings):
        return None  # counts move while an ingest writes; the stamp decides afterwards
    return disagreement(engine.library)
