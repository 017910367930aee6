"""A running service follows the index without a restart: a paper ingested after it started is
answered, `--rebuild` swaps a new index in while the old one keeps answering, answers in flight
finish on the index they started with, and a lost catalogue or lost vectors make /readyz fail
and `rag ingest` repair them (reliability issue 11.1, 11.4, 11.8)."""

from __future__ import annotations

import json
import shutil
import threading
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from rag.engine import answer, build_engine
from rag.errors import StoreError
from rag.index.library import open_library
from rag.index.stamp import read_stamp
from rag.ingest.pipeline import ingest
from rag.ingest.rebuild import rebuild
from rag.ingest.session import writer_lock
from rag.settings import BUNDLED_CORPUS, Settings, StoreSettings
from rag.testing.fakes import FakeEmbedder
from service.app import create_app

SEED = BUNDLED_CORPUS / "002_c30d0852975d4dec.txt"
NEW_PAPER = {"id": "new-1", "authors": "Ada Quillfeather", "year": 2024,
             "abstract": "We propose Zanthorix, a tokenizer-free retrieval method for chemical "
                         "patents. Zanthorix indexes molecule names by their graph fingerprints."}
# Asked in the abstracts' own words: under the fake embedder a loosely worded question falls below
# the reader's answerability gate, and these tests are about the index, not about reading.
NEW_QUESTION = "What does Zanthorix index molecule names by?"
SEED_QUESTION = "Which papers improve the quality of image-text pairs for training MLLMs?"


def settings_for(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path / "index", store=StoreSettings(reload_seconds=0.01))


def ingest_files(settings: Settings, *paths: Path) -> None:
    lib = open_library(settings, embedder=FakeEmbedder())
    try:
        ingest(lib, list(paths))
    finally:
        lib.close()


def new_papers_file(tmp_path: Path, *rows: dict) -> Path:
    path = tmp_path / "new.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def service(settings: Settings) -> TestClient:
    library = open_library(settings, embedder=FakeEmbedder(), pinned=True)
    return TestClient(create_app(settings, engine=build_engine(settings, library=library)))


def ask(client: TestClient, question: str) -> dict:
    reply = client.post("/api/ask", json={"question": question})
    assert reply.status_code == 200, reply.text
    return reply.json()


def test_a_running_service_answers_about_a_paper_ingested_after_it_started(tmp_path):
    settings = settings_for(tmp_path)
    ingest_files(settings, SEED)
    with service(settings) as client:
        assert ask(client, NEW_QUESTION)["abstained"]
        ingest_files(settings, new_papers_file(tmp_path, NEW_PAPER))
        client.app.state.live.refresh()
        body = ask(client, NEW_QUESTION)
        assert [c["paper_id"] for c in body["citations"]] == ["new-1"]
        assert client.get("/readyz").json()["generation"] == read_stamp(settings).generation == 2


def test_the_service_notices_a_new_generation_by_itself(tmp_path):
    settings = settings_for(tmp_path)
    ingest_files(settings, SEED)
    with service(settings) as client:
        live = client.app.state.live
        ingest_files(settings, new_papers_file(tmp_path, NEW_PAPER))
        for _ in range(200):
            live.current()
            if live.reopened:
                break
            threading.Event().wait(0.02)
        assert live.reopened == 1
        assert ask(client, NEW_QUESTION)["citations"][0]["paper_id"] == "new-1"


def test_an_answer_in_flight_finishes_on_the_index_it_started_with(tmp_path):
    settings = settings_for(tmp_path)
    ingest_files(settings, SEED)
    with service(settings) as client:
        live = client.app.state.live
        before = live.current()  # what a request that started now holds
        rebuild(settings, [new_papers_file(tmp_path, NEW_PAPER)], embedder=FakeEmbedder(), drop_others=True)
        after = live.refresh()
        assert after is not before and after.library.catalog.count() == 1
        old = answer(before, SEED_QUESTION)
        assert old.citations and all(c.paper_id.startswith("002-") for c in old.citations)


def test_after_a_rebuild_the_service_answers_from_the_new_index_not_500(tmp_path):
    settings = settings_for(tmp_path)
    ingest_files(settings, SEED)
    with service(settings) as client:
        rebuild(settings, [SEED, new_papers_file(tmp_path, NEW_PAPER)], embedder=FakeEmbedder())
        still = client.post("/api/ask", json={"question": NEW_QUESTION})
        assert still.status_code == 200  # the old generation, until the new one is open
        client.app.state.live.refresh()
        assert ask(client, NEW_QUESTION)["citations"][0]["paper_id"] == "new-1"
        rebuild(settings, [SEED], embedder=FakeEmbedder(), drop_others=True)  # drops the first generation's collection
        client.app.state.live.refresh()
        assert ask(client, NEW_QUESTION)["abstained"]
        assert client.get("/readyz").status_code == 200


