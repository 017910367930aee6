"""Embedded Chroma keeps one system per data directory for the life of the process, and a fresh
reopen (after an ingest) sets the old one aside: ``stop_embedded`` closes both, so a process that
opens many indexes (the test suite) does not run out of file descriptors."""

from __future__ import annotations

import gc
import os

from rag.index.chroma import RETIRED, chroma_client, stop_embedded
from rag.settings import Settings


def open_files(folder) -> int:  # type: ignore[no-untyped-def]
    targets = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            targets.append(os.readlink(f"/proc/self/fd/{fd}"))
        except OSError:
            continue
    return sum(str(folder) in t for t in targets)


def test_a_fresh_reopen_sets_the_old_system_aside_and_stop_embedded_closes_every_file(tmp_path):
    settings = Settings(data_dir=tmp_path / "index")
    first = chroma_client(settings)
    first.get_or_create_collection("abstracts").add(ids=["a"], embeddings=[[0.1, 0.2]])
    second = chroma_client(settings, fresh=True)
    second.get_collection("abstracts").count()
    assert len(RETIRED) >= 1, "the replaced system is remembered (weakly) so it can be stopped"
    assert open_files(tmp_path) > 0
    assert stop_embedded() >= 2 and len(RETIRED) == 0
    del first, second  # what is left open belongs to the clients; once they go, nothing is
    gc.collect()
    assert open_files(tmp_path) == 0
