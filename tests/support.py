"""Helpers shared by the tests and the benchmarks: a free loopback port, the bundled files and
question the small fake-embedder libraries are built from (``conftest.library``), and an
invented corpus for tests that pin what retrieval and answering find."""

from __future__ import annotations

import json
from pathlib import Path

from rag.settings import BUNDLED_CORPUS
from rag.types import Paper, ScoredPaper

SUPREMIX_FILE = BUNDLED_CORPUS / "000_571e57f18ef84a00.txt"  # holds 000-0001, SupReMix
MLLM_DATA_FILE = BUNDLED_CORPUS / "002_c30d0852975d4dec.txt"
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "formats"  # one library per format
QUESTION = "What does SupReMix use as hard negatives?"  # answered by 000-0001



def scored_paper(pid: str, text: str, method: str | None = None, score: float = 1.0,
                 similarity: float = 0.6) -> ScoredPaper:
    """A retrieved paper whose abstract is ``text``, for tests that read sentences without an index."""
    return ScoredPaper(Paper(pid, text, text, method=method), score, similarity=similarity)


# Methods, people and facts no eval question asks about: Mirela Okonkwo wrote three papers,
# GlimmerMix (inv-1) is the one method with a name.
INVENTED_PAPERS = [
    {"id": "inv-1", "authors": ["Mirela Okonkwo", "Tadeo Varga"], "year": 2024,
     "abstract": "We present GlimmerMix, a contrastive learning method for sonar image regression. "
                 "GlimmerMix uses blends of the anchor with a distinct negative sample as hard "
                 "negatives, and takes nearby labels mixed together as hard positive pairs. It lowers "
                 "the mean error on three harbour survey datasets."},
    {"id": "inv-2", "authors": ["Mirela Okonkwo"], "year": 2023,
     "abstract": "We build a lightweight detector that counts zebrafish in aquaculture tanks from "
                 "overhead video, reaching 91% accuracy on a new benchmark of 40 tanks."},
    {"id": "inv-3", "authors": ["Ana Brightwater", "Mirela Okonkwo"], "year": 2025,
     "abstract": "We study how lake ice thickness can be estimated from satellite radar with a small "
                 "convolutional network trained on three winters of field measurements."},
    {"id": "inv-4", "authors": ["Ana Brightwater"], "year": 2022,
     "abstract": "We propose a pruning schedule that compresses speech transformers by half while "
                 "keeping word error rate within one point on two public corpora."},
    {"id": "inv-5", "authors": ["Tadeo Varga"], "year": 2024,
     "abstract": "We introduce a benchmark of tide gauge records for forecasting coastal flooding and "
                 "compare recurrent and attention models on it."},
]


def write_papers(path: Path, rows: list[dict] = INVENTED_PAPERS) -> Path:
    """``rows`` as a JSON Lines file at ``path``, ready to ingest."""
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def index_papers(settings, folder: Path, rows: list[dict], name: str = "papers"):  # type: ignore[no-untyped-def]
    """``rows`` written to ``folder`` and indexed into ``settings`` with the real offline embedder."""
    from rag.index.library import open_library
    from rag.ingest.pipeline import ingest

    library = open_library(settings)
    try:
        ingest(library, [write_papers(folder / f"{name}.jsonl", rows)])
    finally:
        library.close()
    return settings


def ingest_with_fake_embedder(settings, *paths: Path):  # type: ignore[no-untyped-def]
    """Ingest ``paths`` with the fake embedder; the report and the ids the catalogue then holds."""
    from rag.index.library import open_library
    from rag.ingest.pipeline import ingest
    from rag.testing.fakes import FakeEmbedder

    lib = open_library(settings, embedder=FakeEmbedder())
    try:
        return ingest(lib, list(paths)), {p.id for p in lib.catalog.papers()}
    finally:
        lib.close()


def pinned_service(settings):  # type: ignore[no-untyped-def]
    """The HTTP app over a pinned fake-embedder library (it follows the stamp as `rag serve` does)."""
    from fastapi.testclient import TestClient

    from rag.engine import build_engine
    from rag.index.library import open_library
    from rag.testing.fakes import FakeEmbedder
    from service.app import create_app

    library = open_library(settings, embedder=FakeEmbedder(), pinned=True)
    return TestClient(create_app(settings, engine=build_engine(settings, library=library)))


def cited(client, question: str) -> list[str]:  # type: ignore[no-untyped-def]
    """The paper ids an /api/ask answer cites."""
    reply = client.post("/api/ask", json={"question": question})
    assert reply.status_code == 200, reply.text
    return [c["paper_id"] for c in reply.json()["citations"]]


# Three named methods that shrink one invented kind of archive, each by its own figure, and two
# papers on other things: a list question finds the three, in an order the test reads back.
FOLLOWUP_PAPERS = [
    {"id": "arc-1", "authors": ["Ilse Marangoni", "Teo Abara"], "year": 2023, "venue": "Harbour Data",
     "title": "TideZip: dictionary coding for sonar archives",
     "abstract": "We present TideZip, a dictionary coder for sonar archive storage. TideZip reduces "
                 "sonar archive storage by 41% on four survey fleets by sharing dictionaries across "
                 "neighbouring pings."},
    {"id": "arc-2", "authors": ["Rosa Quillfeather"], "year": 2024, "venue": "Harbour Data",
     "title": "ReefPack: learned quantization of sonar archives",
     "abstract": "We introduce ReefPack, which quantizes sonar archive storage with a learned "
                 "codebook. ReefPack reduces sonar archive storage by 63% while keeping seabed "
                 "classification accuracy within one point. It streams at 900 pings per second on "
                 "one core."},
    {"id": "arc-3", "authors": ["Bao Ferreira-Lind", "Ilse Marangoni"], "year": 2025,
     "title": "KelpCodec: pruning silent returns in sonar archives",
     "abstract": "We propose KelpCodec, which drops silent returns before encoding. KelpCodec reduces "
                 "sonar archive storage by 28% on coastal surveys and halves decoding time."},
    {"id": "arc-4", "authors": ["Mina Oduya"], "year": 2022,
     "abstract": "We measure how ferry wakes erode salt marsh edges using drone photogrammetry over "
                 "two summers."},
    {"id": "arc-5", "authors": ["Jonas Ekwueme"], "year": 2021,
     "abstract": "We describe a field protocol for tagging eels in estuaries and report survival "
                 "rates after one year."},
]
FOLLOWUP_LIST_QUESTION = "Which methods reduce sonar archive storage, and by how much?"