def test_a_rebuild_waits_for_the_writer_lock_before_touching_the_index(tmp_path):
    settings = settings_for(tmp_path)
    ingest_files(settings, SEED)
    with writer_lock(settings.data_dir), pytest.raises(StoreError, match="another `rag ingest`"):
        rebuild(settings, [SEED], embedder=FakeEmbedder())
    lib = open_library(settings, embedder=FakeEmbedder())
    try:
        assert lib.catalog.count() == 24 and lib.vectors.count() > 0
    finally:
        lib.close()


def test_lost_vectors_fail_readyz_and_the_next_ingest_re_embeds_them(tmp_path):
    settings = settings_for(tmp_path)
    ingest_files(settings, SEED)
    lib = open_library(settings, embedder=FakeEmbedder())
    chunks = lib.vectors.count()
    lost = [c.id for c in lib.catalog.chunks_of(["002-0005", "002-0007"])]
    assert {cid.split("#")[0] for cid in lost} == {"002-0005", "002-0007"}
    lib.vectors.delete(lost)
    lib.close()
    with service(settings) as client:
        ready = client.get("/readyz")
        assert ready.status_code == 503 and ready.json()["code"] == "index_inconsistent"
        assert "vectors were lost" in ready.json()["message"]
    embedder = FakeEmbedder()
    lib = open_library(settings, embedder=embedder)
    try:
        report = ingest(lib, [SEED])
        assert report.repaired == 2 and report.indexed == 2 and embedder.texts_embedded >= 2
        assert lib.vectors.count() == chunks
    finally:
        lib.close()
    with service(settings) as client:
        assert client.get("/readyz").status_code == 200


def test_a_lost_catalogue_fails_readyz_and_answers_503_until_ingest_restores_it(tmp_path):
    settings = settings_for(tmp_path)
    ingest_files(settings, SEED)
    for path in settings.data_dir.glob("papers.sqlite*"):
        path.unlink()
    with service(settings) as client:
        ready = client.get("/readyz")
        assert ready.status_code == 503 and "catalogue was lost" in ready.json()["message"]
        reply = client.post("/api/ask", json={"question": SEED_QUESTION})
        assert reply.status_code == 503 and reply.headers["retry-after"]
    embedder = FakeEmbedder()
    lib = open_library(settings, embedder=embedder)
    try:
        report = ingest(lib, [SEED])
    finally:
        lib.close()
    assert report.indexed == 24 and report.chunks_embedded == 0, "stored vectors are reused"
    # the sentence vectors lived in the lost catalogue: only they are embedded again
    assert embedder.texts_embedded == report.sentences_embedded > 0
    with service(settings) as client:
        assert client.get("/readyz").status_code == 200


def test_a_deleted_vector_store_is_rebuilt_by_rag_ingest_not_reported_unchanged(tmp_path):
    settings = settings_for(tmp_path)
    ingest_files(settings, SEED)
    shutil.rmtree(settings.data_dir / "chroma")
    lib = open_library(settings, embedder=FakeEmbedder(), fresh=True)  # as a new process would
    try:
        report = ingest(lib, [SEED])
        assert report.repaired == report.indexed == 22 and report.unchanged == 2  # 2 lack abstracts
        assert lib.vectors.count() == lib.catalog.chunk_count() > 0
    finally:
        lib.close()


@pytest.mark.integration
def test_a_real_ingest_process_beside_a_running_server_causes_no_500(real_index, tmp_path):
    """The reported repro: `rag serve`, then `rag ingest new.jsonl` in another process; questions
    that retrieve the new paper gave 500 (`Error finding id`) until a restart."""
    import os
    import subprocess
    import sys
    import time

    import httpx
    import uvicorn

    from rag.testing.live import free_port
    data_dir = tmp_path / "index"
    shutil.copytree(real_index.data_dir, data_dir)
    settings = Settings(data_dir=data_dir, store=StoreSettings(reload_seconds=0.2))
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(create_app(settings), host="127.0.0.1", port=port,
                                          log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 60
        while not server.started and time.monotonic() < deadline:
            time.sleep(0.1)
        url = f"http://127.0.0.1:{port}/api/ask"
        question = {"question": NEW_QUESTION}
        assert httpx.post(url, json=question, timeout=60).status_code == 200
        env = {**os.environ, "RAG_DATA_DIR": str(data_dir)}
        done = subprocess.run([sys.executable, "-m", "cli", "ingest", str(new_papers_file(tmp_path, NEW_PAPER))],
                              env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        statuses, cited = [], []
        for _ in range(30):
            reply = httpx.post(url, json=question, timeout=60)
            statuses.append(reply.status_code)
            cited = [c["paper_id"] for c in reply.json().get("citations", [])]
            if "new-1" in cited:
                break
            time.sleep(0.2)
        assert set(statuses) == {200} and cited[0] == "new-1"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
