"""Streaming with a real model: time to the first checked sentence and to the whole answer.

    .venv/bin/rag local-llm --threads 2 &        # Qwen2.5-Coder-1.5B on 127.0.0.1:8080
    RAG_LLM__BASE_URL=http://127.0.0.1:8080/v1 RAG_LLM__MODEL=qwen RAG_LLM__TIMEOUT=300 \\
        .venv/bin/python benchmarks/streaming.py [--limit 6]

For each question (dev questions answered by one paper; the same in every run) the engine's
``answer_stream`` is consumed as a client consumes it: the time until the first checked piece of
text, and until the Answer. Prints each, the medians, and the ratio first / whole: streaming
should show the first checked sentence in well under half the time the whole answer takes."""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from common import indexed_settings

from eval.dataset import DEFAULT_DATASET, load
from rag.engine import answer_stream, build_engine
from rag.types import Answer, Replace


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", type=Path)
    parser.add_argument("--limit", type=int, default=6)
    args = parser.parse_args()
    with indexed_settings(args.data_dir) as settings:
        if not settings.llm.configured:
            raise SystemExit("set RAG_LLM__BASE_URL (and RAG_LLM__MODEL) to a running model, e.g. rag local-llm")
        engine = build_engine(settings)
        questions = [q for q in load(DEFAULT_DATASET) if q.type in ("single", "numeric")][: args.limit]
        pairs, count, replaced = [], 0, 0
        for q in questions:
            started, first = time.perf_counter(), None
            for item in answer_stream(engine, q.question):
                if isinstance(item, str | Replace) and first is None:
                    first = time.perf_counter() - started
                replaced += isinstance(item, Replace)
                if isinstance(item, Answer):
                    whole = time.perf_counter() - started
                    print(f"{q.id}: first checked text {first if first is not None else float('nan'):6.1f} s, "
                          f"whole answer {whole:6.1f} s, route {item.route}, {len(item.sentences)} sentences")
                    count += 1
                    if first is not None and item.route == "llm":
                        pairs.append((first, whole))
        engine.close()
    if pairs:
        f, w = statistics.median(p[0] for p in pairs), statistics.median(p[1] for p in pairs)
        ratio = statistics.median(p[0] / p[1] for p in pairs)
        print(f"median first checked sentence {f:.1f} s, whole answer {w:.1f} s, median ratio {ratio:.2f} "
              f"({len(pairs)} of {count} answered by the model; {replaced} replaced)")


if __name__ == "__main__":
    main()
