"""Ready means warm: what the first questions would load lazily (the embedding session, the
vector index's pages, the keyword index, the reader's weights) is loaded by one question asked
at start-up, in a thread, before /readyz says ready. The question is answered offline: the
warm-up spends no LLM call (a cloud model costs money per start, a dead endpoint would hold
readiness for its timeout) and never takes a reply meant for a user's question."""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import replace

from rag.engine import Engine, answer
from rag.live import LiveEngine
from rag.retrieve.rerank import NoReranker

log = logging.getLogger(__name__)
WARM_QUESTION = "What methods do these papers propose, and how are they evaluated?"
SHUTDOWN_WAIT = 60.0  # seconds a stopping service waits for the warm-up question to finish


class WarmUp:
    def __init__(self) -> None:
        self.done = threading.Event()
        self.seconds: float | None = None
        self.problem: str | None = None

    def start(self, live: LiveEngine) -> None:
        threading.Thread(target=self.run, args=(live,), daemon=True, name="warm-up").start()

    def finish(self, timeout: float = SHUTDOWN_WAIT) -> bool:
        """Wait for the warm-up question to end, so that nothing closes the index under it (a
        catalogue closed while a thread reads it crashes the process, not just the question)."""
        if self.done.wait(timeout):
            return True
        log.warning("the warm-up question is still running after %.0f s; its engine is left open", timeout)
        return False

    def run(self, live: LiveEngine) -> None:
        started = time.perf_counter()
        try:
            engine = live.current()
            if engine.library.catalog.count():  # an empty index has nothing to warm
                answer(offline_only(engine), WARM_QUESTION)
        except Exception as exc:  # noqa: BLE001  readiness reports it; requests say their own errors
            self.problem = f"the warm-up question failed ({exc})"
            log.warning("%s", self.problem)
        finally:
            self.seconds = time.perf_counter() - started
            log.info("warmed up in %.1f s", self.seconds)
            self.done.set()


def offline_only(engine: Engine) -> Engine:
    """The engine without its LLM: the offline composer writes, nothing is reranked by a model."""
    return replace(engine, writers=replace(engine.writers, llm=None), reranker=NoReranker())
