"""The one answer path. The CLI, the HTTP service, the Slack bot and the eval harness all call
``answer(engine, question)``."""

from __future__ import annotations

import time
from dataclasses import dataclass

from .citations import attach_citations, papers_by_id
from .errors import IndexNotFoundError, InputError
from .generation import ABSTAIN_TEXT, Generator, OfflineAnswerer
from .library import Library, method_index, open_library
from .retrieval import dense_search
from .settings import Settings
from .types import Answer, RetrievedPaper, ScoredPaper


@dataclass
class Engine:
    settings: Settings
    library: Library
    generator: Generator
    methods: dict[str, list[str]]

    def close(self) -> None:
        self.library.close()


def build_engine(settings: Settings, *, library: Library | None = None,
                 generator: Generator | None = None) -> Engine:
    library = library or open_library(settings)
    generator = generator or OfflineAnswerer(library.embedder, settings.answer)
    return Engine(settings, library, generator, method_index(library))


def check_question(question: str, settings: Settings) -> str:
    text = " ".join((question or "").split())
    if not text:
        raise InputError("the question is empty. Ask something, e.g. "
                         "rag ask \"Which papers reduce KV-cache memory?\"")
    limit = settings.answer.max_question_chars
    if len(text) > limit:
        raise InputError(f"the question is {len(text)} characters long; the limit is {limit} "
                         "(RAG_ANSWER__MAX_QUESTION_CHARS). Shorten it to the question itself.")
    return text


def _require_index(engine: Engine) -> None:
    if engine.library.vectors.count() == 0:
        raise IndexNotFoundError("the index is empty. Run `rag ingest` first "
                                 f"(data directory: {engine.settings.data_dir}).")


def search(engine: Engine, query: str, k: int | None = None) -> list[ScoredPaper]:
    text = check_question(query, engine.settings)
    _require_index(engine)
    return dense_search(engine.library, text, k or engine.settings.retrieval.top_k,
                        engine.methods)


def answer(engine: Engine, question: str, k: int | None = None) -> Answer:
    started = time.perf_counter()
    text = check_question(question, engine.settings)
    _require_index(engine)
    evidence = dense_search(engine.library, text, k or engine.settings.retrieval.top_k,
                            engine.methods)
    retrieved_at = time.perf_counter()
    draft = engine.generator.generate(text, evidence)
    generated_at = time.perf_counter()
    body, citations = attach_citations(draft, papers_by_id([e.paper for e in evidence]))
    abstained = draft.abstained or not citations
    timings = {
        "retrieval_ms": round((retrieved_at - started) * 1000, 1),
        "generation_ms": round((generated_at - retrieved_at) * 1000, 1),
        "total_ms": round((time.perf_counter() - started) * 1000, 1),
    }
    return Answer(
        question=text,
        text=ABSTAIN_TEXT if abstained else body,
        citations=() if abstained else citations,
        abstained=abstained,
        retrieved=tuple(RetrievedPaper(e.paper.id, e.paper.label, round(e.score, 4))
                        for e in evidence),
        generator=engine.generator.name,
        timings=timings,
    )
