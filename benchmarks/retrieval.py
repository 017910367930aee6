"""Retrieval quality and latency on the bundled question set: BM25 only, dense only and the
fused default (what `rag ask` uses), measured in one run on one index.

    .venv/bin/python benchmarks/retrieval.py [--data-dir DIR] [--dataset FILE]

Builds the index of the bundled corpus in a temporary folder unless --data-dir points at one.
Questions with gold papers count (out-of-scope ones have none; false-premise ones name the real
paper). Latency is per question, warm (a first pass runs before the timed one)."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from common import indexed_settings

from eval.dataset import DEFAULT_DATASET, load
from eval.metrics import mrr_at, ndcg_at, percentile, recall_at
from rag.engine import build_engine, find_papers

METHODS = {"BM25 only": "keyword", "dense only": "dense", "fused (default)": "hybrid"}


def measure(engine, questions, mode: str) -> dict[str, float]:  # type: ignore[no-untyped-def]
    rows, latencies = [], []
    for q in questions:
        find_papers(engine, q.question, k=10, mode=mode)  # warm-up pass
    for q in questions:
        start = time.perf_counter()
        found = find_papers(engine, q.question, k=10, mode=mode)
        latencies.append((time.perf_counter() - start) * 1000)
        ranked = [p.paper.id for p in found]
        rows.append((recall_at(ranked, q.gold_papers, 1), recall_at(ranked, q.gold_papers, 5),
                     recall_at(ranked, q.gold_papers, 10), mrr_at(ranked, q.gold_papers, 10),
                     ndcg_at(ranked, q.gold_papers, 10)))
    n = len(rows)
    names = ("recall@1", "recall@5", "recall@10", "MRR@10", "nDCG@10")
    out = {name: sum(r[i] for r in rows) / n for i, name in enumerate(names)}
    out["p50 ms"], out["p95 ms"] = percentile(latencies, 50), percentile(latencies, 95)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path)
    parser.add_argument("--dataset", type=Path, default=DEFAULT_DATASET)
    args = parser.parse_args()
    with indexed_settings(args.data_dir) as settings:
        engine = build_engine(settings)
        questions = [q for q in load(args.dataset) if q.gold_papers]
        by_type: dict[str, int] = {}
        for q in questions:
            by_type[q.type] = by_type.get(q.type, 0) + 1
        print(f"{len(questions)} questions with gold papers "
              f"({', '.join(f'{n} {t}' for t, n in sorted(by_type.items()))}); "
              f"{engine.library.vectors.count()} chunks indexed")
        results = {name: measure(engine, questions, mode) for name, mode in METHODS.items()}
        content = [q for q in questions if q.type != "metadata"]
        without_authors = {name: measure(engine, content, mode) for name, mode in METHODS.items()}
        engine.close()
    print_table(results)
    print(f"\nThe same without the author questions ({len(content)} questions; author names are "
          "metadata, not abstract text, so only the fused default's author route finds them):")
    print_table(without_authors)
    print()
    verdicts(results)


def print_table(results: dict[str, dict[str, float]]) -> None:
    columns = list(next(iter(results.values())))
    print(f"\n| method | {' | '.join(columns)} |")
    print(f"|---|{'---|' * len(columns)}")
    for name, row in results.items():
        cells = [f"{row[c]:.1f}" if c.endswith("ms") else f"{row[c]:.3f}" for c in columns]
        print(f"| {name} | {' | '.join(cells)} |")


def verdicts(results: dict[str, dict[str, float]]) -> None:
    fused, bm25, dense = (results["fused (default)"], results["BM25 only"], results["dense only"])
    for metric in ("MRR@10", "recall@5"):
        beats = fused[metric] > max(bm25[metric], dense[metric])
        print(f"fused beats both on {metric}: {'yes' if beats else 'NO'} "
              f"({fused[metric]:.3f} vs BM25 {bm25[metric]:.3f}, dense {dense[metric]:.3f})")
    print(f"fused warm p50 under 50 ms: {'yes' if fused['p50 ms'] < 50 else 'NO'} "
          f"({fused['p50 ms']:.1f} ms)")


if __name__ == "__main__":
    main()
