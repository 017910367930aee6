"""Two records are one paper only when the evidence says so: the same DOI or arXiv id, the same
title, or near-identical text with no conflicting method name, figure or author list. Within
one file near-identical texts merge as across files (a title only across files). Every merge is
reported with both ids."""

from __future__ import annotations

import json
import random
from pathlib import Path

from click.testing import CliRunner

from cli.main import cli
from rag.engine import answer, build_engine
from rag.index.library import open_library
from rag.ingest.papers import DuplicateFinder, make_paper
from rag.ingest.pipeline import ingest
from rag.settings import Settings
from rag.testing.fakes import FakeEmbedder

TEMPLATE = (
    "We present {name}, a forecasting model for regional electricity demand that combines a "
    "seasonal decomposition with a gated temporal convolution over weather covariates. On "
    "twelve public grid datasets, {name} reduces forecast error by {figure}% relative to the "
    "strongest baseline while training in under an hour on a single GPU. We release code and "
    "the cleaned datasets to support further research on short-term load forecasting.")
SYLLABLES = ["mil", "fin", "yo", "lix", "jor", "qua", "lu", "nix", "ta", "ver", "do", "sen", "ka",
             "rum", "bel", "zo", "pra", "quin", "tor", "vel"]
SURNAMES = ["Okafor", "Lindqvist", "Moreau", "Tanaka", "Haddad", "Novak", "Ivanova", "Silva",
            "Rossi", "Kim", "Dubois", "Zhang", "Garcia", "Weber", "Nakamura"]


def templated(count: int, seed: int = 7) -> list[dict]:
    rng = random.Random(seed)
    rows, names = [], set()
    while len(rows) < count:
        name = "".join(rng.choice(SYLLABLES) for _ in range(4)).capitalize()
        if name in names:
            continue
        names.add(name)
        figure = rng.randrange(3, 90)
        authors = [f"{rng.choice('ABCDEFGHJKLMNP')}. {rng.choice(SURNAMES)}" for _ in range(3)]
        rows.append({"id": f"t-{len(rows):03d}", "abstract": TEMPLATE.format(name=name, figure=figure),
                     "authors": authors, "year": 2024, "name": name, "figure": figure})
    return rows


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps({k: v for k, v in r.items() if k not in {"name", "figure"}})
                            + "\n" for r in rows))
    return path


def ingest_files(settings: Settings, *paths: Path):
    lib = open_library(settings, embedder=FakeEmbedder())
    try:
        return ingest(lib, list(paths)), lib.catalog.count()
    finally:
        lib.close()


def test_two_hundred_templated_papers_in_one_file_are_all_kept(settings, tmp_path):
    rows = templated(200)
    report, papers = ingest_files(settings, write_jsonl(tmp_path / "t.jsonl", rows))

    assert report.duplicates_merged == 0 and report.merges == []
    assert papers == 200


def test_a_templated_paper_is_answered_with_its_own_figure(settings, tmp_path):
    rows = templated(200)
    lib = open_library(settings)  # the real embedder: the reader is fitted on its cosines
    try:
        ingest(lib, [write_jsonl(tmp_path / "t.jsonl", rows)])
    finally:
        lib.close()
    target = rows[137]
    engine = build_engine(settings, library=open_library(settings))
    try:
        result = answer(engine, f"By how much does {target['name']} reduce forecast error?")
    finally:
        engine.close()

    assert f"{target['figure']}%" in result.text
    assert [c.paper_id for c in result.citations] == [target["id"]]


def test_near_miss_papers_in_two_files_are_not_merged(settings, tmp_path):
    first, second = templated(2)
    report, papers = ingest_files(settings, write_jsonl(tmp_path / "a.jsonl", [first]),
                                  write_jsonl(tmp_path / "b.jsonl", [second]))

    assert report.duplicates_merged == 0 and papers == 2


def test_identical_texts_are_merged_across_files_and_the_merge_names_both_ids(settings, tmp_path):
    row = templated(1)[0]
    copy = {**row, "id": "copy-1", "abstract": row["abstract"].upper()}
    report, papers = ingest_files(settings, write_jsonl(tmp_path / "a.jsonl", [row]),
                                  write_jsonl(tmp_path / "b.jsonl", [copy]))

    assert papers == 1 and report.duplicates_merged == 1
    assert report.merges == [("copy-1", row["id"])]


def test_identical_texts_are_merged_within_one_file(settings, tmp_path):
    row = templated(1)[0]
    report, papers = ingest_files(settings, write_jsonl(tmp_path / "a.jsonl", [row, {**row, "id": "again"}]))

    assert papers == 1 and report.merges == [("again", row["id"])]


LONG = TEMPLATE.format(name="Quorbelt", figure=41) + (
    " An ablation shows that the weather covariates account for most of the gain, and a case "
    "study on a heat wave illustrates how the gated convolution adapts to abrupt changes.")
SHORT = TEMPLATE.format(name="Quorbelt", figure=41)


