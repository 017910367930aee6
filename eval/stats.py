"""Intervals and significance for eval figures: percentile bootstrap over questions (seeded, so a
rerun prints the same interval), paired bootstrap for the difference of two runs on the same
questions, and the exact McNemar test for a right/wrong flag."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

SEED = 17
RESAMPLES = 2000


def _median(values: np.ndarray) -> np.ndarray:
    return np.median(values, axis=-1)


def _mean(values: np.ndarray) -> np.ndarray:
    return values.mean(axis=-1)


STATISTICS: dict[str, Callable[[np.ndarray], np.ndarray]] = {"mean": _mean, "median": _median}


def interval(values: Sequence[float], statistic: str = "mean", level: float = 0.95,
             resamples: int = RESAMPLES, seed: int = SEED) -> tuple[float, float] | None:
    """The percentile-bootstrap interval of the statistic over the values (None for none)."""
    data = np.asarray(values, dtype=float)
    if data.size == 0:
        return None
    rng = np.random.default_rng(seed)
    draws = STATISTICS[statistic](data[rng.integers(0, data.size, size=(resamples, data.size))])
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(draws, [tail, 100 - tail])
    return float(low), float(high)


def paired_difference(a: Sequence[float], b: Sequence[float], level: float = 0.95,
                      resamples: int = RESAMPLES, seed: int = SEED) -> tuple[float, float, float] | None:
    """(mean of b - a, interval low, high), resampling the questions together: the change is
    beyond noise when the interval leaves out 0."""
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if x.size == 0 or x.size != y.size:
        return None
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, x.size, size=(resamples, x.size))
    draws = (y[picks] - x[picks]).mean(axis=1)
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(draws, [tail, 100 - tail])
    return float((y - x).mean()), float(low), float(high)


def mcnemar(right_to_wrong: int, wrong_to_right: int) -> float:
    """Two-sided exact McNemar p-value: how likely this many flips one way out of all flips is,
    if flipping either way were equally likely."""
    n, k = right_to_wrong + wrong_to_right, min(right_to_wrong, wrong_to_right)
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n
    return min(1.0, 2 * tail)
