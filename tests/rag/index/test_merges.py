"""Merges only on evidence, and a merge keeps the fuller text (issue 27, items 5-8): a malformed
arXiv row costs that row only, a title shared by two different papers merges nothing, a shortened
copy merges within a file as across files, and the bundled near-duplicates are merged."""

from __future__ import annotations

import json
from pathlib import Path

from rag.index.library import open_library
from rag.ingest.formats import Problem, read_file
from rag.ingest.papers import DuplicateFinder, make_paper
from rag.settings import Settings
from rag.testing.fakes import FakeEmbedder
from tests.conftest import SEED_FILES
from tests.support import ingest_with_fake_embedder

FULL = ("We introduce Harbourline, a graph model of container traffic in ports. It predicts berth "
        "delays from vessel schedules and crane logs. Trained on two years of records from nine "
        "ports, it cuts the delay error of the operators' planning tool by a third. Transformer "
        "baselines fail when schedules change at short notice. We release the cleaned records "
        "and a simulator so that others can test scheduling policies on the same data.")
SHORT = ("We introduce Harbourline, a graph model of container traffic in ports. It predicts berth "
         "delays from vessel schedules and crane logs. Transformer baselines fail when schedules "
         "change at short notice.")


def papers_of(settings: Settings) -> dict[str, object]:
    lib = open_library(settings, embedder=FakeEmbedder())
    try:
        return {p.id: p for p in lib.catalog.papers()}
    finally:
        lib.close()


def jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def arxiv_row(arxiv_id: str, authors_parsed: object, topic: str) -> dict:
    return {"id": arxiv_id, "title": f"On {topic}", "authors_parsed": authors_parsed,
            "abstract": f"We study {topic} in depth with new data and new models for it.",
            "versions": [{"created": "Mon, 2 Apr 2007 19:18:42 GMT"}]}


def test_a_malformed_arxiv_author_list_costs_its_row_only(settings, tmp_path):
    path = jsonl(tmp_path / "snapshot.jsonl", [
        arxiv_row("0704.0001", [["Lee", "Ann", ""]], "tides"),
        arxiv_row("0704.0002", [["Solo"]], "dunes"),
        arxiv_row("0704.0003", [[1, 2, ""]], "glaciers"),
        arxiv_row("0704.0004", "Lee, Ann", "lagoons"),
        arxiv_row("0704.0005", [["Ray", "Bob", "Jr"]], "reefs"),
    ])

    items = list(read_file(path))
    problems = [i for i in items if isinstance(i, Problem)]
    assert [p.line for p in problems] == [3, 4] and "authors_parsed" in problems[0].reason
    report, ids = ingest_with_fake_embedder(settings, path)
    assert ids == {"arxiv:0704.0001", "arxiv:0704.0002", "arxiv:0704.0005"}
    assert papers_of(settings)["arxiv:0704.0002"].authors == ("Solo",)


def test_one_title_on_two_different_papers_merges_nothing(settings, tmp_path):
    title = "Learning to Forecast Harbour Delays"
    a = jsonl(tmp_path / "a.jsonl", [{"id": "a1", "title": title, "abstract": FULL,
                                      "authors": ["Ann Lee"], "doi": "10.1000/one"}])
    b = jsonl(tmp_path / "b.jsonl", [{"id": "b1", "title": title, "abstract":
                                      "We survey reinforcement learning for warehouse robots and "
                                      "list open problems in safe exploration."}])

    report, ids = ingest_with_fake_embedder(settings, a, b)

    assert ids == {"a1", "b1"} and report.duplicates_merged == 0
    assert papers_of(settings)["b1"].doi is None


def test_a_shortened_copy_with_a_capitalised_word_merges_within_one_file(settings, tmp_path):
    assert "transformer" not in FULL.split()[0] and "Transformer" in SHORT
    full = FULL.replace("Transformer baselines", "Strong transformer baselines")
    path = jsonl(tmp_path / "one.jsonl", [{"id": "full", "abstract": full, "authors": ["Ann Lee", "Bob Ray"]},
                                          {"id": "cut", "abstract": SHORT, "authors": ["Lee, Ann"]}])

    report, ids = ingest_with_fake_embedder(settings, path)

    assert report.merges == [("cut", "full")] and ids == {"full"}


def test_a_merge_keeps_the_fuller_text_whichever_came_first(settings, tmp_path):
    report, ids = ingest_with_fake_embedder(settings, jsonl(tmp_path / "a.jsonl", [{"id": "cut", "abstract": SHORT}]),
                                            jsonl(tmp_path / "b.jsonl", [{"id": "full", "abstract": FULL}]))

    assert report.merges == [("full", "cut")] and ids == {"cut"}
    assert papers_of(settings)["cut"].abstract == FULL


def test_the_bundled_milabot_versions_are_one_paper():
    records = {p.id: p for f in SEED_FILES if f.name.startswith("001") for p in read_file(f)}
    finder = DuplicateFinder()
    finder.add(records["001-0193"])
    assert finder.find(records["001-0201"]) == "001-0193"
    assert finder.find(make_paper("x", SHORT, source=records["001-0193"].source)) is None
