"""What an answer cited, exported as BibTeX, RIS and CSL-JSON, and read back by the project's own
readers (rag.ingest.formats) with the same titles, authors, years, venues, DOIs and abstracts:
through the API (the page's links) and `rag ask --export`."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from cli.main import cli
from rag.answer.export import FORMATS, UNTITLED_NOTE, export
from rag.errors import InputError
from rag.ingest.formats import Problem, read_file
from rag.types import Paper
from service.app import create_app

PAPERS = [
    Paper("arc-1", "We cut storage by 41% & keep all pings; cost fell 3$ per 100_000 pings.", "",
          title="TideZip: dictionary coding for sonar archives", authors=("Ilse Marangoni", "Teo Abara"),
          year=2023, venue="Harbour Data", doi="10.5555/tidezip.41"),
    Paper("arc-2", "We introduce ReefPack, which quantizes sonar archives.", "", title="ReefPack",
          authors=("Rosa Quillfeather",), year=2024, arxiv_id="2401.01234"),
]
EXTENSION = {"bib": "bib", "ris": "ris", "csl": "json"}


def read_back(text: str, fmt: str, folder: Path) -> list[Paper]:
    path = folder / f"cited.{EXTENSION[fmt]}"
    path.write_text(text, encoding="utf-8")
    items = list(read_file(path))
    assert not [i for i in items if isinstance(i, Problem)], items
    return [i for i in items if isinstance(i, Paper)]


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_an_export_reads_back_with_the_same_fields(fmt, tmp_path):
    back = read_back(export(PAPERS, fmt), fmt, tmp_path)
    assert [p.title for p in back] == [p.title for p in PAPERS]
    assert [p.authors for p in back] == [p.authors for p in PAPERS]
    assert [p.year for p in back] == [2023, 2024]
    assert back[0].venue == "Harbour Data" and back[0].doi == "10.5555/tidezip.41"
    assert [p.abstract for p in back] == [p.abstract for p in PAPERS]
    assert back[1].link == "https://arxiv.org/abs/2401.01234"


def test_a_paper_without_a_title_is_exported_under_its_label_and_says_so(tmp_path):
    bare = Paper("000-0001", "SupReMix mixes anchors.", "", method="SupReMix", authors=("Yu Deng",), year=2024)
    text = export([bare], "csl")
    assert UNTITLED_NOTE in text
    assert read_back(text, "csl", tmp_path)[0].title == bare.label


def test_an_unknown_format_is_refused_with_the_known_ones():
    with pytest.raises(InputError, match="bib, ris, csl"):
        export(PAPERS, "docx")


@pytest.fixture(scope="module")
def indexed(tmp_path_factory):  # type: ignore[no-untyped-def]
    """The invented follow-up corpus, through `rag ingest` with the real embedder."""
    from tests.support import FOLLOWUP_PAPERS, write_papers

    folder = tmp_path_factory.mktemp("export")
    papers = write_papers(folder / "papers.jsonl", FOLLOWUP_PAPERS)
    result = CliRunner().invoke(cli, ["ingest", str(papers)], env={"RAG_DATA_DIR": str(folder / "idx")})
    assert result.exit_code == 0, result.output
    return folder / "idx"


def test_rag_ask_export_prints_what_the_answer_cited(indexed, tmp_path):
    from tests.support import FOLLOWUP_LIST_QUESTION

    result = CliRunner().invoke(cli, ["ask", FOLLOWUP_LIST_QUESTION, "--export", "bib"],
                                env={"RAG_DATA_DIR": str(indexed)}, catch_exceptions=False)
    assert result.exit_code == 0
    bib = result.stdout
    titles = {p.title for p in read_back(bib, "bib", tmp_path)}
    assert titles == {"TideZip: dictionary coding for sonar archives",
                      "ReefPack: learned quantization of sonar archives",
                      "KelpCodec: pruning silent returns in sonar archives"}
    assert "[1]" in result.stderr and "[1]" not in bib  # the answer is on stderr


def test_the_api_exports_the_cited_papers_and_names_an_unknown_id(indexed, tmp_path):
    from rag.settings import Settings

    settings = Settings(data_dir=indexed)
    with TestClient(create_app(settings)) as client:
        reply = client.get("/api/export", params={"ids": "arc-2,arc-1", "format": "ris"})
        assert reply.status_code == 200 and "attachment" in reply.headers["content-disposition"]
        assert [p.title.split(":")[0] for p in read_back(reply.text, "ris", tmp_path)] == ["ReefPack", "TideZip"]
        missing = client.get("/api/export", params={"ids": "arc-1,nope", "format": "bib"})
        assert missing.status_code == 404 and "nope" in missing.json()["message"]
        assert client.get("/api/export", params={"ids": "arc-1", "format": "docx"}).status_code == 422
