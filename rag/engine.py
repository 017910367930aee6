"""The one answer path. The CLI, the HTTP service, the Slack bot, MCP and the eval harness all
call ``answer(engine, question, ...)`` (or ``answer_stream`` for the checked text as it comes).

This module builds the engine once and composes the stages of ``rag.stages`` in one screen
(``answer_stream``): check the question -> route -> retrieve -> read -> generate -> verify ->
cite. It holds no policy of its own: each decision lives in its stage."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace

from rag.answer.model import ReaderModel
from rag.answer.offline import OfflineComposer
from rag.answer.reader import FittedReader
from rag.answer.support import AlignedSupportScorer, SupportScorer
from rag.errors import IndexNotFoundError, InputError
from rag.index.embedding import CachedEmbedder
from rag.index.filters import Filters
from rag.index.library import Library, method_index, open_library
from rag.index.sentence_vectors import StoredVectors
from rag.llm.answerer import LLMAnswerer
from rag.llm.client import ChatModel, build_chat_model, within_deadline
from rag.llm.prompts import load_prompts
from rag.llm.query import LLMReranker, LLMRewriter
from rag.llm.structured import StructuredReader
from rag.retrieve.query import QueryRewriter, RuleRewriter, clean_question
from rag.retrieve.rerank import NoReranker, Reranker
from rag.settings import AnswerSettings, Settings
from rag.stages.cite import cite
from rag.stages.generate import Generated, Writers, generate, stream, streams
from rag.stages.read import build_reader, read
from rag.stages.retrieve import find, gather
from rag.stages.route import route, standalone
from rag.stages.verify import Checked, verify
from rag.text.check import bad_text, tidy
from rag.types import Answer, Draft, Evidence, Paper, Replace, Route, ScoredPaper, Turn


@dataclass(frozen=True)
class Engine:
    """Everything an answer needs, built once by ``build_engine`` and never changed after."""

    settings: Settings
    library: Library
    reader: FittedReader  # the read stage, its weights loaded once
    writers: Writers  # the generate stage: the offline composer and the LLM's generator, if any
    scorer: SupportScorer  # the verify stage's checker
    rewriter: QueryRewriter = field(default_factory=RuleRewriter)
    reranker: Reranker = field(default_factory=NoReranker)
    methods: Mapping[str, list[str]] = field(default_factory=dict)

    @property
    def generator(self) -> object:
        return self.writers.llm or self.writers.offline

    def close(self) -> None:
        self.library.close()


def answering(library: Library) -> Library:
    """The library with the answer path's embedder: stored sentence vectors first, then an LRU
    cache in front of the model. A library handed on from an engine (a reload) is unwrapped
    first, so the store read is always this library's catalogue."""
    inner = library.embedder.inner if isinstance(library.embedder, StoredVectors) else library.embedder
    if not isinstance(inner, CachedEmbedder):
        inner = CachedEmbedder(inner)
    return replace(library, embedder=StoredVectors(inner, library.catalog))


def build_engine(settings: Settings, *, library: Library | None = None,
                 chat_model: ChatModel | None = None, reader_model: ReaderModel | None = None) -> Engine:
    """Everything built once, from settings. Prompts are checked here, LLM or not. ``reader_model``
    replaces the shipped reader weights (training passes blank ones: the shipped file may have
    been fitted on the features the code had before)."""
    prompts = load_prompts(settings.prompts_dir)
    library = library or open_library(settings)
    library = answering(library)
    scorer = AlignedSupportScorer(library, settings.support)
    reader = build_reader(library, settings.answer, reader_model, settings.data_dir)
    offline = OfflineComposer(settings.answer, reader.model)
    common = {"settings": settings, "library": library, "reader": reader, "scorer": scorer,
              "methods": method_index(library)}
    model = chat_model or build_chat_model(settings.llm)
    if model is None:
        return Engine(writers=Writers(offline), **common)  # type: ignore[arg-type]
    llm = StructuredReader(model, prompts["structured"], settings.llm.sentences) \
        if settings.llm.mode == "structured" else \
        LLMAnswerer(model, prompts["answer"], scorer, settings.answer.support_threshold, settings.llm.abstracts)
    return Engine(
        writers=Writers(offline, llm),
        rewriter=LLMRewriter(model, prompts["condense"]) if settings.llm.rewrite_followups else RuleRewriter(),
        reranker=LLMReranker(model, prompts["rerank"]) if settings.llm.rerank else NoReranker(),
        **common)  # type: ignore[arg-type]


