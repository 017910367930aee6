"""One front door for a question: ``check_question`` refuses what cannot be answered (text that
is not text, empty, too long, an empty index) once, with what to do; the intent is parsed once,
before retrieval, and routing reads it; the engine is built once and never changed."""

from __future__ import annotations

import dataclasses
import json

import pytest

import rag.engine as engine_module
import rag.stages.route as route_module
from rag.engine import CheckedQuestion, answer, build_engine, check_question
from rag.errors import IndexNotFoundError, InputError
from rag.index.library import open_library
from rag.ingest.pipeline import ingest
from rag.settings import Settings
from rag.testing.fakes import FakeEmbedder
from rag.types import Route

ROWS = [
    {"id": "p1", "abstract": "We propose OrbitNet, which predicts satellite orbits from radar echoes "
                             "with 12% lower error.", "authors": ["Ada Quillfeather", "Bo Lin"], "year": 2023},
    {"id": "p2", "abstract": "We propose MothNet, which classifies moth wings from photographs.",
     "authors": ["Cy Rowe"], "year": 2024},
]


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    folder = tmp_path_factory.mktemp("front")
    (folder / "papers.jsonl").write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    settings = Settings(data_dir=folder / "index")
    lib = open_library(settings)  # the real embedder: the reader is fitted on its cosines
    ingest(lib, [folder / "papers.jsonl"])
    built = build_engine(settings, library=lib)
    yield built
    built.close()


@pytest.mark.parametrize("question, says", [
    ("", "the question is empty"),
    ("   \x00 ", "the question is empty"),
    ("caf\udcff?", "not UTF-8"),
    ("x" * 2001, "2001 characters long; the limit is 2000"),
])
def test_an_unusable_question_is_refused_with_what_to_do(engine, question, says):
    with pytest.raises(InputError, match=says):
        check_question(engine, question)


def test_an_empty_index_is_refused_with_the_command_to_run(tmp_path):
    settings = Settings(data_dir=tmp_path / "empty")
    empty = build_engine(settings, library=open_library(settings, embedder=FakeEmbedder()))
    try:
        with pytest.raises(IndexNotFoundError, match="Run `rag ingest`"):
            answer(empty, "What does OrbitNet predict?")
    finally:
        empty.close()


def test_a_checked_question_is_not_checked_again(engine, monkeypatch):
    checked = check_question(engine, "What does OrbitNet predict?")
    calls = []
    monkeypatch.setattr(engine_module, "question_text", lambda *a: calls.append(a) or "")
    result = answer(engine, checked)
    assert calls == [] and result.question == "What does OrbitNet predict?"
    assert "p1" in {c.paper_id for c in result.citations}


def test_the_intent_is_parsed_once_and_routes_the_question(engine, monkeypatch):
    parsed = []
    real = route_module.parse_intent
    monkeypatch.setattr(route_module, "parse_intent", lambda q: parsed.append(q) or real(q))
    by_author = answer(engine, "Which papers did Ada Quillfeather co-author?")
    assert len(parsed) == 1 and by_author.route is Route.METADATA
    assert [c.paper_id for c in by_author.citations] == ["p1"]
    listing = answer(engine, "Which papers appeared in 2024?")
    assert len(parsed) == 2 and listing.route is Route.METADATA
    assert [c.paper_id for c in listing.citations] == ["p2"]
    content = answer(engine, "How much lower is OrbitNet's error?")
    assert len(parsed) == 3 and content.route is Route.OFFLINE and "12%" in content.text


def test_the_engine_is_never_changed_after_it_is_built(engine):
    with pytest.raises(dataclasses.FrozenInstanceError):
        engine.writers = None  # type: ignore[misc]
    assert isinstance(CheckedQuestion("x"), CheckedQuestion)
