"""Ingest is an idempotent upsert: re-running changes nothing, changes re-embed only what
changed, duplicates are merged, an interrupted run is completed by the next one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rag.errors import IndexMismatchError
from rag.index.library import open_library
from rag.ingest.pipeline import ingest
from rag.ingest.rebuild import rebuild
from rag.settings import ChunkingSettings, Settings
from rag.testing.fakes import FakeEmbedder, InterruptingEmbedder
from rag.text.injection import evidence_sentences


def run(settings: Settings, paths: list[Path], embedder=None, **kw):
    lib = open_library(settings, embedder=embedder or FakeEmbedder(), **kw)
    try:
        return ingest(lib, paths), lib.catalog.count(), lib.vectors.count()
    finally:
        lib.close()


def state(settings: Settings) -> tuple[dict[str, str], set[str]]:
    lib = open_library(settings, embedder=FakeEmbedder())
    try:
        papers = {p.id: p.text for p in lib.catalog.papers()}
        chunks = set(lib.vectors.chunk_ids(list(papers)))
        return papers, chunks
    finally:
        lib.close()


def test_bundled_corpus_is_indexed_with_duplicates_merged(settings, corpus_copy):
    report, papers, chunks = run(settings, [corpus_copy])
    assert report.papers == 590 and report.metadata_only == 12
    assert sorted(report.merges) == [("001-0201", "001-0193"), ("003-0365", "000-0061")]
    assert papers == 588  # 578 abstracts - 2 merged + 12 metadata-only
    assert chunks == report.chunks_embedded, "each stored chunk embedded exactly once"
    assert report.problems == []
    lib = open_library(settings, embedder=FakeEmbedder())
    theseus = lib.catalog.get("003-0365")
    assert theseus is not None and theseus.id == "000-0061" and "003-0365" in theseus.aliases
    milabot = lib.catalog.get("001-0201")  # the short version, in the same file: merged too
    assert milabot is not None and milabot.id == "001-0193" and "Alexa" in milabot.abstract
    lib.close()


def test_reingest_changes_nothing_and_embeds_nothing(settings, corpus_copy):
    run(settings, [corpus_copy])
    before = state(settings)
    embedder = FakeEmbedder()
    report, _, _ = run(settings, [corpus_copy], embedder)
    assert embedder.texts_embedded == 0
    assert report.unchanged == 590 and report.indexed == 0 and report.duplicates_merged == 0
    assert state(settings) == before


def test_a_changed_abstract_re_embeds_only_that_paper(settings, corpus_copy):
    run(settings, [corpus_copy])
    path = corpus_copy / "002_c30d0852975d4dec.txt"
    lines = path.read_text().split("\n")
    lines[4] = lines[4].replace("Deep Neural Networks", "Deep neural nets")  # line 5
    path.write_text("\n".join(lines))
    embedder = FakeEmbedder()
    report, _, _ = run(settings, [corpus_copy], embedder)
    assert report.indexed == 1 and report.removed == 0 and report.duplicates_merged == 0
    assert 1 <= report.chunks_embedded <= 2  # the chunks of 002-0005 that changed
    lib = open_library(settings, embedder=FakeEmbedder())
    edited = lib.catalog.get("002-0005")  # an edited abstract is a new record: a content id,
    lib.close()                           # and its old id still finds it
    assert edited is not None and edited.abstract.startswith("Deep neural nets")
    assert report.sentences_embedded == len(set(evidence_sentences(edited)))  # that paper's only
    assert embedder.texts_embedded == report.chunks_embedded + report.sentences_embedded
    assert edited.id.startswith("002_c30d0852975d4dec-") and "002-0005" in edited.aliases
    assert any("002-0005 is now" in str(n) for n in report.notices)
    again, papers, _ = run(settings, [corpus_copy])
    assert again.indexed == 0 and again.removed == 0 and papers == 588


def test_a_removed_abstract_is_removed_from_the_index(settings, corpus_copy):
    run(settings, [corpus_copy])
    path = corpus_copy / "002_c30d0852975d4dec.txt"
    lines = path.read_text().split("\n")
    lines[4] = ""
    path.write_text("\n".join(lines))
    report, _, _ = run(settings, [corpus_copy])
    assert report.removed == 1
    papers, chunks = state(settings)
    assert "002-0005" not in papers
    assert not any(c.startswith("002-0005#") for c in chunks)


def test_user_jsonl_is_added_and_its_near_duplicate_merged(settings, corpus_copy, tmp_path):
    run(settings, [corpus_copy])
    k2_text = (corpus_copy / "001_9cf06f18056fdc73.txt").read_text().split("\n")[4]
    mine = tmp_path / "mine.jsonl"
    rows = [
        {"id": "mine-1", "title": "A new paper", "abstract": "We study tiny octopus robots "
         "that swim through coral reefs and count fish with sonar.", "year": 2026},
        {"id": "mine-k2", "abstract": k2_text.replace("geoscience", "Geoscience"), "year": 2023},
    ]
    mine.write_text("\n".join(json.dumps(r) for r in rows) + "\n{broken\n")
    report, papers, _ = run(settings, [mine])
    assert report.indexed == 1 and report.duplicates_merged == 1
    assert [(p.line, "JSON" in p.reason) for p in report.problems] == [(3, True)]
    assert papers == 589
    lib = open_library(settings, embedder=FakeEmbedder())
    assert lib.catalog.get("mine-k2").id == "001-0005"
    assert lib.catalog.get("001-0005").year == 2023, "metadata gaps are filled from the duplicate"
    lib.close()


def test_opening_with_another_embedder_says_how_to_rebuild(settings, corpus_copy):
    run(settings, [corpus_copy / "002_c30d0852975d4dec.txt"])

    class Other(FakeEmbedder):
        name = "another-model"

    with pytest.raises(IndexMismatchError, match="rag ingest --rebuild"):
        open_library(settings, embedder=Other())
    changed = settings.model_copy(update={"chunking": ChunkingSettings(chunk_size=128)})
    with pytest.raises(IndexMismatchError, match="chunker"):
        open_library(changed, embedder=FakeEmbedder())
    report = rebuild(changed, [corpus_copy / "002_c30d0852975d4dec.txt"], embedder=Other())
    lib = open_library(changed, embedder=Other())
    try:
        papers, chunks = lib.catalog.count(), lib.vectors.count()
    finally:
        lib.close()
    assert papers == 24 and report.indexed == 24 and chunks > 22


def test_interrupted_ingest_is_completed_by_the_next_run(settings, corpus_copy, tmp_path):
    clean = Settings(data_dir=tmp_path / "clean")
    run(clean, [corpus_copy])
    with pytest.raises(KeyboardInterrupt):
        run(settings, [corpus_copy], InterruptingEmbedder(after_calls=12))
    partial, _ = state(settings)
    assert 0 < len(partial) < 588
    embedder = FakeEmbedder()
    run(settings, [corpus_copy], embedder)
    assert state(settings) == state(clean)
    _, papers, chunks = run(settings, [corpus_copy])
    assert (papers, chunks) == (588, len(state(clean)[1]))


def test_a_second_writer_is_refused_while_one_ingest_runs(settings, corpus_copy):
    from rag.errors import StoreError
    from rag.ingest.session import writer_lock

    with writer_lock(settings.data_dir), pytest.raises(StoreError, match="another `rag ingest`"):
        run(settings, [corpus_copy / "002_c30d0852975d4dec.txt"])
    report, papers, _ = run(settings, [corpus_copy / "002_c30d0852975d4dec.txt"])
    assert papers == 24
