"""The one answer path. The CLI, the HTTP service, the Slack bot and the eval harness all call
``answer(engine, question, ...)`` (or ``answer_stream`` for the checked text sentence by sentence).

check the question -> parse its intent -> retrieve (or look up the catalogue) -> read the evidence
-> generate (LLM, falling back to the offline answerer) -> check every sentence against the papers
it cites -> number the citations -> abstain if nothing is left."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace

from rag.answer.citations import attach_citations, keys_of, papers_by_id
from rag.answer.evidence import Reading
from rag.answer.intent import Intent, parse_intent
from rag.answer.listings import author_answer, listing_answer
from rag.answer.offline import ABSTAIN_TEXT, OfflineAnswerer
from rag.answer.support import AlignedSupportScorer, SupportScorer
from rag.answer.table import evidence_table
from rag.errors import IndexNotFoundError, InputError, LLMError
from rag.index.embedding import CachedEmbedder
from rag.index.filters import Filters
from rag.index.library import Library, method_index, open_library
from rag.llm.answerer import LLMAnswerer
from rag.llm.client import ChatModel, answer_deadline, build_chat_model
from rag.llm.prompts import load_prompts
from rag.llm.query import LLMReranker, LLMRewriter
from rag.llm.structured import Numbered, StructuredReader
from rag.retrieve.facets import check_filters
from rag.retrieve.followups import short_name
from rag.retrieve.followups import standalone as standalone_question
from rag.retrieve.fusion import retrieve
from rag.retrieve.keyword import TermStats
from rag.retrieve.query import QueryRewriter, RuleRewriter, clean_question
from rag.retrieve.rerank import NoReranker, Reranker
from rag.settings import Settings
from rag.text.check import bad_text, tidy
from rag.text.injection import is_instruction, scrub
from rag.types import Answer, Draft, RetrievedPaper, Route, ScoredPaper, SentenceSupport, Turn


@dataclass(frozen=True)
class Engine:
    """Everything an answer needs, built once by ``build_engine`` and never changed after."""

    settings: Settings
    library: Library
    offline: OfflineAnswerer
    scorer: SupportScorer
    llm: LLMAnswerer | None = None  # None: answers are composed offline
    structured: StructuredReader | None = None  # set in structured mode (small models)
    rewriter: QueryRewriter = field(default_factory=RuleRewriter)
    reranker: Reranker = field(default_factory=NoReranker)
    methods: Mapping[str, list[str]] = field(default_factory=dict)

    @property
    def generator(self) -> LLMAnswerer | OfflineAnswerer:
        return self.llm or self.offline

    def close(self) -> None:
        self.library.close()


def build_engine(settings: Settings, *, library: Library | None = None,
                 chat_model: ChatModel | None = None) -> Engine:
    """Everything built once, from settings. Prompts are checked here, LLM or not."""
    prompts = load_prompts(settings.prompts_dir)
    library = library or open_library(settings)
    if not isinstance(library.embedder, CachedEmbedder):
        library = replace(library, embedder=CachedEmbedder(library.embedder))
    scorer = AlignedSupportScorer(library, settings.support)
    offline = OfflineAnswerer(library.embedder, settings.answer, TermStats(library.catalog))
    model = chat_model or build_chat_model(settings.llm)
    if model is None:
        return Engine(settings=settings, library=library, offline=offline, scorer=scorer,
                      methods=method_index(library))
    structured = settings.llm.mode == "structured"
    return Engine(
        settings=settings, library=library, offline=offline, scorer=scorer,
        llm=LLMAnswerer(model, prompts["answer"], scorer, settings.answer.support_threshold),
        structured=StructuredReader(model, prompts["structured"]) if structured else None,
        rewriter=LLMRewriter(model, prompts["condense"]) if settings.llm.rewrite_followups else RuleRewriter(),
        reranker=LLMReranker(model, prompts["rerank"]) if settings.llm.rerank else NoReranker(),
        methods=method_index(library))


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


def find_papers(engine: Engine, question: str, *, intent: Intent | None = None, k: int | None = None,
                filters: Filters = Filters(),
                mode: str = "hybrid") -> tuple[list[ScoredPaper], Draft | None]:
    """The evidence for a (stand-alone) question, routed by its intent: "papers by X" and pure
    venue/year listings are answered from the catalogue (the draft answer comes back too)."""
    intent = intent or parse_intent(question)
    check_filters(engine.library.catalog, filters)  # filters that leave no paper are said, not answered
    if mode == "hybrid" and intent.author:
        evidence, draft = author_answer(engine.library, intent, filters)
        if evidence:
            return evidence, draft
    elif mode == "hybrid" and intent.listing:
        evidence, draft = listing_answer(engine.library, intent, filters)
        if evidence:
            return evidence, draft
    wide = intent.multi_paper and intent.kind != "comparison"  # a list reads more papers
    k = k or (engine.settings.retrieval.list_k if wide else engine.settings.retrieval.top_k)
    found = retrieve(engine.library, question, k,
                     filters=filters, mode=mode, methods=engine.methods)
    return engine.reranker.rerank(question, found), None


def search(engine: Engine, query: str | CheckedQuestion, k: int | None = None, *,
           filters: Filters = Filters(), mode: str = "hybrid") -> list[ScoredPaper]:
    text = clean_question(check_question(engine, query).text)
    return find_papers(engine, text, k=k, filters=filters, mode=mode)[0]


def answer(engine: Engine, question: str | CheckedQuestion, *, k: int | None = None,
           filters: Filters = Filters(), history: Sequence[Turn | str] = ()) -> Answer:
    """Answer one question (with the earlier turns of the conversation in ``history``: their
    questions and the sources each answer showed, so "the second one" names a paper)."""
    *_, final = answer_stream(engine, question, k=k, filters=filters, history=history)
    assert isinstance(final, Answer)
    return final


def answer_stream(engine: Engine, question: str | CheckedQuestion, *, k: int | None = None,
                  filters: Filters = Filters(), history: Sequence[Turn | str] = ()) -> Iterator[str | Answer]:
    """The checked answer text, sentence by sentence, then the Answer. Nothing unchecked is
    ever yielded: an LLM's raw reply is parsed, its keys mapped and each sentence's support
    checked before any of it reaches a client."""
    started = time.perf_counter()
    asked = check_question(engine, question).text
    with answer_deadline(engine.settings.llm.timeout):  # one deadline for all the LLM calls
        turns = engine.settings.service.conversation_turns
        standalone = standalone_question(clean_question(asked), history[-turns:] if turns else (),
                                         engine.rewriter, lambda pid: short_name(engine.library.catalog.get(pid)))
        intent = parse_intent(standalone)
        evidence, draft = find_papers(engine, standalone, intent=intent, k=k, filters=filters)
        retrieved_at = time.perf_counter()
        if draft is not None:
            result = _finish(engine, asked, standalone, evidence, draft, "metadata (catalogue)",
                             Route.METADATA)
        else:
            result = _generate_checked(engine, asked, standalone, intent, evidence)
    generated_at = time.perf_counter()
    if not result.abstained:
        yield from _pieces(result.text)
    yield replace(result, table=evidence_table(result, listing=intent.multi_paper), timings={
        "retrieval_ms": round((retrieved_at - started) * 1000, 1),
        "generation_ms": round((generated_at - retrieved_at) * 1000, 1),
        "total_ms": round((time.perf_counter() - started) * 1000, 1)})


def _pieces(text: str) -> Iterator[str]:
    """Checked answer text in sentence-sized deltas (what streaming clients are sent); joined,
    they are exactly ``text``."""
    yield from (piece for piece in re.split(r"(?<=\])(?=\s)", text) if piece)


def guarded(item: ScoredPaper) -> ScoredPaper:
    """The paper as an LLM may read it: instruction-like sentences removed."""
    abstract, removed = scrub(item.paper.abstract)
    if not removed:
        return item
    text, _ = scrub(item.paper.text)
    return replace(item, paper=replace(item.paper, abstract=abstract, text=text))


def _generate_checked(engine: Engine, asked: str, standalone: str, intent: Intent,
                      evidence: list[ScoredPaper]) -> Answer:
    """Route the question. Offline, the fitted reader decides whether the abstracts answer. With
    an LLM, the model reads the top retrieved abstracts (or, in structured mode, their best
    sentences numbered) and decides for itself; the reader's verdict never vetoes it. A dead
    endpoint, or a reply with no supported sentence where the reader finds an answer, falls
    back to the offline answer."""
    reading = engine.offline.read(intent, evidence)
    offline = engine.offline.compose(intent, reading)

    def finish(draft: Draft, generator: str, route: Route, reason: str | None = None) -> Answer:
        return _finish(engine, asked, standalone, evidence, draft, generator, route, reason)

    if engine.llm is None or not reading.papers:
        return finish(offline, "offline", Route.OFFLINE)
    try:
        if engine.structured is not None:
            draft, name = engine.structured.generate(standalone, numbered(reading, engine.settings)), \
                engine.structured.name
        else:
            top = [guarded(e) for e in evidence if e.paper.has_abstract][: engine.settings.llm.abstracts]
            draft, name = engine.llm.generate(standalone, top), engine.llm.name
    except LLMError as exc:
        return finish(offline, f"offline (LLM unavailable: {exc})", Route.FALLBACK, f"LLM unavailable: {exc}")
    result = finish(draft, name, Route.LLM, None)
    if result.abstained and not draft.declined and reading.answerable:
        why = "none of the model's sentences was supported by the abstracts"
        return finish(offline, "offline", Route.FALLBACK, why)
    if result.abstained and draft.declined:
        return replace(result, abstain_reason="the model found no answer in the top abstracts")
    return result


def numbered(reading: Reading, settings: Settings) -> list[Numbered]:
    """The sentences offered to a structured reader: the reader's best over every part, each
    once, instruction-like text already left out (rag.answer.features.candidates)."""
    best: dict[str, tuple[float, Numbered]] = {}
    for _, cands in reading.parts:
        for c in cands:
            paper = c.paper.paper
            source = paper.method or paper.id
            if c.text not in best or best[c.text][0] < c.score:
                best[c.text] = (c.score, Numbered(paper.id, source, c.text))
    ranked = sorted(best.values(), key=lambda sn: -sn[0])[: settings.llm.sentences]
    return [n for _, n in ranked]


def _finish(engine: Engine, asked: str, standalone: str, evidence: list[ScoredPaper],
            draft: Draft, generator: str, route: Route, fallback_reason: str | None = None) -> Answer:
    """Check each sentence against the papers it cites; number citations; abstain if empty."""
    papers = papers_by_id([guarded(e).paper for e in evidence])  # support never rests on injected text
    threshold = engine.settings.answer.support_threshold
    scores: list[float] = []
    for sentence in draft.sentences:
        cited = [papers[p] for p in sentence.paper_ids if p in papers]
        trusted = sentence.framing or route is Route.METADATA
        if is_instruction(sentence.text):  # an obedient model repeating an injected instruction
            scores.append(0.0)
            continue
        scores.append(1.0 if trusted else engine.scorer.score(sentence.text, cited) if cited else 0.0)
    weak = frozenset(i for i, s in enumerate(scores) if s < threshold)
    keep_marked = engine.settings.answer.keep_unsupported
    kept = Draft(tuple(s for i, s in enumerate(draft.sentences) if keep_marked or i not in weak),
                 draft.abstained)
    kept_scores = [s for i, s in enumerate(scores) if keep_marked or i not in weak]
    marked = frozenset(i for i, s in enumerate(kept_scores) if s < threshold)
    body, citations = attach_citations(kept, papers, marked if keep_marked else frozenset())
    abstained = draft.abstained or not citations
    support = tuple(SentenceSupport(s.text, keys, round(score, 4), score >= threshold)
                    for s, keys, score in zip(kept.sentences, keys_of(kept, citations), kept_scores,
                                              strict=True) if not s.framing)
    retrieved = tuple(RetrievedPaper(e.paper.id, e.paper.readable_label, round(e.similarity, 4))
                      for e in evidence)
    reason = draft.reason or ("none of the answer's sentences was supported by the abstracts"
                              if draft.sentences and not citations else "") or None
    return Answer(
        question=asked, text=ABSTAIN_TEXT if abstained else body,
        citations=() if abstained else citations, abstained=abstained, retrieved=retrieved,
        generator=generator, standalone_question=standalone if standalone != asked else None,
        sentences=() if abstained else support, removed_keys=draft.unknown_keys,
        removed_sentences=0 if keep_marked else len(weak), route=route,
        fallback_reason=fallback_reason, abstain_reason=reason if abstained else None,
        see_also=retrieved[:3] if abstained else (),
    )
