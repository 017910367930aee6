"""Shared by the benchmark scripts: an index of the bundled corpus to measure against, and of a
small library of papers written by the benchmark itself."""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from rag.index.library import open_library
from rag.ingest.pipeline import ingest
from rag.settings import Settings


@contextmanager
def indexed_settings(data_dir: Path | None) -> Iterator[Settings]:
    """Settings pointing at ``data_dir`` as it is, or at a fresh index of the bundled corpus
    built in a temporary folder (removed afterwards) when no folder is given."""
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(data_dir=data_dir or Path(tmp) / "index")
        if data_dir is None:
            lib = open_library(settings)
            try:
                ingest(lib, [settings.corpus_dir])
            finally:
                lib.close()
        yield settings


def index_rows(folder: Path, rows: list[dict], name: str = "papers") -> Settings:
    """``rows`` (paper records: id, title, abstract, ...) written to ``folder`` as JSONL and
    indexed into ``folder``/index; the settings that point at it."""
    source = folder / f"{name}.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    settings = Settings(data_dir=folder / "index")
    lib = open_library(settings)
    try:
        ingest(lib, [source])
    finally:
        lib.close()
    return settings


def reader_examples(settings: Settings) -> list:  # type: ignore[type-arg]
    """Dev's and the generated questions (never test's), retrieved and featurised as `rag
    train-reader` collects them (eval.train_reader.Example), with a reader that has no weights."""
    from eval.dataset import SPLITS, load, refuse_test
    from eval.train_reader import GENERATED, collect, source_of
    from rag.answer.features import FEATURES
    from rag.answer.model import ReaderModel
    from rag.answer.reader import EVIDENCE
    from rag.engine import build_engine

    loaded = [(q, source_of(p)) for p in (SPLITS["dev"], GENERATED) for q in load(p) if q.type != "metadata"]
    refuse_test([q for q, _ in loaded], "measured on")
    engine = build_engine(settings, reader_model=ReaderModel.blank(FEATURES, EVIDENCE))
    try:
        return collect(engine, [q for q, _ in loaded], lambda: None, [s for _, s in loaded])
    finally:
        engine.close()


def answer_in_turn(engines: dict[str, object], questions: Sequence[str],
                   shown: Callable[[str], str] = lambda text: text) -> tuple[dict[str, list[float]], int]:
    """Two engines answer each question in turn, in process, alternating which goes first, so
    machine load falls on both alike: ms per answer by engine, and how many answers differ
    (compared as ``shown`` gives them)."""
    from rag.engine import answer

    (first, a), (second, b) = engines.items()
    answer(a, questions[0]), answer(b, questions[0])  # type: ignore[arg-type]  # warm both
    times: dict[str, list[float]] = {first: [], second: []}
    differ = 0
    for i, q in enumerate(questions):
        texts = {}
        for name, engine in list(engines.items())[:: 1 if i % 2 else -1]:
            started = time.perf_counter()
            texts[name] = shown(answer(engine, q).text)  # type: ignore[arg-type]
            times[name].append((time.perf_counter() - started) * 1000)
        differ += texts[first] != texts[second]
    return times, differ


def print_latency(times: dict[str, list[float]], ratio: str) -> None:
    """p50 and p95 of each engine, and the second's over the first's."""
    from eval.metrics import percentile

    for name, values in times.items():
        print(f"{name:<20} p50 {percentile(values, 50):6.0f} ms   p95 {percentile(values, 95):6.0f} ms")
    base, new = times.values()
    print(f"ratio ({ratio})  p50 {percentile(new, 50) / percentile(base, 50):.2f}   "
          f"p95 {percentile(new, 95) / percentile(base, 95):.2f}")
