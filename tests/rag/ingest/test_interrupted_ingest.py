"""A real `rag ingest` process stopped half-way (Ctrl-C or kill -9) loses nothing: the next
run completes the index, with nothing duplicated."""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rag.index.chunking import Chunker
from rag.ingest.formats import read_file
from rag.settings import BUNDLED_CORPUS, ChunkingSettings

SEED = BUNDLED_CORPUS / "004_9b1d7e173cb8e0b1.txt"


def papers_saved(data_dir: Path) -> int:
    try:
        with sqlite3.connect(data_dir / "papers.sqlite", timeout=1) as db:
            return int(db.execute("SELECT count(*) FROM papers").fetchone()[0])
    except sqlite3.Error:
        return 0


def expected_chunk_ids() -> set[str]:
    chunker = Chunker(ChunkingSettings())
    return {c.id for p in read_file(SEED) for c in chunker.chunks(p)}


def stored_chunk_ids(data_dir: Path) -> list[str]:
    import chromadb

    client = chromadb.PersistentClient(path=str(data_dir / "chroma"),
                                       settings=chromadb.Settings(anonymized_telemetry=False))
    return client.get_collection("abstracts").get(include=[])["ids"]


@pytest.mark.integration
@pytest.mark.parametrize("how", [signal.SIGINT, signal.SIGKILL], ids=["ctrl-c", "kill-9"])
def test_a_stopped_ingest_is_completed_by_the_next_run(tmp_path, how):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    shutil.copy(SEED, corpus / SEED.name)
    data_dir = tmp_path / "idx"
    env = {**os.environ, "RAG_DATA_DIR": str(data_dir)}
    command = [sys.executable, "-m", "cli", "ingest", str(corpus)]
    # A shell without job control starts background jobs with SIGINT ignored, and children
    # inherit that; give the child the default disposition, as a terminal would.
    proc = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 120
    while papers_saved(data_dir) == 0 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.2)
    proc.send_signal(how)
    _, err = proc.communicate(timeout=60)
    partial = papers_saved(data_dir)
    assert 0 < partial < 252, f"the stop must land half-way (rc={proc.returncode}, {err[-300:]})"
    if how == signal.SIGINT:
        assert proc.returncode == 130
        assert "interrupted" in err and "Traceback" not in err

    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert papers_saved(data_dir) == 252
    ids = stored_chunk_ids(data_dir)
    assert len(ids) == len(set(ids)), "no chunk stored twice"
    assert set(ids) == expected_chunk_ids(), "nothing lost"
    again = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    assert "252 unchanged" in again.stdout and "0 chunks embedded" in again.stdout
