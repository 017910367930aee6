"""Answer latency with the cross-encoder reordering the reader's best sentences, beside the fitted
reader alone, in the same run: the two engines answer each dev question in turn (alternating
which goes first), in process and offline, so machine load falls on both alike.

    .venv/bin/python benchmarks/rerank_latency.py [--data-dir DIR] [--limit N] [--threads 2]

Prints p50 and p95 of each, their ratio, how many answers' first sentence changed, and the
cross-encoder's k and weight (from its manifest)."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from common import indexed_settings

from eval.dataset import SPLITS, load
from eval.metrics import percentile
from rag.engine import answer, build_engine, with_reader


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
        answer(on, questions[0]), answer(off, questions[0])  # warm both
        times: dict[str, list[float]] = {"reader alone": [], "with cross-encoder": []}
        changed = 0
        for i, q in enumerate(questions):
            order = [("reader alone", off), ("with cross-encoder", on)]
            firsts = {}
            for name, engine in order if i % 2 else order[::-1]:
                started = time.perf_counter()
                result = answer(engine, q)
                times[name].append((time.perf_counter() - started) * 1000)
                firsts[name] = result.text.split("\n")[0]
            changed += firsts["reader alone"] != firsts["with cross-encoder"]
        on.close()
    for name, values in times.items():
        print(f"{name:<20} p50 {percentile(values, 50):6.0f} ms   p95 {percentile(values, 95):6.0f} ms")
    base, new = times["reader alone"], times["with cross-encoder"]
    print(f"ratio (with / alone)  p50 {percentile(new, 50) / percentile(base, 50):.2f}   "
          f"p95 {percentile(new, 95) / percentile(base, 95):.2f}")
    print(f"first line changed    {changed} of {len(questions)} answers")


if __name__ == "__main__":
    main()
