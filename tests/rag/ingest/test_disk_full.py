"""A full disk during ingest is one line that says so and what to do, never a traceback; what
was finished is kept and the next ingest completes the index (robustness issue 19.7). The disk
fills at the store boundary: SQLite's own "database or disk is full" (a page limit on the
catalogue), and Chroma's error for the same condition (benchmarks/soak.py fills a real tmpfs)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from rag.index.diskspace import DiskFullError
from rag.index.library import open_library
from rag.index.stamp import read_stamp
from rag.ingest.pipeline import ingest
from rag.settings import BUNDLED_CORPUS, Settings
from rag.testing.fakes import FakeEmbedder

SEED = BUNDLED_CORPUS / "002_c30d0852975d4dec.txt"


def many_papers(path: Path, count: int = 60) -> Path:
    rows = [{"id": f"fill-{i}", "authors": f"Writer {i}", "year": 2025,
             "abstract": f"Survey {i} of alpine lake number {i * 7 + 1}: the {i}th lake holds "
                         f"{i * 13 % 97} species of diatom, counted by hand over {i % 5 + 2} summers."}
            for i in range(count)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


class FillingStore:
    """The real vector store, whose writes fail as Chroma's do once the disk is full."""

    def __init__(self, inner, upserts_before_full: int) -> None:  # type: ignore[no-untyped-def]
        self.inner, self.left = inner, upserts_before_full

    def __getattr__(self, name: str):  # type: ignore[no-untyped-def]
        return getattr(self.inner, name)

    def upsert(self, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
        import chromadb.errors

        if self.left == 0:
            raise chromadb.errors.InternalError("Query error: Database error: error returned from "
                                                "database: (code: 13) database or disk is full")
        self.left -= 1
        self.inner.upsert(*args, **kwargs)


def indexed(tmp_path: Path) -> Settings:
    settings = Settings(data_dir=tmp_path / "index")
    lib = open_library(settings, embedder=FakeEmbedder())
    try:
        ingest(lib, [SEED])
    finally:
        lib.close()
    return settings


def assert_one_clear_line(error: pytest.ExceptionInfo) -> None:
    message = str(error.value)
    assert "\n" not in message and "full" in message and "rag ingest" in message
    assert "Free some space" in message


def test_a_vector_store_that_fills_up_is_one_line_and_the_next_ingest_completes(tmp_path):
    settings = indexed(tmp_path)
    live = read_stamp(settings)
    lib = open_library(settings, embedder=FakeEmbedder())
    lib.vectors = FillingStore(lib.vectors, upserts_before_full=2)
    source = many_papers(tmp_path / "lakes.jsonl")
    with pytest.raises(DiskFullError) as error:
        ingest(lib, [source], batch_size=8)
    lib.close()
    assert_one_clear_line(error)
    assert read_stamp(settings) == live, "nothing half-done is stamped"
    lib = open_library(settings, embedder=FakeEmbedder())
    try:
        assert lib.catalog.count() == 24 + 16, "the two batches written are kept"
        report = ingest(lib, [source])
        assert report.indexed == 60 - 16 and lib.catalog.count() == 84
        assert lib.vectors.count() == lib.catalog.chunk_count()
    finally:
        lib.close()


def test_a_catalogue_that_fills_up_is_one_line_too(tmp_path):
    settings = indexed(tmp_path)
    lib = open_library(settings, embedder=FakeEmbedder())
    pages = lib.catalog.db.execute("PRAGMA page_count").fetchone()[0]
    lib.catalog.db.execute(f"PRAGMA max_page_count = {pages + 2}")  # SQLite: "database or disk is full"
    with pytest.raises(DiskFullError) as error:
        ingest(lib, [many_papers(tmp_path / "lakes.jsonl")], batch_size=8)
    lib.close()
    assert_one_clear_line(error)
    assert read_stamp(settings).generation == 1


def test_a_full_disk_does_not_stop_the_service_answering(tmp_path):
    """The service writes one thing, its question log; on a full disk that write fails, and the
    answer must still be served (it was a 500 on every question)."""
    from fastapi.testclient import TestClient

    from rag.engine import build_engine
    from service.app import create_app

    settings = indexed(tmp_path)
    engine = build_engine(settings, library=open_library(settings, embedder=FakeEmbedder(), pinned=True))
    with TestClient(create_app(settings, engine=engine)) as client:
        log = client.app.state.log.db
        log.execute(f"PRAGMA max_page_count = {log.execute('PRAGMA page_count').fetchone()[0] + 1}")
        with pytest.raises(sqlite3.OperationalError, match="full"):  # fill what is left
            for _ in range(100):
                with log:
                    log.execute("INSERT INTO turns (conversation_id, created, channel, question, answer, "
                                "abstained, latency_ms) VALUES ('x', 0, 'api', 'q', ?, 0, 0)", ("x" * 900,))
        for question in ("Which papers study deep neural networks?", "What is pruning used for?"):
            reply = client.post("/api/ask", json={"question": question})
            assert reply.status_code == 200, reply.text
        streamed = client.post("/api/ask", json={"question": "What is pruning used for?", "stream": True})
        assert streamed.status_code == 200 and "event: done" in streamed.text
