"""Other ways to read with the same data, measured on dev out of fold: does any beat what ships?

The sentence model of ``rag train-reader`` is a pointwise logistic regression over
rag.answer.features. Here the same candidates and labels (the dev split and the generated
questions, collected as ``rag train-reader`` collects them) are fitted out of fold, five folds by
question, over several fold seeds, and graded on dev's answerable questions by whether the best
sentence states a key fact:

- ``pointwise``: what ships;
- ``listwise``: a softmax over each part's candidates (the same features, L2, its own C);
- ``boosted``: gradient-boosted trees (scikit-learn), and ``average``, its probability averaged
  with the logistic one;
- ``anaphora``: the shipped features plus "the sentence opens with a pronoun or "this/our ..."",
  alone and times ``paper_named`` (a sentence that says "It takes ..." about the paper the
  question names never says the name).

With ``--fold-models DIR0 DIR1`` (cross-encoders each trained without one dev fold:
``python -m eval.train_cross_encoder --folds 2 --hold-out-fold K --out DIRK``), two signals of the
cross-encoder are measured too, each dev question read by the model that never saw it:

- as evidence for the answerability gate: the best ``answers`` and ``answerable`` logits over
  each part's eight best sentences, their AUC on dev, and dev's unanswerable questions declined
  at most 3% false abstentions, with and without them (the gate fitted out of fold);
- its ``yes`` head as the verdict of dev's yes/no questions, read on the sentence the shipped
  answer leads with, against the verdict the answer gives.

    .venv/bin/python benchmarks/reader_variants.py [--fold-models DIR0 DIR1] [--data-dir .rag-data]"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import numpy as np
from common import indexed_settings, reader_examples
from scipy.optimize import minimize

from eval.dataset import SPLITS, load
from eval.generate_training import GATE_ONLY
from eval.logistic import FOLDS, fit_logistic
from eval.metrics import leading_verdict
from eval.train_cross_encoder import dev_folds
from eval.train_reader import (
    Example,
    choose_answerable,
    out_of_fold,
    top1,
    with_probabilities,
)
from rag.answer.features import FEATURES
from rag.answer.reader import EVIDENCE, evidence_features
from rag.engine import answer, build_engine

SEEDS = (7, 8, 9, 10, 11)
C = 0.3
ANAPHOR = re.compile(r"^(?:It|They|This|These|Our|The proposed|The resulting|Such|Its|Their)\b")


def _rows(examples: list[Example], extra: str) -> list[list[np.ndarray]]:
    named = FEATURES.index("paper_named")
    out = []
    for ex in examples:
        refers = np.array([float(bool(ANAPHOR.match(c.text))) for c in ex.scored.pool])[:, None]
        out.append([r if not extra else np.hstack([r, refers, refers * r[:, [named]]]) for r in ex.rows])
    return out


def _listwise(groups: list[tuple[np.ndarray, np.ndarray]], c: float) -> np.ndarray:
    """Weights of a softmax over each group's rows (rows standardised by the caller)."""
    def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
        value, grad = 0.5 / c * w @ w, w / c
        for z, target in groups:
            s = z @ w
            p = np.exp(s - s.max())
            p /= p.sum()
            value -= float(target @ np.log(p + 1e-12))
            grad = grad + z.T @ (p - target)
        return value, grad
    return minimize(loss, np.zeros(groups[0][0].shape[1]), jac=True, method="L-BFGS-B").x


def sentence_variants(examples: list[Example], seed: int) -> dict[str, float]:
    from sklearn.ensemble import HistGradientBoostingClassifier

    folds = np.random.default_rng(seed).permutation(len(examples)) % FOLDS
    scores: dict[str, list[list[np.ndarray]]] = {k: [[] for _ in examples] for k in
                                                  ("pointwise", "listwise", "boosted", "average", "anaphora")}
    for variant, rows in (("pointwise", _rows(examples, "")), ("anaphora", _rows(examples, "anaphora"))):
        learn = [i for i, ex in enumerate(examples) if ex.question.type != "unanswerable" and ex.labels.any()
                 and GATE_ONLY not in ex.question.tags]
        for fold in range(FOLDS):
            train = [i for i in learn if folds[i] != fold]
            x = np.vstack([r for i in train for r in rows[i]])
            y = np.concatenate([examples[i].labels for i in train for _ in rows[i]])
            names = tuple(f"f{j}" for j in range(x.shape[1]))
            logistic = fit_logistic(x, y, names, C)
            held = np.flatnonzero(folds == fold)
            for i in held:
                scores[variant][i] = [logistic.probability(r) for r in rows[i]]
            if variant != "pointwise":
                continue
            mean, scale = x.mean(0), x.std(0)
            scale[scale == 0] = 1.0
            w = _listwise([((r - mean) / scale, examples[i].labels / examples[i].labels.sum())
                           for i in train for r in rows[i]], 1.0)
            trees = HistGradientBoostingClassifier(class_weight="balanced", random_state=0, max_iter=100,
                                                   learning_rate=0.05, max_leaf_nodes=15,
                                                   min_samples_leaf=40).fit(x, y)
            for i in held:
                scores["listwise"][i] = [((r - mean) / scale) @ w for r in rows[i]]
                scores["boosted"][i] = [trees.predict_proba(r)[:, 1] for r in rows[i]]
                scores["average"][i] = [a + b for a, b in zip(scores["pointwise"][i], scores["boosted"][i],
                                                             strict=True)]
    dev = [i for i, ex in enumerate(examples) if ex.source == "dev"]
    return {k: top1([examples[i] for i in dev], [v[i] for i in dev]) for k, v in scores.items()}