def test_a_long_and_a_short_version_merge_within_one_file_as_across_files(settings, tmp_path):
    authors = ["A. Okafor", "B. Tanaka"]
    long_row = {"id": "long", "abstract": LONG, "authors": authors}
    short_row = {"id": "short", "abstract": SHORT, "authors": authors}
    report, papers = ingest_files(settings, write_jsonl(tmp_path / "one.jsonl", [long_row, short_row]))
    assert report.merges == [("short", "long")] and papers == 1

    other = Settings(data_dir=tmp_path / "other")
    report, papers = ingest_files(other, write_jsonl(tmp_path / "a.jsonl", [long_row]),
                                  write_jsonl(tmp_path / "b.jsonl", [short_row]))
    assert report.merges == [("short", "long")] and papers == 1


def test_near_identical_texts_with_different_author_lists_are_two_papers() -> None:
    finder = DuplicateFinder()
    finder.add(make_paper("long", LONG, authors=("A. Okafor", "B. Tanaka"), source="a.jsonl"))

    assert finder.find(make_paper("short", SHORT, authors=("C. Moreau", "D. Silva"), source="b.jsonl")) is None
    assert finder.find(make_paper("short", SHORT, authors=("B. Tanaka",), source="b.jsonl")) == "long"
    assert finder.find(make_paper("short", SHORT, authors=("B. Tanaka", "E. Rossi"), source="b.jsonl")) == "long"


def test_near_identical_texts_with_a_different_figure_are_two_papers() -> None:
    finder = DuplicateFinder()
    finder.add(make_paper("long", LONG, source="a.jsonl"))

    assert finder.find(make_paper("other", SHORT.replace("41%", "14%"), source="b.jsonl")) is None


def test_the_same_doi_or_title_is_the_same_paper_across_files() -> None:
    finder = DuplicateFinder()
    finder.add(make_paper("p1", LONG, title="Gated Convolutions for Load Forecasting",
                          url="https://doi.org/10.1234/ABC.5", source="a.jsonl"))

    revised = "We revisit short-term load forecasting with a new decomposition and new grids."
    assert finder.find(make_paper("p2", revised, url="https://doi.org/10.1234/abc.5",
                                  source="b.jsonl")) == "p1"
    assert finder.find(make_paper("p3", SHORT, title="Gated convolutions for load forecasting.",
                                  source="b.jsonl")) == "p1"
    assert finder.find(make_paper("p5", revised, title="Gated convolutions for load forecasting",
                                  source="b.jsonl")) is None, "a title match with another abstract"


def test_different_dois_are_different_papers_even_with_near_identical_text() -> None:
    finder = DuplicateFinder()
    finder.add(make_paper("p1", LONG, url="https://doi.org/10.1234/one", source="a.jsonl"))

    assert finder.find(make_paper("p2", SHORT, url="https://doi.org/10.1234/two", source="b.jsonl")) is None


def test_rag_ingest_lists_merges_with_show_merges(tmp_path, monkeypatch):
    row = templated(1)[0]
    a = write_jsonl(tmp_path / "a.jsonl", [row])
    b = write_jsonl(tmp_path / "b.jsonl", [{**row, "id": "copy-1"}])
    monkeypatch.setenv("RAG_DATA_DIR", str(tmp_path / "index"))
    monkeypatch.setattr("rag.index.library.build_embedder", lambda settings: FakeEmbedder())

    result = CliRunner().invoke(cli, ["ingest", "--show-merges", str(a), str(b)])

    assert result.exit_code == 0, result.output
    assert "1 duplicates merged" in result.output
    assert f"merged copy-1 into {row['id']}" in result.output


def test_a_near_copy_of_one_templated_sibling_is_found_among_many(settings, tmp_path):
    rows = templated(150)  # more siblings than a band may hold before it counts as crowded
    target = rows[120]
    copy = {**target, "id": "copy-120", "abstract": target["abstract"] + " Code is available online."}
    report, papers = ingest_files(settings, write_jsonl(tmp_path / "t.jsonl", rows),
                                  write_jsonl(tmp_path / "mine.jsonl", [copy]))

    assert report.merges == [("copy-120", target["id"])] and papers == 150


def test_papers_an_older_version_merged_wrongly_come_back_on_the_next_ingest(settings, tmp_path):
    from rag.ingest.formats import read_file
    from rag.ingest.papers import text_hash

    rows = templated(3)
    path = write_jsonl(tmp_path / "t.jsonl", rows)
    ingest_files(settings, path)
    lib = open_library(settings, embedder=FakeEmbedder())
    try:  # what the old finder left behind: t-001 and t-002 folded into t-000
        papers = {p.id: p for p in read_file(path) if not isinstance(p, str) and hasattr(p, "id")}
        lib.catalog.remove(["t-001", "t-002"])
        lib.catalog.save([], [(pid, "t-000", "t.jsonl", text_hash(papers[pid])) for pid in ("t-001", "t-002")])
        assert lib.catalog.count() == 1
    finally:
        lib.close()

    report, count = ingest_files(settings, path)

    assert count == 3 and report.indexed == 2 and report.merges == []
    lib = open_library(settings, embedder=FakeEmbedder())
    try:
        assert lib.catalog.get("t-002").text.startswith("We present " + rows[2]["name"])
    finally:
        lib.close()
