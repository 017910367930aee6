"""Edges of the service and the command line (issue 19, points 8, 11 and 15): page bounds on
/api/papers, an empty or broken catalogue said on every path with what to run, and bytes that
are not UTF-8 in a query string or a filter refused instead of searched as U+FFFD."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from cli.main import cli
from rag.engine import build_engine
from rag.index.library import open_library
from rag.ingest.pipeline import ingest
from rag.settings import BUNDLED_CORPUS, Settings
from rag.testing.fakes import FakeEmbedder
from service.app import create_app

SEED = BUNDLED_CORPUS / "002_c30d0852975d4dec.txt"


@pytest.fixture(scope="module")
def settings(tmp_path_factory) -> Settings:
    settings = Settings(data_dir=tmp_path_factory.mktemp("edges") / "index")
    lib = open_library(settings, embedder=FakeEmbedder())
    try:
        ingest(lib, [SEED])
    finally:
        lib.close()
    return settings


@pytest.fixture(scope="module")
def client(settings):
    engine = build_engine(settings, library=open_library(settings, embedder=FakeEmbedder()))
    with TestClient(create_app(settings, engine=engine), raise_server_exceptions=False) as c:
        yield c


@pytest.mark.parametrize("query", ["page=461168601842738792", "page=9223372036854775807",
                                   "size=100000", "page=0", "size=0", "page=-1"])
def test_out_of_range_pages_are_422_not_500(client, query):
    reply = client.get(f"/api/papers?{query}")
    assert reply.status_code == 422 and reply.json()["code"] == "invalid_request"


def test_the_last_allowed_page_is_an_empty_page(client):
    reply = client.get("/api/papers?page=10000000&size=200")
    assert reply.status_code == 200 and reply.json()["items"] == []


@pytest.mark.parametrize("url", ["/api/search?q=caf%FF", "/api/search?q=graphs&author=%FF",
                                 "/api/papers?author=%C3", "/api/papers?q=%ED%A0%80",
                                 "/api/papers/002-%FF01"])
def test_bytes_that_are_not_utf8_in_the_url_are_400(client, url):
    reply = client.get(url)
    assert reply.status_code == 400
    assert reply.json()["code"] == "invalid_encoding" and "UTF-8" in reply.json()["message"]


def test_utf8_in_the_query_string_is_still_read(client):
    assert client.get("/api/search?q=caf%C3%A9%20graphs").status_code == 200


def test_a_filter_that_is_not_utf8_on_the_command_line_is_an_error(settings, monkeypatch):
    monkeypatch.setenv("RAG_DATA_DIR", str(settings.data_dir))
    monkeypatch.setattr("rag.index.library.build_embedder", lambda s: FakeEmbedder())
    for option in ("--author", "--venue", "--source"):
        result = CliRunner().invoke(cli, ["ask", "Which papers study graphs?", option, "\udcff"])
        assert result.exit_code == 2, result.output
        assert f"{option} holds a byte that is not UTF-8 (0xff)" in result.output


@pytest.fixture
def broken(tmp_path) -> Settings:
    """An index whose catalogue lost its papers while the vectors stayed."""
    settings = Settings(data_dir=tmp_path / "index")
    lib = open_library(settings, embedder=FakeEmbedder())
    try:
        ingest(lib, [SEED])
        lib.catalog.clear()
    finally:
        lib.close()
    return settings


def test_every_http_path_says_the_catalogue_is_empty_and_what_to_run(broken):
    engine = build_engine(broken, library=open_library(broken, embedder=FakeEmbedder()))
    with TestClient(create_app(broken, engine=engine)) as c:
        for reply in (c.get("/api/search?q=graphs"), c.get("/api/papers/002-0001"),
                      c.get("/api/papers"), c.post("/api/ask", json={"question": "What is it?"})):
            assert reply.status_code == 503, reply.request.url
            assert reply.json()["code"] == "index_empty" and "rag ingest" in reply.json()["message"]


def test_an_empty_index_is_503_on_search_and_papers(tmp_path):
    settings = Settings(data_dir=tmp_path / "empty")
    engine = build_engine(settings, library=open_library(settings, embedder=FakeEmbedder()))
    with TestClient(create_app(settings, engine=engine)) as c:
        for reply in (c.get("/api/search?q=graphs"), c.get("/api/papers/000-0001"), c.get("/api/papers")):
            assert reply.status_code == 503 and reply.json()["code"] == "index_empty"


@pytest.mark.parametrize("command", [["ask", "Which papers study graphs?"], ["search", "graphs"]])
def test_rag_ask_and_search_say_the_catalogue_is_empty_and_what_to_run(broken, monkeypatch, command):
    monkeypatch.setenv("RAG_DATA_DIR", str(broken.data_dir))
    monkeypatch.setattr("rag.index.library.build_embedder", lambda s: FakeEmbedder())
    result = CliRunner().invoke(cli, command)
    assert result.exit_code == 1
    assert "error: the paper catalogue is empty" in result.output and "rag ingest" in result.output


def test_a_paper_from_the_api_carries_its_doi_arxiv_id_and_link(tmp_path):
    from tests.support import INVENTED_PAPERS, ingest_with_fake_embedder, pinned_service, write_papers

    rows = [INVENTED_PAPERS[0] | {"doi": "https://doi.org/10.5555/glimmer.1"},
            INVENTED_PAPERS[1] | {"arxiv_id": "2401.01234"}, INVENTED_PAPERS[2]]
    settings = Settings(data_dir=tmp_path / "index")
    ingest_with_fake_embedder(settings, write_papers(tmp_path / "mine.jsonl", rows))
    with pinned_service(settings) as c:
        one = c.get("/api/papers/inv-1").json()
        listed = {p["id"]: p for p in c.get("/api/papers").json()["items"]}
        found = c.get("/api/search", params={"q": "zebrafish tanks"}).json()
    assert one["doi"] == "10.5555/glimmer.1" and one["link"] == "https://doi.org/10.5555/glimmer.1"
    assert listed["inv-2"]["arxiv_id"] == "2401.01234" and listed["inv-2"]["link"] == "https://arxiv.org/abs/2401.01234"
    assert listed["inv-3"]["doi"] is None and listed["inv-3"]["link"] is None
    assert {h["paper"]["id"]: h["paper"]["link"] for h in found}["inv-2"] == "https://arxiv.org/abs/2401.01234"
