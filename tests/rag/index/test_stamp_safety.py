"""The generation stamp cannot be turned against the index (robustness issue 19.1-19.3): a plain
ingest that read the stamp before a rebuild finished does not undo the rebuild; an unreadable
stamp never means generation 0 (the service keeps serving what it has open and /readyz says why,
and `rag ingest` recovers the newest intact generation, losing nothing); a stamp that names a
file outside the data directory is refused and creates nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rag.errors import StoreError
from rag.index.chroma import chroma_client, collection_names
from rag.index.library import open_library
from rag.index.stamp import read_stamp, stamp_path
from rag.ingest.pipeline import ingest, ingest_files
from rag.ingest.rebuild import rebuild
from rag.settings import BUNDLED_CORPUS, Settings, StoreSettings
from rag.testing.fakes import FakeEmbedder
from tests.support import cited
from tests.support import pinned_service as service

SEED = BUNDLED_CORPUS / "002_c30d0852975d4dec.txt"


def paper(pid: str, method: str, task: str) -> dict:
    return {"id": pid, "authors": "Ada Quillfeather", "year": 2024,
            "abstract": f"We propose {method}, a method for {task}. {method} reduces the error of "
                        f"{task} by a wide margin on three public benchmarks."}


A = paper("a-1", "Zanthorix", "chemical patent retrieval")
B = paper("b-1", "Quellbrook", "whale song separation")
C = paper("c-1", "Morvellan", "glacier melt forecasting")


def settings_for(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path / "index", store=StoreSettings(reload_seconds=0.01))


def papers_file(tmp_path: Path, name: str, *rows: dict) -> Path:
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def run_ingest(settings: Settings, *paths: Path):  # type: ignore[no-untyped-def]
    """As `rag ingest` does it."""
    return ingest_files(settings, list(paths), embedder=FakeEmbedder())


def served_ids(settings: Settings) -> set[str]:
    lib = open_library(settings, embedder=FakeEmbedder())
    try:
        assert lib.vectors.count() == lib.catalog.chunk_count()
        return {p.id for p in lib.catalog.papers()}
    finally:
        lib.close()


def four_generations(tmp_path: Path) -> tuple[Settings, set[str]]:
    """The issue's setup: an ingest, a rebuild (new files), and an ingest after it."""
    settings = settings_for(tmp_path)
    run_ingest(settings, SEED)
    rebuild(settings, [SEED, papers_file(tmp_path, "b.jsonl", B)], embedder=FakeEmbedder())
    run_ingest(settings, papers_file(tmp_path, "a.jsonl", A))
    assert read_stamp(settings).generation == 3 and read_stamp(settings).collection == "abstracts-g2"
    return settings, served_ids(settings)


def test_a_plain_ingest_that_read_the_stamp_before_a_rebuild_finished_keeps_the_rebuild(tmp_path):
    settings = settings_for(tmp_path)
    run_ingest(settings, SEED)
    late = open_library(settings, embedder=FakeEmbedder())  # `rag ingest A`, started during the rebuild
    try:
        rebuild(settings, [SEED, papers_file(tmp_path, "b.jsonl", B)], embedder=FakeEmbedder())
        rebuilt = read_stamp(settings)
        ingest(late, [papers_file(tmp_path, "a.jsonl", A)])
    finally:
        late.close()
    final = read_stamp(settings)
    assert (final.collection, final.catalog) == (rebuilt.collection, rebuilt.catalog)
    assert final.generation == rebuilt.generation + 1
    assert {"a-1", "b-1"} <= served_ids(settings) and len(served_ids(settings)) == 26


def test_a_garbage_stamp_keeps_the_service_on_its_generation_and_fails_readyz(tmp_path):
    settings, _ = four_generations(tmp_path)
    with service(settings) as client:
        assert client.get("/readyz").json()["generation"] == 3
        stamp_path(settings).write_text("garbage\n")
        for _ in range(3):  # the reload is attempted and fails: nothing swaps to "generation 0"
            ready = client.get("/readyz")
        assert ready.status_code == 503 and ready.json()["generation"] == 3
        assert "index.json" in ready.json()["message"] and "rag ingest" in ready.json()["message"]
        assert cited(client, "What does Zanthorix reduce?") == ["a-1"]  # still generation 3


