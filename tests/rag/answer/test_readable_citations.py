"""LaTeX made readable once at ingest (and picked up by a plain re-ingest), titles weighted in
keyword search, and citations that name the paper by title and link to it, the same way in the
JSON answer, the CLI and Slack."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from rag.answer.citations import attach_citations
from rag.answer.offline import Draft, DraftSentence
from rag.index.catalog import Catalog
from rag.index.catalog_schema import SCHEMA_VERSION
from rag.index.chunking import Chunker
from rag.index.library import open_library
from rag.ingest.formats import read_file
from rag.ingest.papers import make_paper, text_hash
from rag.ingest.pipeline import ingest
from rag.retrieve.keyword import keyword_search
from rag.settings import BUNDLED_CORPUS, ChunkingSettings, Settings
from rag.testing.fakes import FakeEmbedder
from rag.text.latex import latex_to_text
from rag.types import Paper
from service.slack_blocks import source_line
from tests.support import FIXTURES

LATEX_RESIDUE = ("\\%", "$\\times$", '{\\"')


# --------------------------------------------------------------------------- LaTeX


@pytest.mark.parametrize(("raw", "readable"), [
    ("QKV achieves an 82.8\\% gain", "QKV achieves an 82.8% gain"),
    ("runs 3$\\times$ faster", "runs 3× faster"),
    ('M{\\"u}ller and Na\\"ive S\\\'ami', "Müller and Naïve Sámi"),
    ("\\emph{robust} and \\textbf{\\textit{nested}}", "robust and nested"),
    ("pages 10--20, methods (\\eg, ours) and \\our", "pages 10–20, methods (e.g., ours) and our"),
    ("$\\mathcal{O}(n\\log n)$ time, {\\tau} and Table~2", "O(n log n) time, τ and Table 2"),
])
def test_latex_becomes_readable_unicode(raw: str, readable: str) -> None:
    assert latex_to_text(raw) == readable


@pytest.mark.parametrize("plain", [
    "it costs 35% more than 20% of R&D #1", "from $5 to $10 each", "about ~2x faster",
    "see https://example.org/a_b~c%20d for code", "no markers at all"])
def test_plain_text_keeps_its_percent_signs_money_and_urls(plain: str) -> None:
    assert latex_to_text(plain) == plain


def test_the_bundled_corpus_shows_and_indexes_no_latex_residue() -> None:
    chunker = Chunker(ChunkingSettings())
    seen = 0
    for path in sorted(BUNDLED_CORPUS.glob("0*.txt")):
        for paper in read_file(path):
            if not isinstance(paper, Paper):
                continue
            shown = [paper.abstract, paper.text, paper.label, paper.title or "", paper.venue or "",
                     *paper.authors, *(c.text for c in chunker.chunks(paper))]
            for residue in LATEX_RESIDUE:
                assert not any(residue in text for text in shown), (paper.id, residue)
            seen += bool(paper.original)
    assert seen >= 20, "the corpus has LaTeX; its originals are kept"


def test_a_reingest_makes_old_records_readable_by_content_hash_without_embedding(settings: Settings,
                                                                               tmp_path: Path) -> None:
    raw = ("We propose FrostNet, which reaches 82.8\\% accuracy on lake ice and runs 3$\\times$ "
           "faster than the baseline detector on every lake we tried in three winters.")
    source = tmp_path / "one.jsonl"
    source.write_text(json.dumps({"id": "p1", "abstract": raw}) + "\n", encoding="utf-8")
    lib = open_library(settings, embedder=FakeEmbedder())
    try:
        ingest(lib, [source])
        # as an older version stored it: the abstract as found, under that version's hash
        old = replace(lib.catalog.get("p1"), abstract=raw, original=None)
        lib.catalog.save([(old, "hash-of-an-older-version")])
        report = ingest(lib, [source])
        stored = lib.catalog.get("p1")
    finally:
        lib.close()
    assert (report.indexed, report.chunks_embedded) == (1, 0), "re-saved, nothing re-embedded"
    assert "82.8% accuracy" in stored.abstract and "3× faster" in stored.abstract
    assert stored.original == raw


def test_the_record_hash_changes_with_the_shown_abstract() -> None:
    paper = make_paper("p", "It gains 82.8\\% on lakes.")
    assert text_hash(paper) != text_hash(replace(paper, abstract=paper.original or ""))


# --------------------------------------------------------------------------- titles in keyword search

TITLED = make_paper("titled", "Daily sea-ice charts span decades; a banded kernel reads them all at "
                    "once and improves September forecasts.", title="Efficient Attention for Long Sequences")
UNTITLED = [make_paper(f"u{i}", f"Efficient attention for long sequences of tokens, variant {i}: we "
                       "study attention kernels for long sequences in language models.") for i in range(5)]


def _catalog(tmp_path: Path) -> Catalog:
    catalog = Catalog(tmp_path / "papers.sqlite")
    chunker = Chunker(ChunkingSettings())
    papers = [TITLED, *UNTITLED]
    catalog.save([(p, text_hash(p)) for p in papers], chunks=[c for p in papers for c in chunker.chunks(p)])
    return catalog


def test_a_title_word_outweighs_the_same_word_in_abstracts(tmp_path: Path) -> None:
    catalog = _catalog(tmp_path)
    query = "efficient attention for long sequences"
    weighted = [h.chunk.paper_id for h in keyword_search(catalog, query, 10, title_weight=3.0)]
    unweighted = [h.chunk.paper_id for h in keyword_search(catalog, query, 10, title_weight=1.0)]
    catalog.close()
    assert weighted[0] == "titled"
    assert unweighted[0] != "titled", "at weight 1 the abstracts that repeat the words win"
    assert Settings().retrieval.title_weight == 3.0


def test_a_schema_2_catalogue_is_migrated_in_place_and_searches_titles(tmp_path: Path) -> None:
    _catalog(tmp_path).close()
    db = sqlite3.connect(tmp_path / "papers.sqlite")  # back to what version 2 wrote
    db.executescript("""
        DROP TRIGGER chunks_added; DROP TRIGGER chunks_removed; DROP TABLE chunk_fts;
        ALTER TABLE chunks DROP COLUMN title;
        CREATE VIRTUAL TABLE chunk_fts USING fts5(text, content='chunks', content_rowid='rowid',
                                                  tokenize='porter unicode61');
        INSERT INTO chunk_fts (chunk_fts) VALUES ('rebuild');
        PRAGMA user_version = 2;""")
    db.close()

    catalog = Catalog(tmp_path / "papers.sqlite")
    version = catalog.db.execute("PRAGMA user_version").fetchone()[0]
    found = [h.chunk.paper_id for h in keyword_search(catalog, "efficient attention", 3, title_weight=3.0)]
    catalog.save([(UNTITLED[0], "new")], chunks=Chunker(ChunkingSettings()).chunks(UNTITLED[0]))
    catalog.close()
    assert version == SCHEMA_VERSION and found[0] == "titled"


def test_a_schema_3_catalogue_learns_the_short_names_of_spelled_out_methods(tmp_path: Path) -> None:
    spelled = make_paper("east", "In this work, we propose Entropy-Based Adaptive Weighting for "
                         "Self-Training (EAST), a strategy that weights uncertain data more.")
    catalog = Catalog(tmp_path / "papers.sqlite")
    catalog.save([(p, text_hash(p)) for p in (spelled, TITLED)], chunks=[])
    catalog.db.execute("UPDATE papers SET method = 'Entropy-Based', record = json_set(record, "
                       "'$.method', 'Entropy-Based') WHERE id = 'east'")
    catalog.db.execute("PRAGMA user_version = 3")  # what version 3 read from this abstract
    catalog.close()

    catalog = Catalog(tmp_path / "papers.sqlite")
    version = catalog.db.execute("PRAGMA user_version").fetchone()[0]
    papers = catalog.get_many(["east", TITLED.id])
    names = catalog.method_papers(["east", "entropy-based"])
    catalog.close()
    assert version == SCHEMA_VERSION
    assert papers["east"].method == "EAST" and papers["east"].label.startswith("EAST")
    assert papers[TITLED.id].method == TITLED.method
    assert names == {"east": ["east"]}


# --------------------------------------------------------------------------- citations


def _answer_citations(paper: Paper):  # type: ignore[no-untyped-def]
    draft = Draft(sentences=(DraftSentence(text="It reads twenty years at once.", paper_ids=(paper.id,)),))
    return attach_citations(draft, {paper.id: paper})[1]


def test_a_titled_citation_is_labelled_by_title_and_links_to_its_doi() -> None:
    paper = make_paper("k1", "An abstract.", title="Efficient Attention for Long Sequences",
                       authors=("Saga Lindholm", "Omar Aziz"), year=2024, doi="10.5555/pml.2024.7",
                       url="https://example.org/k1")
    [citation] = _answer_citations(paper)
    assert citation.label == "Efficient Attention for Long Sequences (Lindholm et al., 2024)"
    assert (citation.title, citation.link) == (paper.title, "https://doi.org/10.5555/pml.2024.7")
    line = source_line(citation)
    assert line.startswith("*[1]* <https://doi.org/10.5555/pml.2024.7|Efficient Attention for Long "
                           "Sequences> (Lindholm et al., 2024)")
    assert "`k1`" in line, "Slack still names the paper id, which the label no longer holds"


def test_an_untitled_citation_keeps_the_method_name_label_and_has_no_link() -> None:
    paper = make_paper("000-0001", "We propose SupReMix, a mixup method for regression.",
                       authors=("Cheng Deng", "Li Wu"), year=2024)
    [citation] = _answer_citations(paper)
    assert citation.label == "SupReMix, Deng et al. 2024 (000-0001)"
    assert (citation.title, citation.link) == (None, None)
    assert source_line(citation).startswith("*[1]* SupReMix, Deng et al. 2024 (000-0001)")


def test_an_arxiv_paper_links_to_its_abstract_page_and_a_plain_url_is_the_last_resort() -> None:
    assert make_paper("a", "x", arxiv_id="2401.04567", url="https://x.org").link == "https://arxiv.org/abs/2401.04567"
    assert make_paper("b", "x", url="https://x.org/b").link == "https://x.org/b"
    assert make_paper("c", "x", title="T").label == "T"


def test_the_cli_prints_each_citation_label_with_its_link(settings: Settings, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    from cli.main import cli

    source = FIXTURES / "library.bib"
    lib = open_library(settings, embedder=FakeEmbedder())
    try:
        ingest(lib, [source])
    finally:
        lib.close()
    monkeypatch.setenv("RAG_DATA_DIR", str(settings.data_dir))
    monkeypatch.setattr("rag.index.library.build_embedder", lambda _: FakeEmbedder())
    result = CliRunner().invoke(cli, ["ask", "How much faster than the heat-equation solver is ThawNet?"])
    assert result.exit_code == 0, result.output
    assert ("Permafrost Carbon Feedbacks Learned from Borehole Temperatures (Müller et al., 2024)\n"
            "    https://doi.org/10.5555/icml.2024.1021") in result.output