def with_reader(engine: Engine, model: ReaderModel, answer: AnswerSettings | None = None) -> Engine:
    """The engine reading with other weights (and answer settings): training and tuning use it."""
    answer = answer or engine.settings.answer
    settings = engine.settings.model_copy(update={"answer": answer})
    reader = FittedReader(engine.library.embedder, answer, engine.reader.terms, model,
                          engine.reader.reranker if answer.cross_encoder else None)
    writers = replace(engine.writers, offline=OfflineComposer(answer, model))
    return replace(engine, settings=settings, reader=reader, writers=writers)


@dataclass(frozen=True)
class CheckedQuestion:
    """A question that passed ``check_question``: tidy text, within the cap, on a usable index."""

    text: str


def check_question(engine: Engine, question: str | CheckedQuestion) -> CheckedQuestion:
    """The one front door: text that is not text, an empty or too long question, an empty or
    broken index are refused here, with what to do. Every client calls this once (the answer
    functions call it for a plain string)."""
    if isinstance(question, CheckedQuestion):
        return question
    text = question_text(question, engine.settings)
    require_index(engine)
    return CheckedQuestion(text)


def require_index(engine: Engine) -> None:
    """An empty index, or a catalogue that lost its papers while the vectors stayed, is said
    with what to run, on every path (ask, search, the catalogue), never answered as 'nothing'."""
    if engine.library.vectors.count() == 0:
        raise IndexNotFoundError("the index is empty. Run `rag ingest` first "
                                 f"(data directory: {engine.settings.data_dir}), then retry.")
    if engine.library.catalog.empty():
        raise IndexNotFoundError("the paper catalogue is empty while the vector store is not. Run "
                                 f"`rag ingest` to restore it (data directory: {engine.settings.data_dir}).")


def question_text(question: str, settings: Settings) -> str:
    """The question as text: UTF-8, within the cap (counted as sent), spaces collapsed."""
    if why := bad_text(question or ""):
        raise InputError(f"the question holds {why}. Send it as UTF-8 text.")
    limit = settings.answer.max_question_chars
    if len(question) > limit:
        raise InputError(f"the question is {len(question)} characters long; the limit is {limit} "
                         "(RAG_ANSWER__MAX_QUESTION_CHARS). Shorten it to the question itself.")
    text = " ".join(tidy(question or "").split())
    if not text:
        raise InputError("the question is empty. Ask something, e.g. "
                         "rag ask \"Which papers reduce KV-cache memory?\"")
    return text


def find_papers(engine: Engine, question: str, *, k: int | None = None, filters: Filters = Filters(),
                mode: str = "hybrid") -> list[ScoredPaper]:
    """The evidence for a stand-alone question, as the answer path finds it: routed (an
    author's or a venue's papers come from the catalogue), retrieved, reranked."""
    routed = route(engine.library, question, question, filters=filters, mode=mode)
    return find(engine.library, engine.reranker, routed, engine.settings.retrieval, k=k, filters=filters,
                mode=mode, methods=engine.methods)


def search(engine: Engine, query: str | CheckedQuestion, k: int | None = None, *,
           filters: Filters = Filters(), mode: str = "hybrid") -> list[ScoredPaper]:
    text = clean_question(check_question(engine, query).text)
    return find_papers(engine, text, k=k, filters=filters, mode=mode)


