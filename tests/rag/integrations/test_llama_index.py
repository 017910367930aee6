"""The LlamaIndex retriever and query engine, tested through llama-index-core's own interfaces
(``BaseRetriever.retrieve``, ``RetrieverQueryEngine``, ``BaseQueryEngine.query``, ``MockLLM``),
on an index of the shipped reference-manager fixtures. No network, no real model."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from llama_index.core.base.base_query_engine import BaseQueryEngine
from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.base.response.schema import Response
from llama_index.core.llms import MockLLM
from llama_index.core.query_engine import RetrieverQueryEngine
from llama_index.core.schema import NodeWithScore

from rag.engine import Engine, build_engine
from rag.index.library import open_library
from rag.ingest.pipeline import ingest
from rag.integrations.llama_index import AbstractQueryEngine, AbstractRetriever, LlamaIndexChatModel
from rag.settings import Settings
from rag.testing.fakes import FakeEmbedder
from tests.support import FIXTURES

THAWNET = "How much faster than the heat-equation solver is ThawNet?"


@pytest.fixture
def indexed(settings: Settings) -> Settings:
    lib = open_library(settings, embedder=FakeEmbedder())
    try:
        ingest(lib, [FIXTURES / name for name in ("library.bib", "zotero_csl.json", "zotero_export.txt",
                                                  "openalex_works.jsonl")])
    finally:
        lib.close()
    return settings


@pytest.fixture
def engine(indexed: Settings) -> Iterator[Engine]:
    engine = build_engine(indexed, library=open_library(indexed, embedder=FakeEmbedder()))
    yield engine
    engine.close()


def test_the_retriever_returns_a_scored_node_per_retrieved_chunk_with_paper_metadata(engine: Engine) -> None:
    retriever = AbstractRetriever(engine, k=3)

    nodes = retriever.retrieve("permafrost carbon feedbacks from borehole temperatures")

    assert isinstance(retriever, BaseRetriever)
    assert len(nodes) == 3 and all(isinstance(n, NodeWithScore) for n in nodes)
    assert [n.score for n in nodes] == sorted((n.score for n in nodes), reverse=True)
    top = nodes[0].node
    assert top.node_id == "mueller2024permafrost#0" and "ThawNet" in top.get_content()
    assert top.metadata["title"] == "Permafrost Carbon Feedbacks Learned from Borehole Temperatures"
    assert top.metadata["authors"] == "Hans Müller; Ludwig Schön; María García"
    assert (top.metadata["year"], top.metadata["link"]) == (2024, "https://doi.org/10.5555/icml.2024.1021")


def test_the_retriever_plugs_into_a_llama_index_query_engine(engine: Engine) -> None:
    retriever = AbstractRetriever(engine, k=2)
    pipeline = RetrieverQueryEngine.from_args(retriever, llm=MockLLM(max_tokens=8))

    response = pipeline.query("which paper counts calving events in time-lapse imagery?")

    assert response.source_nodes[0].node.metadata["title"] == "Counting Calving Events in Time-Lapse Imagery"
    assert len(response.source_nodes) == 2 and str(response)


def test_the_query_engine_answers_through_the_engine_with_cited_passages_as_source_nodes(engine: Engine) -> None:
    query_engine = AbstractQueryEngine(engine=engine)

    response = query_engine.query(THAWNET)

    assert isinstance(query_engine, BaseQueryEngine) and isinstance(response, Response)
    assert "[1]" in str(response) and response.metadata["abstained"] is False
    assert response.metadata["route"] == "offline"
    cited = response.source_nodes[0].node
    assert cited.metadata["paper_id"] == "mueller2024permafrost" and cited.metadata["key"] == 1
    assert cited.get_content() in str(response), "a source node is the passage the answer cites"
    assert response.metadata["citations"][1]["link"] == "https://doi.org/10.5555/icml.2024.1021"


def test_the_query_engine_abstains_with_no_source_nodes(engine: Engine) -> None:
    response = AbstractQueryEngine(engine=engine).query("Who won the 2018 FIFA World Cup?")

    assert response.metadata["abstained"] is True and response.source_nodes == []


def test_a_llama_index_llm_writes_the_answer_and_the_engine_still_checks_it(indexed: Settings) -> None:
    llm = MockLLM()  # echoes its prompt: a reply whose sentences the abstracts do not support
    lib = open_library(indexed, embedder=FakeEmbedder())
    engine = build_engine(indexed, library=lib, chat_model=LlamaIndexChatModel(llm))
    try:
        response = AbstractQueryEngine(engine=engine).query(THAWNET)
    finally:
        engine.close()

    assert engine.generator.name == "llm:llama-index:unknown"
    assert response.metadata["route"] in {"llm", "fallback"}
    assert "<abstract" not in str(response), "the prompt the mock echoed never reaches the answer"
    assert all(n.node.metadata["paper_id"] for n in response.source_nodes)


def test_the_retriever_is_built_from_settings(indexed: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("rag.index.library.build_embedder", lambda _: FakeEmbedder())
    retriever = AbstractRetriever.from_settings(indexed, k=1)
    try:
        [node] = retriever.retrieve("icebreaker routing under uncertain ice charts")
    finally:
        retriever.close()
    assert node.node.metadata["paper_id"] == "nakamura2023icebreaker"
