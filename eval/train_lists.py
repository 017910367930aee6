"""The paper model of list answers (``rag.answer.qualifies``), fitted by ``rag train-reader``: on
the questions answered as lists, from the sentence model's out-of-fold probabilities, its
threshold for the best F1 of listed papers against gold on its own out-of-fold predictions."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from eval.logistic import FOLDS, fit_logistic, folds_of
from rag.answer.model import Logistic
from rag.answer.qualifies import PAPER, paper_rows
from rag.settings import AnswerSettings

if TYPE_CHECKING:
    from eval.train_reader import Example


def lists(examples: Sequence[Example]) -> list[int]:
    """The questions answered as a list of papers (as the composer reads them) that have gold
    papers: what the paper model learns from."""
    return [i for i, ex in enumerate(examples)
            if ex.question.type != "unanswerable" and ex.question.gold_papers and ex.scored.intent.lists_papers]


def paper_data(ex: Example, probs: Sequence[np.ndarray]) -> tuple[list[str], np.ndarray, np.ndarray]:
    ids, rows = paper_rows(ex.scored.pool, probs[0], ex.scored.coverage)
    return ids, rows, np.array([pid in ex.question.gold_papers for pid in ids], dtype=int)


def list_f1(picked: Sequence[tuple[Example, list[str], np.ndarray]], threshold: float,
            cap: int = AnswerSettings().list_papers) -> dict[str, float]:
    """Listed papers against gold over list questions: a paper is listed when its probability
    reaches the threshold (likeliest first, at most ``cap``; the likeliest one when none does)."""
    tp = fp = fn = 0
    for ex, ids, p in picked:
        order = np.argsort(-p, kind="stable")
        listed = set([ids[i] for i in order if p[i] >= threshold][:cap] or [ids[int(order[0])]])
        gold = set(ex.question.gold_papers)
        tp, fp, fn = tp + len(listed & gold), fp + len(listed - gold), fn + len(gold - listed)
    return {"precision": round(tp / max(1, tp + fp), 4), "recall": round(tp / max(1, tp + fn), 4),
            "f1": round(2 * tp / max(1, 2 * tp + fp + fn), 4)}


def fit_qualifies(examples: Sequence[Example], probs: Sequence[Sequence[np.ndarray]], c: float,
                  choose_on: str = "dev") -> tuple[Logistic | None, float, dict[str, Any]]:
    """The paper model of list answers (rag.answer.qualifies), on the sentence model's
    out-of-fold probabilities; its threshold for the best F1 of listed papers on its own
    out-of-fold predictions (folds by question) of dev's list questions."""
    chosen = lists(examples)
    data = {i: paper_data(examples[i], probs[i]) for i in chosen}
    if len({int(y) for i in chosen for y in data[i][2]}) < 2:
        return None, 0.5, {}
    threshold, figures = paper_out_of_fold(examples, data, PAPER, c, choose_on)
    model = fit_logistic(np.vstack([data[i][1] for i in chosen]), np.concatenate([data[i][2] for i in chosen]),
                         PAPER, c)
    return model, threshold, {"questions": len(chosen)} | figures


def paper_out_of_fold(examples: Sequence[Example], data: Mapping[int, tuple[list[str], np.ndarray, np.ndarray]],
                      names: Sequence[str], c: float, choose_on: str = "dev",
                      seed: int = 5) -> tuple[float, dict[str, Any]]:
    """Paper models fitted on the other folds (by question) of ``data`` (question index -> ids,
    rows over ``names``, labels), each predicting its own fold; the threshold with the best F1 of
    listed papers on those predictions of dev's list questions, and the F1 there."""
    chosen = list(data)
    folds = folds_of([examples[i].question.id for i in chosen], seed)
    held_out: dict[int, np.ndarray] = {}
    for fold in range(FOLDS):
        train = [i for i, f in zip(chosen, folds, strict=True) if f != fold]
        model = fit_logistic(np.vstack([data[i][1] for i in train]), np.concatenate([data[i][2] for i in train]),
                             names, c)
        held_out |= {i: model.probability(data[i][1]) for i, f in zip(chosen, folds, strict=True) if f == fold}
    graded = [(examples[i], data[i][0], held_out[i]) for i in chosen
              if examples[i].question.type == "list" and (choose_on == "pooled" or examples[i].source == "dev")]
    threshold = float(max(np.linspace(0.05, 0.95, 19), key=lambda t: list_f1(graded, t)["f1"])) if graded else 0.5
    return threshold, {"list_questions": len(graded), "out_of_fold": list_f1(graded, threshold)}