def answer(engine: Engine, question: str | CheckedQuestion, *, k: int | None = None,
           filters: Filters = Filters(), history: Sequence[Turn | str] = ()) -> Answer:
    """Answer one question (``history``: the conversation's earlier turns, trimmed by the front
    end: their questions and the sources each answer showed, so "the second one" names a paper)."""
    *_, final = answer_stream(engine, question, k=k, filters=filters, history=history)
    assert isinstance(final, Answer)
    return final


def answer_stream(engine: Engine, question: str | CheckedQuestion, *, k: int | None = None,
                  filters: Filters = Filters(),
                  history: Sequence[Turn | str] = ()) -> Iterator[str | Replace | Answer]:
    """The checked answer text as it comes (``str`` pieces; a ``Replace`` when the text already
    sent must give way to the final one), then the Answer. Nothing unchecked is ever yielded.
    Every LLM call of the answer shares one deadline, RAG_LLM__TIMEOUT."""
    asked = check_question(engine, question).text
    return within_deadline(engine.settings.llm.timeout, _steps(engine, asked, k, filters, history))


def _steps(engine: Engine, asked: str, k: int | None, filters: Filters,
           history: Sequence[Turn | str]) -> Iterator[str | Replace | Answer]:
    started = time.perf_counter()
    routed = route(engine.library, asked, standalone(engine.library, engine.rewriter, asked, history),
                   filters=filters)
    evidence = gather(find(engine.library, engine.reranker, routed, engine.settings.retrieval, k=k,
                           filters=filters, methods=engine.methods))
    retrieved_at = time.perf_counter()
    check, sent = _checker(engine, evidence), ""
    if routed.catalogue is not None:
        done = Generated(check(routed.catalogue, Route.METADATA), "metadata (catalogue)", Route.METADATA)
    else:
        reading = read(engine.reader, routed.intent, evidence)
        if streams(engine.writers):
            for item in stream(engine.writers, routed.standalone, reading, evidence, check):
                if isinstance(item, str):
                    sent += item
                    yield item
                else:
                    done = item
        else:
            done = generate(engine.writers, routed.standalone, reading, evidence, check)
    result = cite(routed, evidence, done.checked, done.generator, done.route, done.fallback_reason)
    generated_at = time.perf_counter()
    yield from _rest(sent, result)
    yield replace(result, timings={
        "retrieval_ms": round((retrieved_at - started) * 1000, 1),
        "generation_ms": round((generated_at - retrieved_at) * 1000, 1),
        "total_ms": round((time.perf_counter() - started) * 1000, 1)})


def _checker(engine: Engine, evidence: Evidence):  # type: ignore[no-untyped-def]
    """The verify stage for one answer; a sentence checked while streaming is not checked again."""
    scorer = _Remembered(engine.scorer)

    def check(draft: Draft, route: Route) -> Checked:
        return verify(scorer, draft, evidence, route, engine.settings.answer)
    return check


class _Remembered:
    """One answer's support scores by sentence and cited papers: a streamed sentence, checked
    when it was sent, keeps its score in the final check."""

    def __init__(self, scorer: SupportScorer) -> None:
        self.scorer, self.scores = scorer, dict[tuple[str, tuple[str, ...]], float]()

    def score(self, sentence: str, papers: Sequence[Paper],
              split: Mapping[str, tuple[str, ...]] | None = None) -> float:
        key = (sentence, tuple(p.id for p in papers))
        if key not in self.scores:
            self.scores[key] = self.scorer.score(sentence, papers, split)
        return self.scores[key]


def _rest(sent: str, result: Answer) -> Iterator[str | Replace]:
    """What a client still needs after ``sent``: the rest of the final text, in sentence-sized
    pieces, or a Replace when the final text does not go on from what was sent."""
    final = "" if result.abstained else result.text
    if sent and not final.startswith(sent):
        yield Replace(result.text)
        return
    yield from _pieces(final[len(sent):])


def _pieces(text: str) -> Iterator[str]:
    """Checked answer text in sentence-sized deltas (what streaming clients are sent); joined,
    they are exactly ``text``."""
    yield from (piece for piece in re.split(r"(?<=\])(?=\s)", text) if piece)
