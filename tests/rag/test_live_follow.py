"""A running service answers the first question after an ingest from the new index, swaps a new
generation in without any traffic, reports the generation it serves next to the newest it knows,
and keeps serving the open generation when a new one opens but cannot be read (robustness issue
19.7 and 19.12)."""

from __future__ import annotations

import json
import time
from pathlib import Path

from rag.engine import build_engine
from rag.index.library import open_library
from rag.ingest.pipeline import ingest
from rag.live import LiveEngine
from rag.settings import BUNDLED_CORPUS, Settings, StoreSettings
from rag.testing.fakes import FakeEmbedder
from tests.support import cited
from tests.support import pinned_service as service

SEED = BUNDLED_CORPUS / "002_c30d0852975d4dec.txt"
NEW_PAPER = {"id": "new-1", "authors": "Ada Quillfeather", "year": 2024,
             "abstract": "We propose Zorblatron, a codec for telescope images. Zorblatron "
                         "compresses radio interferometer images by a factor of forty."}
# Asked in the abstracts' own words: under the fake embedder a loosely worded question falls below
# the reader's answerability gate, and these tests are about the index, not about reading.
NEW_QUESTION = "What does Zorblatron compress radio interferometer images by?"
SEED_QUESTION = "Which papers improve the quality of image-text pairs for training MLLMs?"


def settings_for(tmp_path: Path, reload_seconds: float = 1.0) -> Settings:
    return Settings(data_dir=tmp_path / "index", store=StoreSettings(reload_seconds=reload_seconds))


def ingest_files(settings: Settings, *paths: Path) -> None:
    lib = open_library(settings, embedder=FakeEmbedder())
    try:
        ingest(lib, list(paths))
    finally:
        lib.close()


def new_file(tmp_path: Path) -> Path:
    path = tmp_path / "new.jsonl"
    path.write_text(json.dumps(NEW_PAPER) + "\n")
    return path


def test_the_first_question_after_an_ingest_is_answered_from_the_new_index(tmp_path):
    settings = settings_for(tmp_path)  # the default: the stamp is watched every second
    ingest_files(settings, SEED)
    with service(settings) as client:
        assert not cited(client, NEW_QUESTION)
        ingest_files(settings, new_file(tmp_path))
        assert cited(client, NEW_QUESTION) == ["new-1"]  # no wait, no retry


def test_an_idle_service_swaps_the_new_generation_in_without_a_request(tmp_path):
    settings = settings_for(tmp_path, reload_seconds=0.1)
    ingest_files(settings, SEED)
    with service(settings) as client:
        live = client.app.state.live
        ingest_files(settings, new_file(tmp_path))
        deadline = time.monotonic() + 10
        while live.reopened == 0 and time.monotonic() < deadline:
            time.sleep(0.05)  # no request: only the watcher can notice
        assert live.reopened == 1
        assert client.get("/readyz").json()["generation"] == 2


class Unreadable:
    """A vector store that opened but cannot be read, as Chroma on a full disk (its first query
    tries to apply the log another process left and fails)."""

    def __init__(self, inner) -> None:  # type: ignore[no-untyped-def]
        self.inner = inner

    def __getattr__(self, name: str):  # type: ignore[no-untyped-def]
        return getattr(self.inner, name)

    def query(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        import chromadb.errors

        from rag.errors import StoreError

        failure = chromadb.errors.InternalError("Error executing plan: Error sending backfill "
                                                "request to compactor: Failed to apply logs to the "
                                                "metadata segment")
        raise StoreError(f"the vector store could not be read ({failure}); retry in a moment.") from failure


def test_a_new_generation_that_cannot_be_read_leaves_the_open_one_serving(tmp_path):
    settings = settings_for(tmp_path, reload_seconds=0.05)
    ingest_files(settings, SEED)

    def opener(settings: Settings, old):  # type: ignore[no-untyped-def]
        library = open_library(settings, embedder=old.library.embedder, pinned=True, fresh=True)
        library.vectors = Unreadable(library.vectors)
        return build_engine(settings, library=library)

    with service(settings) as client:
        first = client.app.state.live.current()
        client.app.state.live = LiveEngine(settings, first, opener=opener)
        ingest_files(settings, new_file(tmp_path))
        for _ in range(5):
            reply = client.post("/api/ask", json={"question": SEED_QUESTION})
            assert reply.status_code == 200, reply.text  # from generation 1, not 503
        ready = client.get("/readyz")
        assert ready.status_code == 503 and ready.json()["code"] == "index_not_current"
        assert "metadata segment" in ready.json()["message"]
        assert (ready.json()["generation"], ready.json()["newest_generation"]) == (1, 2)
        client.app.state.live.stop()
