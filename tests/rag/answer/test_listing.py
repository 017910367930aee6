"""Venue and year listings are answered from the indexed catalogue columns, cited; a listing
that also asks about a topic is not one."""

from __future__ import annotations

import json

import pytest

from rag.answer.intent import parse_intent
from rag.engine import answer, build_engine
from rag.index.library import open_library
from rag.ingest.pipeline import ingest
from rag.settings import Settings
from rag.testing.fakes import FakeEmbedder

ROWS = [
    {"id": "a", "abstract": "We propose OrbitNet for satellite orbit prediction.", "venue": "ICML", "year": 2023},
    {"id": "b", "abstract": "We propose MothNet for moth wing classification.", "venue": "ICML", "year": 2024},
    {"id": "d", "abstract": "We propose ReedNet for reed bed mapping.", "venue": "CVPR", "year": 2024},
]


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    folder = tmp_path_factory.mktemp("listing")
    (folder / "papers.jsonl").write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    settings = Settings(data_dir=folder / "index")
    lib = open_library(settings, embedder=FakeEmbedder())
    ingest(lib, [folder / "papers.jsonl"])
    yield build_engine(settings, library=lib)
    lib.close()


def test_papers_of_a_year_are_listed_from_the_catalogue(engine):
    result = answer(engine, "Which papers in the collection were published in 2024?")
    assert result.route == "metadata" and not result.abstained
    assert {c.paper_id for c in result.citations} == {"b", "d"}
    assert result.text.startswith("2 indexed papers appeared in 2024")


@pytest.mark.parametrize("question, venue, year", [
    ("Which papers appeared at ICML 2024?", "ICML", 2024),
    ("list the papers from ICML", "ICML", None),
    ("What was presented at CVPR in 2024?", "CVPR", 2024),
])
def test_a_listing_question_is_parsed_into_venue_and_year(question, venue, year):
    intent = parse_intent(question)
    assert intent.listing and intent.year == year
    assert intent.venue is not None and venue.lower() in intent.venue.lower()


@pytest.mark.parametrize("question", [
    "Which papers on moth wings appeared at ICML 2024?",
    "What does MothNet classify?",
])
def test_a_topic_or_no_venue_is_not_a_listing(question):
    assert not parse_intent(question).listing
