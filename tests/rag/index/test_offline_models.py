"""The tokenizer and the embedder run from files the installed packages ship: no network."""

from __future__ import annotations

import socket

import numpy as np
import pytest

from rag.errors import EmbeddingError
from rag.index import embedding
from rag.index.chunking import Chunker, encoding, tiktoken_cache_dir
from rag.ingest.papers import make_paper
from rag.settings import ChunkingSettings, EmbeddingSettings


def test_network_is_really_blocked_in_tests():
    with pytest.raises(AssertionError, match="network access attempted"):
        socket.create_connection(("93.184.216.34", 80), timeout=1)


def test_tiktoken_loads_cl100k_from_the_files_llama_index_ships():
    assert any(tiktoken_cache_dir().iterdir())
    enc = encoding("cl100k_base")
    assert enc.decode(enc.encode("contrastive regression")) == "contrastive regression"


def test_chunks_respect_the_token_budget_and_keep_their_paper():
    sentence = "We propose a method that compresses the key value cache of long contexts. "
    paper = make_paper("p-1", sentence * 60)
    chunker = Chunker(ChunkingSettings(chunk_size=128, chunk_overlap=16))
    chunks = chunker.chunks(paper)
    enc = encoding("cl100k_base")
    assert len(chunks) > 3
    assert all(len(enc.encode(c.text)) <= 128 for c in chunks)
    assert all(c.paper_id == "p-1" and c.id == f"p-1#{c.index}" for c in chunks)
    assert [c.index for c in chunks] == list(range(len(chunks)))


def test_a_typical_abstract_is_one_chunk_and_metadata_only_records_have_none():
    chunker = Chunker(ChunkingSettings())
    assert len(chunker.chunks(make_paper("a", "A short abstract about graphs. " * 20))) == 1
    assert chunker.chunks(make_paper("b", "", authors=("A. Person",))) == []


def test_minilm_embeds_offline_with_unit_vectors_that_capture_meaning():
    model = embedding.MiniLMOnnxEmbedder(EmbeddingSettings())
    vectors = model.embed(["A man is eating food.", "A man is eating a piece of bread.",
                           "The girl is carrying a baby."])
    assert vectors.shape == (3, 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    # the reference fp32 model gives 0.755 for this pair (sentence-transformers' own example)
    assert vectors[0] @ vectors[1] == pytest.approx(0.755, abs=0.02)
    assert vectors[0] @ vectors[2] < 0.1


def test_a_model_file_that_does_not_match_the_pinned_hash_is_refused(monkeypatch):
    monkeypatch.setattr(embedding, "MINILM_SHA256", "0" * 64)
    with pytest.raises(EmbeddingError, match="sha256"):
        embedding.MiniLMOnnxEmbedder(EmbeddingSettings())


def test_an_unshipped_tiktoken_encoding_is_refused_with_the_shipped_names():
    with pytest.raises(Exception, match="cl100k_base"):
        encoding("p50k_base")


def test_the_answer_path_cache_embeds_each_text_once_and_returns_the_same_vectors():
    from rag.index.embedding import CachedEmbedder
    from rag.testing.fakes import FakeEmbedder

    inner = FakeEmbedder()
    cached = CachedEmbedder(inner, size=2)
    first = cached.embed(["a b", "c d", "a b"])
    again = cached.embed(["c d", "a b"])
    assert inner.texts_embedded == 2
    assert np.allclose(first[1], again[0]) and np.allclose(first[0], first[2])
    cached.embed(["e f"])  # evicts the least recently used
    assert len(cached._cache) == 2 and cached.name == inner.name
