"""The reader's logistic regressions, fitted: L2-regularised on standardised features, classes
balanced (scikit-learn), or with each weight bounded to a sign (scipy's L-BFGS-B on the same loss).
Needs the ``train`` extra; answering reads the fitted ``Logistic`` with numpy alone."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np

from rag.answer.model import Logistic

FOLDS = 5  # out-of-fold figures and thresholds: folds by question


def folds_of(ids: Sequence[str], seed: int) -> np.ndarray:
    """Each question's fold, from a hash of its id and ``seed``: adding or removing a question
    moves no other question to another fold (a permutation over their number moved every one,
    and a threshold chosen out of fold with it)."""
    return np.array([int.from_bytes(hashlib.sha256(f"{seed}:{i}".encode()).digest()[:4], "big") % FOLDS
                     for i in ids])


def fit_logistic(x: np.ndarray, y: np.ndarray, names: Sequence[str], c: float,
                 signs: Sequence[int] | None = None) -> Logistic:
    """L2-regularised logistic regression on standardised features, classes balanced. With
    ``signs`` (+1, -1 or 0 per feature), each weight is bounded to its sign (0: free)."""
    from sklearn.linear_model import LogisticRegression

    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale == 0] = 1.0
    if signs is not None and any(signs):
        coef, intercept = _fit_signed((x - mean) / scale, y, c, signs)
        return Logistic(tuple(names), mean, scale, coef, intercept)
    model = LogisticRegression(C=c, max_iter=2000, class_weight="balanced")
    model.fit((x - mean) / scale, y)
    return Logistic(tuple(names), mean, scale, model.coef_[0], float(model.intercept_[0]))


def _fit_signed(z: np.ndarray, y: np.ndarray, c: float, signs: Sequence[int]) -> tuple[np.ndarray, float]:
    """The same loss as scikit-learn's (balanced weights, penalty 1/(2C)|w|^2), minimised by
    L-BFGS-B within the sign bounds (unbounded, it gives scikit-learn's weights)."""
    from scipy.optimize import minimize

    y = y.astype(float)
    weight = np.where(y == 1, len(y) / (2 * max(1.0, y.sum())), len(y) / (2 * max(1.0, (1 - y).sum())))

    def loss(theta: np.ndarray) -> tuple[float, np.ndarray]:
        coef, b = theta[:-1], theta[-1]
        t = z @ coef + b
        residual = weight * (1.0 / (1.0 + np.exp(-np.clip(t, -30, 30))) - y)
        value = float(np.sum(weight * (np.logaddexp(0.0, t) - y * t)) + 0.5 / c * coef @ coef)
        return value, np.append(z.T @ residual + coef / c, residual.sum())

    bounds = [(0.0, None) if s > 0 else (None, 0.0) if s < 0 else (None, None) for s in signs] + [(None, None)]
    fitted = minimize(loss, np.zeros(z.shape[1] + 1), jac=True, method="L-BFGS-B", bounds=bounds)
    return fitted.x[:-1], float(fitted.x[-1])
