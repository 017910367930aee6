"""Ready means warm: what the first questions would load lazily (the embedding session, the
vector index's pages, the keyword index, the reader's weights, a local model) is loaded by one
question asked at start-up, in a thread, before /readyz says ready. With a cloud LLM configured,
that question costs one LLM call per start."""

from __future__ import annotations

import logging
import threading
import time

from rag.engine import answer
from rag.live import LiveEngine

log = logging.getLogger(__name__)
WARM_QUESTION = "What methods do these papers propose, and how are they evaluated?"


class WarmUp:
    def __init__(self) -> None:
        self.done = threading.Event()
        self.seconds: float | None = None
        self.problem: str | None = None

    def start(self, live: LiveEngine) -> None:
        threading.Thread(target=self.run, args=(live,), daemon=True, name="warm-up").start()

    def run(self, live: LiveEngine) -> None:
        started = time.perf_counter()
        try:
            engine = live.current()
            if engine.library.catalog.count():  # an empty index has nothing to warm
                answer(engine, WARM_QUESTION)
        except Exception as exc:  # noqa: BLE001  readiness reports it; requests say their own errors
            self.problem = f"the warm-up question failed ({exc})"
            log.warning("%s", self.problem)
        finally:
            self.seconds = time.perf_counter() - started
            log.info("warmed up in %.1f s", self.seconds)
            self.done.set()
