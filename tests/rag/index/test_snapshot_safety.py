"""Several machines on one shared snapshot folder and a real `chroma run` (robustness issue 19.3,
19.9, 19.12): a shared stamp that names a path is refused and nothing is opened or written
through it; a snapshot that does not match its checksum is not taken; two machines ingesting at
once never lose a paper (one writer at a time, by a lease in the shared folder); and a follower
with no traffic takes a new generation within seconds, reporting it in /readyz."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from rag.engine import build_engine
from rag.errors import StoreError
from rag.index.chroma import chroma_client
from rag.index.library import open_library
from rag.index.snapshots import shared_stamp
from rag.index.stamp import read_stamp
from rag.ingest.pipeline import ingest
from rag.live import LiveEngine
from rag.settings import PROJECT_ROOT, Settings, StoreSettings
from rag.testing.chroma_server import chroma_server
from rag.testing.fakes import FakeEmbedder
from service.app import create_app

pytestmark = pytest.mark.integration


def paper(pid: str, method: str, subject: str) -> dict:
    return {"id": pid, "authors": "Ada Quillfeather", "year": 2024,
            "abstract": f"We propose {method}, a method for {subject}. {method} separates the "
                        f"signals of {subject} recorded by drifting sensors."}


FIRST = paper("p-1", "Zanthorix", "chemical patents")
LATER = paper("p-2", "Quellbrook", "whale song")
FROM_A = paper("p-a", "Morvellan", "glacier melt")
FROM_B = paper("p-b", "Tressivane", "bee colonies")


@pytest.fixture(scope="module")
def port(tmp_path_factory):
    with chroma_server(tmp_path_factory.mktemp("chroma")) as port:
        yield port


def machine(tmp_path: Path, name: str, port: int, reload_seconds: float = 0.01) -> Settings:
    store = StoreSettings(mode="server", port=port, reload_seconds=reload_seconds,
                          snapshot_dir=tmp_path / "shared")
    return Settings(data_dir=tmp_path / name, store=store, collection=f"safe-{tmp_path.name[-12:]}")


def write(tmp_path: Path, name: str, *rows: dict) -> Path:
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def run_ingest(settings: Settings, path: Path, embedder: FakeEmbedder | None = None) -> None:
    lib = open_library(settings, embedder=embedder or FakeEmbedder())
    try:
        ingest(lib, [path])
    finally:
        lib.close()


def reader_engine(settings: Settings):  # type: ignore[no-untyped-def]
    return build_engine(settings, library=open_library(settings, embedder=FakeEmbedder(), pinned=True))


def published_ids(settings: Settings) -> set[str]:
    stamp = shared_stamp(settings)
    assert stamp is not None
    with sqlite3.connect(settings.store.snapshot_dir / f"papers-g{stamp.generation}.sqlite") as db:
        return {r[0] for r in db.execute("SELECT id FROM papers")}


def test_a_shared_stamp_naming_a_path_is_refused_and_nothing_is_written_through_it(tmp_path, port):
    writer, reader = machine(tmp_path, "writer", port), machine(tmp_path, "reader", port)
    run_ingest(writer, write(tmp_path, "one.jsonl", FIRST))
    live = LiveEngine(reader, reader_engine(reader))
    shared = tmp_path / "shared"
    shutil.copy(shared / "papers-g1.sqlite", shared / "papers-g9.sqlite")
    hostile = {"generation": 9, "collection": writer.collection, "catalog": "../shared/papers-g9.sqlite",
               "papers": 1, "chunks": 2}
    (shared / "index.json").write_text(json.dumps(hostile))
    before = {p.name: p.stat().st_mtime_ns for p in shared.iterdir() if p.name != "writer.lease"}

    engine = live.refresh()
    assert engine.library.catalog.path.resolve().parent == reader.data_dir.resolve()
    assert engine.library.stamp.generation == 1 and "catalogue" in (live.problem or "")
    assert {p.name: p.stat().st_mtime_ns for p in shared.iterdir()} == before, "nothing written there"

    run_ingest(writer, write(tmp_path, "two.jsonl", FIRST, LATER))  # the ingester publishes over it
    assert read_stamp(writer).catalog == "papers.sqlite" and shared_stamp(writer).generation == 2
    assert live.refresh().library.stamp.generation == 2 and live.problem is None
    live.stop()


def test_a_published_snapshot_that_does_not_match_its_checksum_is_not_taken(tmp_path, port):
    writer, reader = machine(tmp_path, "writer", port), machine(tmp_path, "reader", port)
    run_ingest(writer, write(tmp_path, "one.jsonl", FIRST))
    engine = reader_engine(reader)
    run_ingest(writer, write(tmp_path, "two.jsonl", FIRST, LATER))
    altered = sqlite3.connect(tmp_path / "shared" / "papers-g2.sqlite")  # altered after publishing
    altered.execute("PRAGMA journal_mode = DELETE")
    with altered:
        altered.execute("DELETE FROM papers WHERE id = 'p-2'")
    altered.close()
    live = LiveEngine(reader, engine)
    assert live.refresh().library.stamp.generation == 1
    assert "checksum" in (live.problem or "") and read_stamp(reader).generation == 1
    live.stop()


class SlowEmbedder(FakeEmbedder):
    def embed(self, texts):  # type: ignore[no-untyped-def]
        time.sleep(0.4)
        return super().embed(texts)


MACHINE = """
import sys, time
from pathlib import Path
from rag.errors import StoreError
from tests.rag.index.test_snapshot_safety import SlowEmbedder, machine, run_ingest
tmp, name, port, path, start = sys.argv[1:6]
settings = machine(Path(tmp), name, int(port))
while time.time() < float(start):
    time.sleep(0.005)
