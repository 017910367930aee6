"""The one answer path. The CLI, the HTTP service, the Slack bot and the eval harness all call
``answer(engine, question, ...)``."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from .citations import attach_citations, papers_by_id
from .errors import IndexNotFoundError, InputError
from .generation import ABSTAIN_TEXT, Draft, Generator, OfflineAnswerer
from .library import Library, method_index, open_library
from .metadata import author_answer
from .query import QueryRewriter, RuleRewriter, author_in_question, clean_question
from .rerank import NoReranker, Reranker
from .retrieval import Filters, retrieve
from .settings import Settings
from .types import Answer, RetrievedPaper, ScoredPaper


@dataclass
class Engine:
    settings: Settings
    library: Library
    generator: Generator
    rewriter: QueryRewriter = field(default_factory=RuleRewriter)
    reranker: Reranker = field(default_factory=NoReranker)
    methods: dict[str, list[str]] = field(default_factory=dict)

    def close(self) -> None:
        self.library.close()


def build_engine(settings: Settings, *, library: Library | None = None,
                 generator: Generator | None = None) -> Engine:
    library = library or open_library(settings)
    generator = generator or OfflineAnswerer(library.embedder, settings.answer)
    return Engine(settings, library, generator, methods=method_index(library))


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


def search(engine: Engine, query: str, k: int | None = None, *, filters: Filters = Filters(),
           mode: str = "hybrid") -> list[ScoredPaper]:
    text = clean_question(check_question(query, engine.settings))
    _require_index(engine)
    return find_papers(engine, text, k=k, filters=filters, mode=mode)[0]


def answer(engine: Engine, question: str, *, k: int | None = None, filters: Filters = Filters(),
           history: Sequence[str] = ()) -> Answer:
    """Answer one question (with earlier questions of the conversation in ``history``)."""
    started = time.perf_counter()
    asked = check_question(question, engine.settings)
    _require_index(engine)
    standalone = engine.rewriter.rewrite(clean_question(asked), history)
    evidence, draft = find_papers(engine, standalone, k=k, filters=filters)
    retrieved_at = generated_at = time.perf_counter()
    generator = "metadata (author lists)" if draft is not None else engine.generator.name
    if draft is None:
        draft = engine.generator.generate(standalone, evidence)
        generated_at = time.perf_counter()
    body, citations = attach_citations(draft, papers_by_id([e.paper for e in evidence]))
    abstained = draft.abstained or not citations
    return Answer(
        question=asked,
        text=ABSTAIN_TEXT if abstained else body,
        citations=() if abstained else citations,
        abstained=abstained,
        retrieved=tuple(RetrievedPaper(e.paper.id, e.paper.label, round(e.similarity, 4))
                        for e in evidence),
        generator=generator,
        timings={"retrieval_ms": round((retrieved_at - started) * 1000, 1),
                 "generation_ms": round((generated_at - retrieved_at) * 1000, 1),
                 "total_ms": round((time.perf_counter() - started) * 1000, 1)},
        standalone_question=standalone if standalone != asked else None,
    )


def find_papers(engine: Engine, question: str, *, k: int | None = None,
                filters: Filters = Filters(),
                mode: str = "hybrid") -> tuple[list[ScoredPaper], Draft | None]:
    """The evidence for a (stand-alone) question. "Papers by X" is answered from the author
    lists, not by embedding the sentence: then the draft answer comes back too."""
    name = author_in_question(question) if mode == "hybrid" else None
    if name:
        evidence, draft = author_answer(engine.library, name, question, filters)
        if evidence:
            return evidence, draft
    found = retrieve(engine.library, question, k or engine.settings.retrieval.top_k,
                     filters=filters, mode=mode, methods=engine.methods)
    return engine.reranker.rerank(question, found), None
