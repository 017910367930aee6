"""The reader's logistic regressions are fitted as scikit-learn fits them, or with each weight
bounded to a sign (a feature that may only raise the odds never lowers them)."""

from __future__ import annotations

import numpy as np
import pytest

from eval.logistic import FOLDS, fit_logistic, folds_of


def test_a_weight_bounded_to_a_sign_keeps_it_and_a_free_fit_is_scikit_learns():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(400, 3))
    y = (x[:, 0] - x[:, 1] + rng.normal(size=400) > 0).astype(int)  # feature 1 lowers the odds
    free = fit_logistic(x, y, ("a", "b", "c"), 0.3)
    bounded = fit_logistic(x, y, ("a", "b", "c"), 0.3, (1, 1, 0))
    assert free.coef[1] < -0.5 and bounded.coef[1] == pytest.approx(0.0, abs=1e-6)
    assert bounded.coef[0] > 0.5
    unbounded = fit_logistic(x, y, ("a", "b", "c"), 0.3, (0, 0, 0))
    assert np.allclose(unbounded.coef, free.coef)


def test_a_question_keeps_its_fold_when_others_are_added():
    """Folds come from a hash of each question's id: adding questions moves none of the others (a
    permutation over their number moved every one, and the list threshold with them)."""
    ids = [f"q{i:03d}" for i in range(300)]
    before = folds_of(ids, seed=7)
    after = folds_of(ids + [f"g{i:04d}" for i in range(19)], seed=7)
    assert (after[: len(ids)] == before).all()
    assert set(before) == set(range(FOLDS)) and min(np.bincount(before)) > 0.15 * len(ids)
    assert not (folds_of(ids, seed=8) == before).all(), "the seed still draws other folds"