try:
    run_ingest(settings, Path(path), SlowEmbedder())
    print("ok")
except StoreError as exc:
    print(exc)
"""


def test_two_machines_ingesting_at_once_never_lose_a_paper(tmp_path, port):
    a = machine(tmp_path, "a", port)
    run_ingest(a, write(tmp_path, "first.jsonl", FIRST))
    sources = {"a": write(tmp_path, "a.jsonl", FROM_A), "b": write(tmp_path, "b.jsonl", FROM_B)}
    start = time.time() + 4  # both start together, once their imports are done
    processes = {name: subprocess.Popen([sys.executable, "-c", MACHINE, str(tmp_path), name, str(port),
                                         str(path), str(start)], cwd=PROJECT_ROOT, text=True,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                 for name, path in sources.items()}
    results = {}
    for name, process in processes.items():
        out, err = process.communicate(timeout=180)
        assert process.returncode == 0, err[-2000:]
        results[name] = out.strip().splitlines()[-1]
    ok = {name for name, result in results.items() if result == "ok"}
    assert ok, results
    assert {"p-a" if name == "a" else "p-b" for name in ok} <= published_ids(a), results
    for name in set(results) - ok:
        assert "another machine is ingesting" in results[name]
        run_ingest(machine(tmp_path, name, port), sources[name])  # the refused one, run again afterwards
    assert {"p-1", "p-a", "p-b"} <= published_ids(a)
    collection = chroma_client(a).get_collection(read_stamp(a).collection)
    with sqlite3.connect(tmp_path / "shared" / f"papers-g{shared_stamp(a).generation}.sqlite") as db:
        assert collection.count() == db.execute("SELECT count(*) FROM chunks").fetchone()[0]


def test_a_follower_with_no_traffic_takes_a_new_generation_within_seconds(tmp_path, port):
    writer, reader = machine(tmp_path, "writer", port), machine(tmp_path, "reader", port, reload_seconds=0.2)
    run_ingest(writer, write(tmp_path, "one.jsonl", FIRST))
    with TestClient(create_app(reader, engine=reader_engine(reader))) as client:
        live = client.app.state.live
        run_ingest(writer, write(tmp_path, "two.jsonl", FIRST, LATER))
        deadline = time.monotonic() + 10
        while live.reopened == 0 and time.monotonic() < deadline:
            time.sleep(0.05)  # no request reaches the service meanwhile
        assert live.reopened == 1
        ready = client.get("/readyz").json()
        assert ready["generation"] == ready["newest_generation"] == 2


def test_a_lease_held_by_another_machine_is_refused_and_a_dead_ones_is_taken_over(tmp_path):
    from rag.index.lease import LEASE_FILE, TTL, acquire, release

    folder = tmp_path / "shared"
    folder.mkdir()
    held = {"owner": "other:1:x", "host": "ingest-2", "pid": 4242, "since": time.time()}
    (folder / LEASE_FILE).write_text(json.dumps(held))
    with pytest.raises(StoreError, match=r"another machine is ingesting.*ingest-2 \(pid 4242"):
        acquire(folder)
    old = time.time() - TTL - 60
    os.utime(folder / LEASE_FILE, (old, old))  # not renewed for longer than the TTL: it died
    lease = acquire(folder)
    assert lease.holder()["owner"] == lease.owner
    release(lease)
    assert not (folder / LEASE_FILE).exists()
