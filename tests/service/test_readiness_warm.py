"""/readyz says ready only once the service is warm: one question has been answered at start-up,
so the embedder, the index pages and the reader are loaded before traffic is sent (issue 27,
item 13; the latency figures are in benchmarks/cold_start.py)."""

from __future__ import annotations

import threading
import time

from fastapi.testclient import TestClient

import service.warmup as warmup
from rag.engine import answer, build_engine
from rag.index.library import open_library
from rag.testing.fakes import FakeEmbedder
from service.app import create_app
from tests.support import ingest_with_fake_embedder, write_papers


def test_readyz_waits_for_the_warm_up_question_and_the_question_loads_the_embedder(settings, tmp_path, monkeypatch):
    ingest_with_fake_embedder(settings, write_papers(tmp_path / "papers.jsonl"))
    embedder = FakeEmbedder()
    engine = build_engine(settings, library=open_library(settings, embedder=embedder, pinned=True))
    release, asked = threading.Event(), []

    def slow_answer(engine, question):  # type: ignore[no-untyped-def]
        release.wait(30)
        asked.append(question)
        return answer(engine, question)

    monkeypatch.setattr(warmup, "answer", slow_answer)
    monkeypatch.setattr("service.routes.health.WARM_WAIT", 0.05)
    with TestClient(create_app(settings, engine=engine)) as client:
        cold = client.get("/readyz")
        release.set()
        client.app.state.warmup.done.wait(30)
        calls_before_traffic = len(embedder.calls)
        warm = client.get("/readyz")
    assert cold.status_code == 503 and cold.json()["code"] == "warming"
    assert warm.status_code == 200 and warm.json()["status"] == "ready"
    assert asked == [warmup.WARM_QUESTION] and calls_before_traffic > 0


def test_a_stopping_service_waits_for_the_warm_up_question_before_closing_the_index(settings, tmp_path, monkeypatch):
    """CI once crashed (a segmentation fault) when a test's service stopped while the warm-up
    question was still reading the catalogue: the index was closed under the reading thread."""
    ingest_with_fake_embedder(settings, write_papers(tmp_path / "papers.jsonl"))
    started, errors = threading.Event(), []

    def slow_answer(engine, question):  # type: ignore[no-untyped-def]
        started.set()
        time.sleep(0.5)  # the client leaves meanwhile and the service stops
        try:
            engine.library.catalog.count()
        except Exception as exc:  # noqa: BLE001  a closed catalogue says so here
            errors.append(exc)

    monkeypatch.setattr(warmup, "answer", slow_answer)
    engine = build_engine(settings, library=open_library(settings, embedder=FakeEmbedder(), pinned=True))
    app = create_app(settings, engine=engine)
    with TestClient(app):
        assert started.wait(30)
    engine.close()  # the caller closes its engine once the service has stopped
    assert app.state.warmup.done.wait(30) and errors == []
