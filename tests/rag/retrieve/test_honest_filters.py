"""Filters that leave no paper are said, with how many papers each filter keeps on its own, on
every path (ask, search, the API, the CLI), never answered as "the abstracts do not answer this"
or an empty list; and the facets say which years, venues and authors there are."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from cli.main import cli
from rag.engine import answer, build_engine, search
from rag.errors import NoMatchError
from rag.index.filters import Filters
from rag.retrieve.facets import facets
from service.app import create_app
from tests.support import FOLLOWUP_LIST_QUESTION, FOLLOWUP_PAPERS

QUESTION = "Which methods reduce sonar archive storage?"


@pytest.fixture(scope="module")
def library_files(tmp_path_factory):  # type: ignore[no-untyped-def]
    from tests.support import write_papers

    return [write_papers(tmp_path_factory.mktemp("honest") / "papers.jsonl", FOLLOWUP_PAPERS)]


@pytest.fixture(scope="module")
def engine(library):  # type: ignore[no-untyped-def]
    return build_engine(library.settings, library=library)


def test_filters_that_leave_no_paper_say_what_each_filter_keeps(engine):
    both = Filters.parse(author="Ilse Marangoni", year="2024")  # her papers are from 2023 and 2025
    with pytest.raises(NoMatchError) as caught:
        answer(engine, QUESTION, filters=both)
    message = str(caught.value)
    assert "leave no paper of the 5 indexed" in message
    assert "author 'Ilse Marangoni' keeps 2" in message and "year 2024 keeps 1" in message
    with pytest.raises(NoMatchError, match="venue 'ACL' keeps 0"):
        search(engine, QUESTION, filters=Filters.parse(venue="ACL"))


def test_filters_that_keep_a_paper_answer_from_it_alone(engine):
    result = answer(engine, FOLLOWUP_LIST_QUESTION, filters=Filters.parse(year="2024"))
    assert {c.paper_id for c in result.citations} == {"arc-2"}


def test_the_facets_count_years_venues_and_authors(library):
    found = facets(library.catalog)
    assert found["papers"] == 5
    assert found["years"] == [{"value": y, "papers": 1} for y in (2021, 2022, 2023, 2024, 2025)]
    assert found["venues"] == [{"value": "Harbour Data", "papers": 2}]
    assert found["authors"][0] == {"value": "Ilse Marangoni", "papers": 2}


def test_the_api_says_so_with_a_404_and_serves_the_facets(engine, tmp_path):
    settings = engine.settings.model_copy(update={"data_dir": tmp_path / "svc"})
    with TestClient(create_app(settings, engine=engine)) as client:
        reply = client.post("/api/ask", json={"question": QUESTION, "filters": {"venue": "ACL"}})
        assert reply.status_code == 404 and reply.json()["code"] == "no_matching_papers"
        assert "venue 'ACL' keeps 0" in reply.json()["message"]
        searched = client.get("/api/search", params={"q": QUESTION, "year": "1990"})
        assert searched.status_code == 404 and "year 1990 keeps 0" in searched.json()["message"]
        assert client.get("/api/facets").json()["venues"] == [{"value": "Harbour Data", "papers": 2}]


def test_rag_search_with_filters_that_leave_nothing_says_so(tmp_path):
    from tests.support import write_papers

    papers = write_papers(tmp_path / "papers.jsonl", FOLLOWUP_PAPERS)
    env = {"RAG_DATA_DIR": str(tmp_path / "idx")}
    assert CliRunner().invoke(cli, ["ingest", str(papers)], env=env).exit_code == 0
    result = CliRunner().invoke(cli, ["search", QUESTION, "--author", "Zhouhan Lin", "--year", "2017-2019"],
                                env=env)
    assert result.exit_code != 0
    assert "author 'Zhouhan Lin' keeps 0" in result.output and "year 2017-2019 keeps 0" in result.output
