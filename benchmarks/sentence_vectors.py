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
from pathlib import Path

from common import answer_in_turn, indexed_settings, print_latency

from eval.dataset import SPLITS, load
from rag.engine import build_engine
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
        times, differ = answer_in_turn({"per question": plain, "stored at ingest": stored}, questions)
        stored.close()
        plain.close()
    print_latency(times, "stored / per question")
    print(f"answers that differ  {differ} of {len(questions)} (expected 0)")


if __name__ == "__main__":
    main()
