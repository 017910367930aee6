"""Ingest benchmark: how much of a cold ingest is the embedding itself, and how fast a no-op
re-ingest is, on the bundled corpus (``Settings().corpus_dir``) with the real default embedder.

It measures, in one run and into a fresh temporary data dir:
  1. model load: ``build_embedder(settings.embedding)`` (built once, reused below);
  2. pure embedding: parse + chunk every paper and split its abstract into the sentences stored
     for the reader (deduplicated texts, not timed), then time ``embed_batched`` alone after an
     untimed 8-text warm-up (median of ``--repeat N`` runs);
  3. cold ingest: ``open_library`` + ``ingest`` into the empty data dir, end to end;
  4. warm re-ingest: the same again on the same data dir (nothing changed: should embed nothing).
Goals: cold / embedding <= 1.2x, warm < 5 s. It prints figures; it asserts nothing.

Run from the project root:  .venv/bin/python benchmarks/ingest.py [--repeat N]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import tempfile
import time
from pathlib import Path

from rag.index.chunking import Chunker
from rag.index.embedding import build_embedder, embed_batched
from rag.index.library import open_library
from rag.ingest.formats import Problem, input_files, read_file
from rag.ingest.pipeline import ingest
from rag.settings import Settings
from rag.text.injection import evidence_sentences, scrubbed

COLD_GOAL = 1.2  # cold ingest may take at most this multiple of the pure embedding time
WARM_GOAL = 5.0  # seconds for a re-ingest where nothing changed


def embedded_texts(settings: Settings) -> tuple[int, list[str], list[str]]:
    """(papers with text, unique chunk texts, unique sentences) of the corpus, as ingest would
    chunk them and store their sentences for the reader."""
    chunker = Chunker(settings.chunking)
    papers, texts, sentences = 0, {}, {}
    for path in input_files(settings.corpus_dir):
        for item in read_file(path):
            if isinstance(item, Problem) or not item.text:
                continue
            papers += 1
            texts.update((c.text, None) for c in chunker.chunks(item))
            if settings.ingest.sentence_vectors:
                sentences.update((s, None) for s in evidence_sentences(scrubbed(item)))
    return papers, list(texts), list(sentences)


def timed_ingest(settings: Settings, embedder) -> tuple[float, object]:  # type: ignore[no-untyped-def]
    started = time.perf_counter()
    lib = open_library(settings, embedder=embedder)
    try:
        report = ingest(lib, [settings.corpus_dir])
    finally:
        lib.close()
    return time.perf_counter() - started, report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=1, help="embedding timings (median taken)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="rag-bench-") as tmp:
        settings = Settings(data_dir=Path(tmp) / "data")
        print(f"machine: {platform.platform()}, python {platform.python_version()}, "
              f"{os.cpu_count()} CPUs ({platform.processor() or platform.machine()}), "
              f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} "
              "(other work on the machine skews the figures)")
        print(f"corpus: {settings.corpus_dir}")

        started = time.perf_counter()
        embedder = build_embedder(settings.embedding)
        load = time.perf_counter() - started
        print(f"model load: {load:.2f} s ({embedder.name})")

        papers, texts, sentences = embedded_texts(settings)
        embed_batched(embedder, texts[:8], settings.embedding.batch_size)  # warm-up, untimed
        runs = []
        for _ in range(max(1, args.repeat)):
            started = time.perf_counter()
            embed_batched(embedder, texts + sentences, settings.embedding.batch_size)
            runs.append(time.perf_counter() - started)
        embed_s = statistics.median(runs)
        print(f"pure embedding: {papers} papers, {len(texts)} unique chunks and {len(sentences)} "
              "sentences, runs " + ", ".join(f"{r:.2f}" for r in runs) + " s")

        cold_s, cold = timed_ingest(settings, embedder)
        warm_s, warm = timed_ingest(settings, embedder)

    ratio = cold_s / embed_s if embed_s else float("inf")
    rows = [
        ("chunks embedded (pure / cold / warm)",
         f"{len(texts)} / {cold.chunks_embedded} / {warm.chunks_embedded}", ""),
        ("sentences embedded (pure / cold / warm)",
         f"{len(sentences)} / {cold.sentences_embedded} / {warm.sentences_embedded}", ""),
        ("embedding seconds (median)", f"{embed_s:.2f}", ""),
        ("embedding texts/s", f"{(len(texts) + len(sentences)) / embed_s:.1f}" if embed_s else "-", ""),
        ("cold ingest seconds", f"{cold_s:.2f}", ""),
        ("cold / embedding", f"{ratio:.2f}x",
         f"goal <= {COLD_GOAL}x: {'met' if ratio <= COLD_GOAL else 'NOT met'}"),
        ("warm re-ingest seconds", f"{warm_s:.2f}",
         f"goal < {WARM_GOAL:.0f} s: {'met' if warm_s < WARM_GOAL else 'NOT met'}"),
        ("warm chunks embedded", str(warm.chunks_embedded),
         "expected 0" if warm.chunks_embedded == 0 else "expected 0: NOT met"),
    ]
    width = max(len(name) for name, _, _ in rows)
    print()
    for name, value, goal in rows:
        print(f"{name:<{width}}  {value:>16}  {goal}")


if __name__ == "__main__":
    main()
