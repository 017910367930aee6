"""Answer latency with the abstracts' sentence vectors stored at ingest, beside the same index
with none stored (each question embeds its candidate sentences, as before catalogue version 7),
in the same run: the two engines answer each dev question in turn (alternating which goes
first), in process and offline, so machine load falls on both alike. Each engine keeps its own
in-memory cache across questions, as a running service does.

    .venv/bin/python benchmarks/sentence_vectors.py [--data-dir DIR] [--limit N]

Prints p50 and p95 of each, their ratio, and how many answers differ (expected: none; a stored
vector is the one the embedder returns)."""

from __future__ import annotations

import argparse
import shutil
import sqlite3
import tempfile
import time
from pathlib import Path

from common import indexed_settings

from eval.dataset import SPLITS, load
from eval.metrics import percentile
from rag.engine import answer, build_engine
from rag.index.stamp import inside, read_stamp
from rag.settings import Settings


def without_stored(settings: Settings, folder: Path) -> Settings:
    """A copy of the index in ``folder`` with its stored sentence vectors deleted."""
    shutil.copytree(settings.data_dir, folder / "index")
    copy = settings.model_copy(update={"data_dir": folder / "index"})
    with sqlite3.connect(inside(copy.data_dir, read_stamp(copy).catalog)) as db:
        db.execute("DELETE FROM sentence_vectors")
    return copy


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", type=Path)
    parser.add_argument("--limit", type=int, default=368)
    args = parser.parse_args()
    with indexed_settings(args.data_dir) as settings, tempfile.TemporaryDirectory() as tmp:
        stored = build_engine(settings)
        plain = build_engine(without_stored(settings, Path(tmp)))
        questions = [q.question for q in load(SPLITS["dev"])][: args.limit]
        answer(stored, "warm up"), answer(plain, "warm up")
        times: dict[str, list[float]] = {"per question": [], "stored at ingest": []}
        differ = 0
        for i, q in enumerate(questions):
            order = [("per question", plain), ("stored at ingest", stored)]
            texts = {}
            for name, engine in order if i % 2 else order[::-1]:
                started = time.perf_counter()
                texts[name] = answer(engine, q).text
                times[name].append((time.perf_counter() - started) * 1000)
            differ += texts["per question"] != texts["stored at ingest"]
        stored.close(), plain.close()
    for name, values in times.items():
        print(f"{name:<18} p50 {percentile(values, 50):6.0f} ms   p95 {percentile(values, 95):6.0f} ms")
    base, new = times["per question"], times["stored at ingest"]
    print(f"ratio (stored / per question)  p50 {percentile(new, 50) / percentile(base, 50):.2f}   "
          f"p95 {percentile(new, 95) / percentile(base, 95):.2f}")
    print(f"answers that differ  {differ} of {len(questions)} (expected 0)")


if __name__ == "__main__":
    main()
