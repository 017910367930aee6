"""`rag ingest --rebuild` says what it drops and asks first, and a stopped rebuild is resumed by
the next one instead of embedding everything again (robustness issue 19.10 and 19.14)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from cli.main import cli
from rag.index.chroma import chroma_client, collection_names
from rag.index.library import open_library
from rag.index.stamp import read_stamp
from rag.ingest.pipeline import ingest
from rag.ingest.rebuild import rebuild
from rag.settings import BUNDLED_CORPUS, Settings
from rag.testing.fakes import FakeEmbedder, InterruptingEmbedder

SEED = BUNDLED_CORPUS / "002_c30d0852975d4dec.txt"


TOPICS = ["river sediment surveys", "bird song dialects", "volcanic ash dispersion",
          "coral bleaching alerts", "subway crowd forecasting"]


def papers_file(path: Path, prefix: str, count: int) -> Path:
    """Papers on different topics (nothing a duplicate finder could merge)."""
    rows = [{"id": f"{prefix}-{i}", "authors": f"Author {prefix} {i}", "year": 2020 + i,
             "abstract": f"{TOPICS[(i + len(prefix)) % 5].capitalize()} are studied with the "
                         f"{prefix.title()}{i} method, which records {17 * i + 3} sites by hand."}
            for i in range(count)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def rag(data_dir: Path, *args: str):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(cli, list(args), env={"RAG_DATA_DIR": str(data_dir)}, catch_exceptions=False)


def ids_served(settings: Settings) -> set[str]:
    lib = open_library(settings, embedder=FakeEmbedder())
    try:
        assert lib.vectors.count() == lib.catalog.chunk_count(), "no stray or missing vectors"
        return {p.id for p in lib.catalog.papers()}
    finally:
        lib.close()


def test_a_rebuild_from_some_sources_says_what_it_drops_and_needs_yes(tmp_path):
    data_dir = tmp_path / "index"
    kept, other = papers_file(tmp_path / "kept.jsonl", "kept", 3), papers_file(tmp_path / "other.jsonl", "other", 2)
    assert rag(data_dir, "ingest", str(kept), str(other)).exit_code == 0
    before = read_stamp(Settings(data_dir=data_dir))

    refused = rag(data_dir, "ingest", "--rebuild", str(kept))
    assert refused.exit_code != 0
    assert "2 papers from 1 file not in this rebuild would be removed (other.jsonl)" in refused.output
    assert "--yes" in refused.output and "Traceback" not in refused.output
    assert read_stamp(Settings(data_dir=data_dir)) == before  # nothing touched

    done = rag(data_dir, "ingest", "--rebuild", str(kept), "--yes")
    assert done.exit_code == 0, done.output
    assert "2 removed" in done.output
    assert rag(data_dir, "ingest", "--rebuild", str(kept)).exit_code == 0  # nothing left to drop


def test_a_stopped_rebuild_is_resumed_not_embedded_again(tmp_path):
    settings = Settings(data_dir=tmp_path / "index")
    lib = open_library(settings, embedder=FakeEmbedder())
    try:
        ingest(lib, [SEED])
    finally:
        lib.close()
    live = read_stamp(settings)
    extra = papers_file(tmp_path / "extra.jsonl", "extra", 4)
    with pytest.raises(KeyboardInterrupt):  # Ctrl-C (or kill -9) half-way through the rebuild
        rebuild(settings, [extra, SEED], embedder=InterruptingEmbedder(after_calls=3), batch_size=4)
    assert read_stamp(settings) == live, "the live index is untouched"

    clean = FakeEmbedder()
    rebuild(Settings(data_dir=tmp_path / "clean"), [SEED], embedder=clean)
    embedder = FakeEmbedder()
    report = rebuild(settings, [SEED], embedder=embedder, drop_others=True)
    assert embedder.texts_embedded < clean.texts_embedded - 4, "what the stopped rebuild embedded is reused"
    assert report.chunks_reused > 0 and report.resumed
    assert ids_served(settings) == ids_served(Settings(data_dir=tmp_path / "clean"))
    stamp = read_stamp(settings)
    assert set(collection_names(chroma_client(settings))) == {live.collection, stamp.collection}
    assert sorted(p.name for p in settings.data_dir.glob("papers*.sqlite")) == sorted({live.catalog, stamp.catalog})
