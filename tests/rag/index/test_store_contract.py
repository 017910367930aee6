"""The vector store contract, passed by embedded Chroma and by a real `chroma run` server alike:
upsert, idempotent re-upsert, delete, metadata filters, nearest-neighbour query, vectors by id
and by text, the server version check, and the swap of collections after a rebuild."""

from __future__ import annotations

import numpy as np
import pytest

from rag.errors import StoreError
from rag.index.chroma import check_server_version, chroma_client, collection_names
from rag.index.filters import VectorFilter
from rag.index.library import open_library
from rag.index.stamp import read_stamp
from rag.index.vectors import ChromaIndex
from rag.ingest.papers import make_paper
from rag.ingest.pipeline import ingest
from rag.ingest.rebuild import rebuild
from rag.settings import BUNDLED_CORPUS, Settings, StoreSettings
from rag.testing.chroma_server import chroma_server
from rag.testing.fakes import FakeEmbedder
from rag.types import Chunk

pytestmark = pytest.mark.integration
SEED = BUNDLED_CORPUS / "002_c30d0852975d4dec.txt"


@pytest.fixture(scope="module")
def server_port(tmp_path_factory):
    with chroma_server(tmp_path_factory.mktemp("chroma-server")) as port:
        yield port


@pytest.fixture(params=["embedded", "server"])
def settings(request, tmp_path, server_port):
    store = StoreSettings(mode=request.param, port=server_port)
    # one server for the module: each test gets its own collection name
    return Settings(data_dir=tmp_path / "index", store=store, collection=f"c-{tmp_path.name[-20:]}")


def papers():
    return {f"p{i}": make_paper(f"p{i}", f"Abstract number {i}.", year=2015 + i,
                                venue=("ACL" if i % 2 else "NeurIPS"), source="s.jsonl")
            for i in range(6)}


def chunks_and_vectors():
    chunks = [Chunk(f"p{i}#0", f"p{i}", 0, f"Abstract number {i}.", f"h{i}") for i in range(6)]
    vectors = np.eye(8, dtype=np.float32)[:6]
    return chunks, vectors


@pytest.fixture
def index(settings):
    return ChromaIndex(chroma_client(settings), settings.collection, "fake", "chunker")


def filled(index):
    chunks, vectors = chunks_and_vectors()
    index.upsert(chunks, vectors, papers())
    return vectors


def test_upsert_then_query_finds_the_nearest_chunk(index):
    vectors = filled(index)
    hits = index.query(vectors[3], 2)
    assert hits[0].chunk.id == "p3#0" and hits[0].score == pytest.approx(1.0, abs=1e-5)
    assert index.count() == 6


def test_re_upserting_the_same_chunks_changes_nothing(index):
    filled(index)
    filled(index)
    assert index.count() == 6


def test_deleted_chunks_are_gone(index):
    filled(index)
    index.delete(["p0#0", "p1#0"])
    assert index.count() == 4 and index.chunk_ids(["p0", "p1", "p2"]) == {"p2#0"}


def test_filters_narrow_the_query(index):
    vectors = filled(index)
    years = index.query(vectors[0], 6, VectorFilter(year_from=2017, year_to=2018))
    assert {h.chunk.paper_id for h in years} == {"p2", "p3"}
    acl = index.query(vectors[0], 6, VectorFilter(venues=("ACL",), year_from=2018))
    assert {h.chunk.paper_id for h in acl} == {"p3", "p5"}
    some = index.query(vectors[0], 6, VectorFilter(paper_ids=("p1", "p4")))
    assert {h.chunk.paper_id for h in some} == {"p1", "p4"}
    assert index.query(vectors[0], 6, VectorFilter(paper_ids=())) == []


def test_vectors_come_back_by_chunk_id_and_by_text(index):
    vectors = filled(index)
    by_id = index.vectors_by_id(["p2#0", "nope#0"])
    assert set(by_id) == {"p2#0"} and np.allclose(by_id["p2#0"], vectors[2])
    assert set(index.vectors_for(["h1", "h9"])) == {"h1"}
    assert index.missing(["p1#0", "p9#0"]) == {"p9#0"}


def test_a_server_of_another_major_version_is_refused():
    check_server_version("1.0.0", "1.5.9")
    with pytest.raises(StoreError, match="run a 1.x server"):
        check_server_version("0.6.3", "1.5.9")


def test_an_unreachable_server_is_a_clear_error(tmp_path):
    from rag.testing.live import free_port
    settings = Settings(data_dir=tmp_path, store=StoreSettings(mode="server", port=free_port()))
    with pytest.raises(StoreError, match="cannot reach the Chroma server"):
        chroma_client(settings)


def test_a_rebuild_swaps_in_a_new_collection_and_drops_the_one_before_last(settings):
    lib = open_library(settings, embedder=FakeEmbedder())
    ingest(lib, [SEED])
    lib.close()
    first = read_stamp(settings).collection
    rebuild(settings, [SEED], embedder=FakeEmbedder())
    second = read_stamp(settings)
    assert second.collection != first and second.chunks > 0
    rebuild(settings, [SEED], embedder=FakeEmbedder())
    names = collection_names(chroma_client(settings))
    assert first not in names and second.collection in names and read_stamp(settings).collection in names
    reopened = open_library(settings, embedder=FakeEmbedder())
    try:
        assert reopened.vectors.count() == reopened.catalog.chunk_count() == read_stamp(settings).chunks
    finally:
        reopened.close()
