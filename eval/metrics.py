"""Retrieval metrics over gold papers: pure functions of a ranked list and a gold set."""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Sequence


def recall_at(ranked: Sequence[str], gold: Collection[str], k: int) -> float:
    """Share of the gold papers found in the top k."""
    if not gold:
        return 0.0
    return len(set(ranked[:k]) & set(gold)) / len(set(gold))


def hit_at(ranked: Sequence[str], gold: Collection[str], k: int) -> float:
    """1 if any gold paper is in the top k."""
    return 1.0 if set(ranked[:k]) & set(gold) else 0.0


def mrr_at(ranked: Sequence[str], gold: Collection[str], k: int = 10) -> float:
    """Reciprocal rank of the first gold paper in the top k (0 if none)."""
    for rank, item in enumerate(ranked[:k], start=1):
        if item in gold:
            return 1.0 / rank
    return 0.0


def ndcg_at(ranked: Sequence[str], gold: Collection[str], k: int = 10) -> float:
    """Binary-relevance nDCG: DCG of the ranking over the DCG of a perfect one."""
    gains = sum(1.0 / math.log2(rank + 1) for rank, item in enumerate(ranked[:k], start=1)
                if item in gold)
    ideal = sum(1.0 / math.log2(rank + 1) for rank in range(1, min(len(set(gold)), k) + 1))
    return gains / ideal if ideal else 0.0


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0-100) by linear interpolation; 0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    position = (len(ordered) - 1) * q / 100
    low, high = math.floor(position), math.ceil(position)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def _canonical(text: str) -> str:
    text = text.lower().replace("‑", "-")
    text = re.sub(r"(\d)\s*(?:%|percent\b|per cent\b)", r"\1%", text)
    return " ".join(re.findall(r"[a-z0-9%.+\-]+", text))


def fact_covered(alternatives: Sequence[str], answer: str) -> bool:
    """Any alternative in the answer, ignoring case, spacing and "35 %"/"35 percent" forms."""
    canonical = _canonical(answer)
    return any(_canonical(a) and _canonical(a) in canonical for a in alternatives)


def key_fact_coverage(key_facts: Sequence[Sequence[str]], answer: str) -> float:
    """Share of the required facts (each a list of alternatives) that the answer states."""
    if not key_facts:
        return 1.0
    return sum(fact_covered(alts, answer) for alts in key_facts) / len(key_facts)