def cross_signals(examples: list[Example], models: list[Path]) -> np.ndarray:
    """Per question: the min over parts of the best ``answers`` and ``answerable`` logits over
    the part's eight best sentences (out-of-fold reader order), by the model that never saw it."""
    from rag.answer.cross_encoder import HEADS, MANIFEST_FILE, MODEL_FILE, CrossEncoder
    from rag.answer.rerank import asked

    folds = dev_folds(len(models))
    encoders = [CrossEncoder(m / MODEL_FILE.name, m / MANIFEST_FILE.name, threads=2) for m in models]
    probs = out_of_fold(examples, C)
    rows = []
    for ex, parts in zip(examples, probs, strict=True):
        k = next((j for j, f in enumerate(folds) if ex.question.id in f), 0)
        intent, best = ex.scored.intent, []
        for part, p in zip(intent.parts, parts, strict=True):
            top = np.argsort(-p)[:8]
            logits = encoders[k].logits(asked(intent.question, part.text, len(intent.parts)),
                                        [ex.scored.pool[i].text for i in top])
            best.append((logits[:, HEADS.index("answers")].max(), logits[:, HEADS.index("answerable")].max()))
        rows.append(np.min(np.array(best), axis=0))
    return np.array(rows)


def gate(examples: list[Example], extra: np.ndarray | None, seed: int) -> tuple[float, float, float]:
    """Dev AUC, unanswerable declined and false abstentions of the gate fitted out of fold."""
    from sklearn.metrics import roc_auc_score

    probs = out_of_fold(examples, C)
    ev = np.vstack([evidence_features(with_probabilities(ex, p)) for ex, p in zip(examples, probs, strict=True)])
    names = EVIDENCE
    if extra is not None:
        ev, names = np.hstack([ev, extra]), EVIDENCE + ("cross_answers", "cross_answerable")
    answerable = np.array([ex.question.type != "unanswerable" for ex in examples])
    dev = np.array([ex.source == "dev" for ex in examples])
    folds = np.random.default_rng(seed).permutation(len(examples)) % FOLDS
    p = np.zeros(len(examples))
    for fold in range(FOLDS):
        held = folds == fold
        p[held] = fit_logistic(ev[~held], answerable[~held].astype(int), names, C).probability(ev[held])
    threshold, _ = choose_answerable(p[dev], answerable[dev], 0.03)
    return (round(float(roc_auc_score(answerable[dev], p[dev])), 3),
            round(float(np.mean(p[dev & ~answerable] < threshold)), 3),
            round(float(np.mean(p[dev & answerable] < threshold)), 3))


def yes_head(engine, models: list[Path]) -> tuple[int, float, float]:  # type: ignore[no-untyped-def]
    """Dev's yes/no questions: the shipped answer's verdict right, the yes head's right (read on
    the sentence the answer leads with, by the fold model that never saw the question)."""
    from rag.answer.cross_encoder import MANIFEST_FILE, MODEL_FILE, CrossEncoder

    folds = dev_folds(len(models))
    encoders = [CrossEncoder(m / MODEL_FILE.name, m / MANIFEST_FILE.name, threads=2) for m in models]
    shipped = head = n = 0
    for q in load(SPLITS["dev"]):
        if q.yes_no is None:
            continue
        result = answer(engine, q.question)
        lead = result.citations[0].passage if result.citations else ""
        k = next((j for j, f in enumerate(folds) if q.id in f), 0)
        says_yes = float(encoders[k].says_yes(q.question, [lead])[0]) > 0.5
        n += 1
        shipped += leading_verdict(result.text) == q.yes_no
        head += says_yes == (q.yes_no == "yes")
    return n, shipped / max(1, n), head / max(1, n)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fold-models", type=Path, nargs="*", default=[])
    parser.add_argument("--data-dir", type=Path)
    args = parser.parse_args()
    with indexed_settings(args.data_dir) as settings:
        examples = reader_examples(settings)
        print(f"{len(examples)} questions ({sum(ex.source == 'dev' for ex in examples)} dev); "
              "dev, out of fold: the best sentence states a key fact")
        for seed in SEEDS:
            figures = sentence_variants(examples, seed)
            print(f"  fold seed {seed}: " + ", ".join(f"{k} {v:.3f}" for k, v in figures.items()))
        if not args.fold_models:
            return
        from sklearn.metrics import roc_auc_score

        cross = cross_signals(examples, args.fold_models)
        dev = np.array([ex.source == "dev" for ex in examples])
        answerable = np.array([ex.question.type != "unanswerable" for ex in examples])
        print("cross-encoder signals as evidence of an answer (dev AUC): "
              f"best answers logit {roc_auc_score(answerable[dev], cross[dev, 0]):.3f}, "
              f"best answerable logit {roc_auc_score(answerable[dev], cross[dev, 1]):.3f}")
        for seed in (11, 12, 13, 14):
            print(f"  gate fold seed {seed} (AUC, declined, false abstentions): shipped features "
                  f"{gate(examples, None, seed)}, with the two {gate(examples, cross, seed)}")
        engine = build_engine(settings)
        try:
            n, shipped, head = yes_head(engine, args.fold_models)
        finally:
            engine.close()
        print(f"dev yes/no ({n}): the answer's verdict right {shipped:.3f}, the yes head's {head:.3f}")


if __name__ == "__main__":
    main()
