"""Answer latency with the cross-encoder reordering the reader's best sentences, beside the fitted
reader alone, in the same run: the two engines answer each dev question in turn (alternating
which goes first), in process and offline, so machine load falls on both alike.

    .venv/bin/python benchmarks/rerank_latency.py [--data-dir DIR] [--limit N] [--threads 2]

Prints p50 and p95 of each, their ratio, how many answers' first sentence changed, and the
cross-encoder's k and weight (from its manifest)."""

from __future__ import annotations

import argparse
from pathlib import Path

from common import answer_in_turn, indexed_settings, print_latency

from eval.dataset import SPLITS, load
from rag.engine import build_engine, with_reader


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", type=Path)
    parser.add_argument("--limit", type=int, default=368)
    args = parser.parse_args()
    with indexed_settings(args.data_dir) as settings:
        on = build_engine(settings)
        off = with_reader(on, on.reader.model, settings.answer.model_copy(update={"cross_encoder": False}))
        reranker = on.reader.reranker
        print(f"cross-encoder: {'k ' + str(reranker.k) + ', weight ' + str(reranker.weight) if reranker else 'none'}")
        questions = [q.question for q in load(SPLITS["dev"])][: args.limit]
        times, changed = answer_in_turn({"reader alone": off, "with cross-encoder": on}, questions,
                                        lambda text: text.split("\n")[0])
        on.close()
    print_latency(times, "with / alone")
    print(f"first line changed    {changed} of {len(questions)} answers")


if __name__ == "__main__":
    main()