def test_rag_ingest_after_a_garbage_stamp_recovers_the_newest_generation_and_loses_nothing(tmp_path):
    settings, before = four_generations(tmp_path)
    stamp_path(settings).write_text("garbage\n")
    report = run_ingest(settings, papers_file(tmp_path, "c.jsonl", C))
    assert served_ids(settings) == before | {"c-1"}
    stamp = read_stamp(settings)
    assert (stamp.generation, stamp.collection) == (4, "abstracts-g2")
    assert report.recovered and report.generation == 4


def test_a_stamp_naming_a_missing_catalogue_is_recovered_not_trusted(tmp_path):
    settings, before = four_generations(tmp_path)
    stamp = json.loads(stamp_path(settings).read_text())
    stamp_path(settings).write_text(json.dumps({**stamp, "generation": 7, "catalog": 7}))
    with pytest.raises(StoreError, match="papers-g7.sqlite"):
        read_stamp(settings)
    report = run_ingest(settings, SEED)  # the case: the bundled files alone
    assert served_ids(settings) == before, "no paper of the intact catalogue is lost"
    assert report.recovered


def test_a_garbage_stamp_with_no_intact_generation_is_refused_until_a_rebuild(tmp_path):
    settings = settings_for(tmp_path)
    run_ingest(settings, SEED)
    for path in settings.data_dir.glob("papers.sqlite*"):
        path.unlink()
    stamp_path(settings).write_text('{"generation": "x"}')
    with pytest.raises(StoreError, match=r"index\.json.*rag ingest --rebuild"):
        run_ingest(settings, SEED)
    rebuild(settings, [SEED], embedder=FakeEmbedder())
    assert len(served_ids(settings)) == 24 and read_stamp(settings).generation >= 1


def test_a_stamp_naming_a_file_outside_the_data_directory_is_refused_and_creates_nothing(tmp_path):
    settings = settings_for(tmp_path)
    run_ingest(settings, SEED)
    hostile = {"generation": 7, "collection": "abstracts-evil", "catalog": "../outside/created.sqlite",
               "papers": 1, "chunks": 1}
    with service(settings) as client:
        stamp_path(settings).write_text(json.dumps(hostile))
        for _ in range(3):
            ready = client.get("/readyz")
        assert ready.status_code == 503 and "catalogue" in ready.json()["message"]
        assert ready.json()["generation"] == 1
        assert cited(client, "Which papers improve the quality of image-text pairs for training MLLMs?")
    assert not (tmp_path / "outside").exists()
    assert "abstracts-evil" not in collection_names(chroma_client(settings))
    report = run_ingest(settings, SEED)  # recovers generation 1 from disk, then goes on
    assert report.recovered and read_stamp(settings).catalog == "papers.sqlite"


@pytest.mark.parametrize("text, why", [
    ('{"generation": -1}', "generation is -1"),
    ('{"format": 2, "generation": 2, "build": 5, "catalog": 0}', "after its generation"),
    ('{"format": 3, "generation": 2}', "format 3"),
    ('{"generation": 2, "collection": "other-g2", "catalog": "papers.sqlite"}', "RAG_COLLECTION"),
    ('{"generation": 2, "collection": "abstracts", "catalog": "/etc/passwd"}', "not a catalogue file name"),
    ('[1, 2]', "not a JSON object"),
])
def test_a_stamp_is_numbers_within_bounds_or_it_is_refused_with_the_reason(text, why):
    from rag.index.stamp import parse_stamp

    with pytest.raises(ValueError, match=why):
        parse_stamp(text, "abstracts")


def test_a_stamp_written_before_stamps_named_generations_still_opens(tmp_path):
    from rag.index.stamp import parse_stamp

    old = '{"generation": 4, "collection": "abstracts-g3", "catalog": "papers-g3.sqlite", "papers": 9, "chunks": 9}'
    stamp = parse_stamp(old, "abstracts")
    assert (stamp.generation, stamp.collection, stamp.catalog) == (4, "abstracts-g3", "papers-g3.sqlite")


def test_a_catalogue_that_links_outside_the_data_directory_is_refused(tmp_path):
    from rag.index.stamp import StampError

    settings = settings_for(tmp_path)
    run_ingest(settings, SEED)
    outside = tmp_path / "elsewhere.sqlite"
    (settings.data_dir / "papers.sqlite").rename(outside)
    (settings.data_dir / "papers.sqlite").symlink_to(outside)
    with pytest.raises(StampError, match="not a file of"):
        open_library(settings, embedder=FakeEmbedder())
