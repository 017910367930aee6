"""Past one machine: one machine ingests into a real `chroma run` and publishes its catalogue to
a shared folder; another machine (its own data directory) answers from the published catalogue
and follows each new generation without a restart (scale issue 12.6)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from rag.engine import answer, build_engine
from rag.index.library import open_library
from rag.index.snapshots import shared_stamp
from rag.index.stamp import read_stamp
from rag.ingest.pipeline import ingest
from rag.ingest.rebuild import rebuild
from rag.live import LiveEngine
from rag.settings import Settings, StoreSettings
from rag.testing.chroma_server import chroma_server
from rag.testing.fakes import FakeEmbedder

pytestmark = pytest.mark.integration

FIRST = {"id": "p-1", "authors": "Ada Quillfeather", "year": 2023,
         "abstract": "We propose Zanthorix, a tokenizer-free retrieval method for chemical patents. "
                     "Zanthorix indexes molecule names by their graph fingerprints."}
LATER = {"id": "p-2", "authors": "Bo Marlowe", "year": 2024,
         "abstract": "We introduce Quellbrook, a speech model for whale song. Quellbrook separates "
                     "overlapping calls recorded by drifting hydrophones."}


@pytest.fixture(scope="module")
def port(tmp_path_factory):
    with chroma_server(tmp_path_factory.mktemp("chroma")) as port:
        yield port


def machine(tmp_path: Path, name: str, port: int) -> Settings:
    store = StoreSettings(mode="server", port=port, reload_seconds=0.01, snapshot_dir=tmp_path / "shared")
    return Settings(data_dir=tmp_path / name, store=store, collection=f"snap-{tmp_path.name[-12:]}")


def write(tmp_path: Path, *rows: dict) -> Path:
    path = tmp_path / "papers.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def run_ingest(settings: Settings, path: Path) -> None:
    lib = open_library(settings, embedder=FakeEmbedder())
    try:
        ingest(lib, [path])
    finally:
        lib.close()


def cited(engine, question: str) -> list[str]:
    return [c.paper_id for c in answer(engine, question).citations]


def test_a_second_machine_answers_from_the_published_catalogue_and_follows_new_ones(tmp_path, port):
    writer, reader = machine(tmp_path, "writer", port), machine(tmp_path, "reader", port)
    run_ingest(writer, write(tmp_path, FIRST))
    assert shared_stamp(reader).generation == read_stamp(writer).generation

    engine = build_engine(reader, library=open_library(reader, embedder=FakeEmbedder(), pinned=True))
    assert cited(engine, "What does Zanthorix index molecule names by?") == ["p-1"]

    live = LiveEngine(reader, engine)
    run_ingest(writer, write(tmp_path, FIRST, LATER))
    deadline = time.monotonic() + 30  # as a service does: each request asks for the current engine
    while live.current().library.stamp.generation < read_stamp(writer).generation and time.monotonic() < deadline:
        time.sleep(0.05)
    # the fake embedder's cosines are noise, so the question asks in the abstract's words (as the
    # first one does): whether the reader answers a paraphrase is not what this test is about
    followed = answer(live.current(), "What does Quellbrook separate overlapping calls from?")
    assert followed.retrieved[0].paper_id == "p-2" and "p-2" in [c.paper_id for c in followed.citations]
    assert read_stamp(reader).generation == read_stamp(writer).generation


def test_a_rebuild_is_published_and_followed_too(tmp_path, port):
    writer, reader = machine(tmp_path, "writer", port), machine(tmp_path, "reader", port)
    source = write(tmp_path, FIRST, LATER)
    run_ingest(writer, source)
    live = LiveEngine(reader, build_engine(reader, library=open_library(reader, embedder=FakeEmbedder())))
    rebuild(writer, [source], embedder=FakeEmbedder())
    engine = live.refresh()
    assert engine.library.stamp.collection == read_stamp(writer).collection != f"snap-{tmp_path.name[-12:]}"
    assert cited(engine, "What does Quellbrook separate overlapping calls from?") == ["p-2"]


def test_published_snapshots_are_pruned_to_the_newest_two(tmp_path, port):
    writer = machine(tmp_path, "writer", port)
    rows = [FIRST]
    for i in range(4):
        rows.append({**LATER, "id": f"p-{10 + i}", "abstract": LATER["abstract"] + f" Variant {i} of {i * 7}."})
        run_ingest(writer, write(tmp_path, *rows))
    published = sorted(p.name for p in (tmp_path / "shared").glob("papers-g*.sqlite"))
    generation = read_stamp(writer).generation
    assert published == [f"papers-g{generation - 1}.sqlite", f"papers-g{generation}.sqlite"]


def test_a_folder_that_cannot_be_published_to_is_a_clear_error_and_the_next_ingest_publishes(tmp_path, port):
    from rag.errors import StoreError

    writer = machine(tmp_path, "writer", port)
    (tmp_path / "shared").write_text("a file where the shared folder should be")
    with pytest.raises(StoreError, match="RAG_STORE__SNAPSHOT_DIR"):
        run_ingest(writer, write(tmp_path, FIRST))
    assert read_stamp(writer).generation == 0  # refused before writing: no lease, no ingest
    (tmp_path / "shared").unlink()
    run_ingest(writer, write(tmp_path, FIRST))
    assert shared_stamp(writer).generation == read_stamp(writer).generation == 1
    (tmp_path / "shared" / "index.json").unlink()  # a publish that did not happen
    run_ingest(writer, write(tmp_path, FIRST))  # nothing changed locally: it only publishes
    assert shared_stamp(writer).generation == 1 and shared_stamp(writer).checksum
