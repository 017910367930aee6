"""Which retrieved papers a list answer names ("Which papers ...?"): one row of PAPER features
per paper, read by the ``qualifies`` logistic regression of the reader's weights (fitted by
``rag train-reader`` on dev's list questions, its threshold for the best F1 of listed papers).

A paper's best sentence alone (the sentence model's probability) lists too many neighbours of the
first paper and misses papers whose abstract meets the question as a whole but no single sentence
repeats it; so the row also says how the paper stands against the best one (its best sentence,
its retrieval, how much of the question's focus its whole abstract covers)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from rag.answer.features import Candidate

PAPER = ("best", "best_share", "rank", "similarity_gap", "fused_share", "coverage", "coverage_gap")


def paper_rows(pool: Sequence[Candidate], probabilities: np.ndarray,
               coverage: Mapping[str, float]) -> tuple[list[str], np.ndarray]:
    """The pool's papers in retrieval order and their rows of PAPER. ``probabilities``: the
    sentence model's, per candidate, for the part that asks for the papers; ``coverage``: per
    paper, the share of the question's focus its abstract says (``evidence.topic_shares``)."""
    ids = list(dict.fromkeys(c.paper.paper.id for c in pool))
    if not ids:
        return [], np.zeros((0, len(PAPER)))
    first = {c.paper.paper.id: c for c in reversed(pool)}  # each paper's first candidate
    best = {pid: 0.0 for pid in ids}
    for c, p in zip(pool, probabilities, strict=True):
        best[c.paper.paper.id] = max(best[c.paper.paper.id], float(p))
    top_best = max(best.values()) or 1.0
    top_similarity = max(first[pid].paper.similarity for pid in ids)
    top_score = max(first[pid].paper.score for pid in ids) or 1.0
    top_coverage = max(coverage.get(pid, 0.0) for pid in ids)
    rows = [[best[pid], best[pid] / top_best, 1.0 / first[pid].rank,
             first[pid].paper.similarity - top_similarity, first[pid].paper.score / top_score,
             coverage.get(pid, 0.0), coverage.get(pid, 0.0) - top_coverage] for pid in ids]
    return ids, np.array(rows, dtype=np.float64)
