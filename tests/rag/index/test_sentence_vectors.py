"""The abstracts' sentence vectors are stored at ingest, so a question embeds only itself: every
sentence the reader will read is stored, exactly as the embedder gives it; the answer path
looks them up instead of embedding them; an edited abstract's old sentences go with it; an
older catalogue is filled by the next ingest; a stop keeps what was stored; and answers are the
same with or without the store."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from rag.engine import answer, build_engine
from rag.index.catalog import Catalog
from rag.index.embedding import build_embedder
from rag.index.library import open_library
from rag.index.sentence_vectors import StoredVectors, lookup, sentence_key
from rag.ingest.pipeline import ingest
from rag.settings import Settings
from rag.testing.fakes import FakeEmbedder
from rag.text.injection import evidence_sentences
from tests.support import INVENTED_PAPERS, index_papers, write_papers

QUESTION = "What does GlimmerMix use as hard negatives?"


class Counting:
    """The real embedder, counting the texts it is asked to embed."""

    def __init__(self, inner) -> None:  # type: ignore[no-untyped-def]
        self.inner, self.name, self.texts = inner, inner.name, []  # type: ignore[var-annotated]

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.texts += list(texts)
        return self.inner.embed(texts)


def _stored(catalog: Catalog) -> dict[str, set[str]]:
    """Paper id -> the keys of its stored sentences."""
    out: dict[str, set[str]] = {}
    for pid, key in catalog.db.execute("SELECT paper_id, key FROM sentence_vectors"):
        out.setdefault(pid, set()).add(key)
    return out


def test_every_sentence_the_reader_reads_is_stored_as_the_embedder_gives_it(settings: Settings, tmp_path: Path) -> None:
    index_papers(settings, tmp_path, INVENTED_PAPERS)
    lib = open_library(settings)
    try:
        papers = {p.id: p for p in lib.catalog.papers()}
        expected = {pid: {sentence_key(s) for s in evidence_sentences(p)} for pid, p in papers.items()}
        assert _stored(lib.catalog) == expected
        sentences = [s for p in papers.values() for s in evidence_sentences(p)]
        found = lookup(lib.catalog, [sentence_key(s) for s in sentences], lib.embedder.name)
        fresh = lib.embedder.embed(sentences)
        assert all(np.array_equal(found[sentence_key(s)], v) for s, v in zip(sentences, fresh, strict=True))
    finally:
        lib.close()


def test_a_question_embeds_itself_not_the_stored_sentences(settings: Settings, tmp_path: Path) -> None:
    index_papers(settings, tmp_path, INVENTED_PAPERS)
    counting = Counting(build_embedder(settings.embedding))
    engine = build_engine(settings, library=open_library(settings, embedder=counting))
    try:
        result = answer(engine, QUESTION)
        assert "inv-1" in {c.paper_id for c in result.citations}
        sentences = {s for p in engine.library.catalog.papers() for s in evidence_sentences(p)}
        assert QUESTION in counting.texts
        assert not sentences & set(counting.texts), "a stored sentence was embedded again"
    finally:
        engine.close()


def test_answers_are_the_same_with_and_without_the_store(settings: Settings, tmp_path: Path) -> None:
    index_papers(settings, tmp_path, INVENTED_PAPERS)
    plain = settings.model_copy(update={"data_dir": tmp_path / "plain"})
    plain = plain.model_copy(update={"ingest": plain.ingest.model_copy(update={"sentence_vectors": False})})
    index_papers(plain, tmp_path, INVENTED_PAPERS)
    questions = [QUESTION, "How accurate is the zebrafish counter?", "Who studied lake ice thickness?",
                 "What is the capital of Peru?"]
    stored, unstored = build_engine(settings), build_engine(plain)
    try:
        assert not _stored(unstored.library.catalog), "the setting turns the store off"
        for q in questions:
            assert answer(stored, q).text == answer(unstored, q).text, q
    finally:
        stored.close(), unstored.close()


def test_an_edited_abstract_takes_its_old_sentences_with_it(settings: Settings, tmp_path: Path) -> None:
    index_papers(settings, tmp_path, INVENTED_PAPERS)
    edited = [dict(INVENTED_PAPERS[0], abstract="We present GlimmerMix, a method for sonar image "
                   "regression that mixes anchors with negatives."), *INVENTED_PAPERS[1:]]
    index_papers(settings, tmp_path, edited)
    lib = open_library(settings)
    try:
        paper = lib.catalog.get("inv-1")
        assert paper is not None
        assert _stored(lib.catalog)["inv-1"] == {sentence_key(s) for s in evidence_sentences(paper)}
    finally:
        lib.close()


def test_an_older_catalogue_gets_its_vectors_at_the_next_ingest(settings: Settings, tmp_path: Path) -> None:
    source = write_papers(tmp_path / "papers.jsonl")
    lib = open_library(settings, embedder=FakeEmbedder())
    ingest(lib, [source])
    path = lib.catalog.path
    lib.close()
    with sqlite3.connect(path) as db:  # as version 6 left it
        db.execute("DROP TABLE sentence_vectors")
        db.execute("PRAGMA user_version = 6")
    lib = open_library(settings, embedder=FakeEmbedder())
    try:
        assert not _stored(lib.catalog)
        report = ingest(lib, [source])
        assert report.unchanged == len(INVENTED_PAPERS) and report.sentences_embedded > 0
        assert set(_stored(lib.catalog)) == {r["id"] for r in INVENTED_PAPERS}
        assert ingest(lib, [source]).sentences_embedded == 0, "nothing is embedded twice"
    finally:
        lib.close()


def test_a_stop_keeps_what_was_stored_and_the_next_ingest_finishes(settings: Settings, tmp_path: Path) -> None:
    rows = [{"id": f"p{i}", "abstract": f"Paper {i} studies topic {i} with method number {i}."}
            for i in range(40)]
    source = write_papers(tmp_path / "papers.jsonl", rows)
    lib = open_library(settings, embedder=FakeEmbedder())
    try:
        def stop() -> bool:  # Ctrl-C once the first papers' sentences are saved
            return bool(_stored(lib.catalog))

        report = ingest(lib, [source], batch_size=64, should_stop=stop)
        assert 0 < len(_stored(lib.catalog)) < 40 and report.sentences_left == 40 - len(_stored(lib.catalog))
        assert lib.catalog.count() == 40, "every paper is indexed; only vectors wait"
        assert ingest(lib, [source]).sentences_left == 0
        assert len(_stored(lib.catalog)) == 40
    finally:
        lib.close()


def test_a_closed_catalogue_costs_speed_not_an_answer(settings: Settings, tmp_path: Path) -> None:
    index_papers(settings, tmp_path, INVENTED_PAPERS)
    lib = open_library(settings)
    sentence = evidence_sentences(lib.catalog.get("inv-2"))[0]  # type: ignore[arg-type]
    stored = StoredVectors(lib.embedder, lib.catalog)
    before = stored.embed([sentence, "a question"])
    lib.close()
    after = stored.embed([sentence, "a question"])
    assert np.array_equal(before, after)
