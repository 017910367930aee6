"""The learned reader's cross-encoder against today's reading, on dev with folds (a fold's
questions are never in the training data of the model that reads them), and its latency.

    .venv/bin/python benchmarks/cross_encoder.py [--data-dir DIR] [--folds 2] [--folds-dir DIR]
                                                 [--steps 90] [--minutes 6] [--record]

Fold models are read from --folds-dir (fold0/, fold1/, ...); a missing one is trained first with
``eval.train_cross_encoder`` (holding that fold out). For answerable single-paper questions
(single facts, figures, two-part) whose top-5 retrieved abstracts hold a fact-holding sentence
(eval.train_reader.label, as the eval grades facts), how often the sentence ranked first holds
one: (a) the bi-encoder cosine alone, (b) today's fitted reader (out of fold: its sentence
model refitted without the question, as ``rag train-reader`` cross-validates), (c) the
cross-encoder, (d) an oracle taking whichever of (b) and (c) is right. Answerability: the
cross-encoder's best ``answerable`` score over the pool, AUC of answerable against unanswerable
dev questions, and the unanswerable share declined at the threshold that declines at most 3% of
answerable ones; beside it, the fitted reader's out-of-fold answerability model. Latency: pairs
a second and ms a question for scoring about 40 sentences, on 2 threads. ``--record`` writes the
figures into the shipped model's manifest."""

from __future__ import annotations

import argparse
import hashlib
import json
import pickle
import time
from pathlib import Path

import numpy as np
from common import indexed_settings

from eval.dataset import SPLITS, load
from eval.train_cross_encoder import dev_folds, train
from eval.train_reader import (
    EVIDENCE,
    FEATURES,
    choose_answerable,
    collect,
    evidence_features,
    fit_logistic,
    out_of_fold,
    with_probabilities,
)
from eval.training.build import OUT as PAIRS
from rag.answer.cross_encoder import MANIFEST_FILE, MODEL_FILE, CrossEncoder
from rag.engine import build_engine
from rag.settings import PROJECT_ROOT


def auc(scores: np.ndarray, positive: np.ndarray) -> float:
    """Probability that a positive outscores a negative (ties count half)."""
    pos, neg = scores[positive], scores[~positive]
    if not len(pos) or not len(neg):
        return float("nan")
    wins = (pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()
    return float(wins / (len(pos) * len(neg)))


def fold_models(folds: int, which: list[int], where: Path, steps: int, minutes: float) -> dict[int, CrossEncoder]:
    models = {}
    for k, held in enumerate(dev_folds(folds)):
        if k not in which:
            continue
        out = where / f"fold{k}"
        if not (out / MODEL_FILE.name).is_file():
            print(f"training the fold {k} model (dev fold {k} held out, {len(held)} questions)", flush=True)
            train(PAIRS, where / f"state{k}", out, steps=steps, minutes=minutes, held_out=held, threads=1)
        models[k] = CrossEncoder(out / MODEL_FILE.name, out / MANIFEST_FILE.name, threads=2)
    return models


def ranking(examples, oof, models, fold_of) -> dict[str, float]:  # type: ignore[no-untyped-def]
    hits = {"cosine": [], "fitted reader": [], "cross-encoder": [], "oracle": [], "cross-encoder top 2": []}
    for ex, probs in zip(examples, oof, strict=True):
        top5 = np.array([c.rank <= 5 for c in ex.scored.pool])
        if fold_of.get(ex.question.id) not in models or ex.question.type != "single" or not (ex.labels & top5).any():
            continue
        idx = np.flatnonzero(top5)
        labels = ex.labels[idx]
        cos = ex.rows[0][idx, FEATURES.index("cos")]
        ce = models[fold_of[ex.question.id]].answers(ex.question.question, [ex.scored.pool[i].text for i in idx])
        b, c = bool(labels[int(np.argmax(probs[0][idx]))]), bool(labels[int(np.argmax(ce))])
        hits["cosine"].append(bool(labels[int(np.argmax(cos))]))
        hits["fitted reader"].append(b)
        hits["cross-encoder"].append(c)
        hits["oracle"].append(b or c)
        hits["cross-encoder top 2"].append(bool(labels[np.argsort(-ce)[:2]].any()))
    return {k: round(float(np.mean(v)), 4) for k, v in hits.items()} | {"questions": len(hits["cosine"])}


def answerability(examples, oof, models, fold_of) -> dict[str, dict[str, float]]:  # type: ignore[no-untyped-def]
    """The fitted reader's gate is fitted out of fold on every dev question; both are measured on
    the questions of the evaluated folds."""
    answerable = np.array([ex.question.type != "unanswerable" for ex in examples])
    ev = np.vstack([evidence_features(with_probabilities(ex, p)) for ex, p in zip(examples, oof, strict=True)])
    gate = np.zeros(len(examples))
    folds = np.random.default_rng(11).permutation(len(examples)) % 5
    for k in range(5):
        held = folds == k
        gate[held] = fit_logistic(ev[~held], answerable[~held].astype(int), EVIDENCE, 0.3).probability(ev[held])
    mine = np.array([fold_of.get(ex.question.id) in models for ex in examples])
    ce = np.array([models[fold_of[ex.question.id]].answerable(ex.question.question, [c.text for c in ex.scored.pool])
                   for ex in examples if fold_of.get(ex.question.id) in models])
    answerable = answerable[mine]
    out = {}
    for name, p in (("cross-encoder", ce), ("fitted reader", gate[mine])):
        _, figures = choose_answerable(p, answerable, 0.03)
        out[name] = {"auc": round(auc(p, answerable), 4), **figures}
    out["questions"] = {"answerable": int(answerable.sum()), "unanswerable": int((~answerable).sum())}
    return out


def latency(model: CrossEncoder, examples, n: int = 20) -> dict[str, float]:  # type: ignore[no-untyped-def]
    spent, pairs = [], 0
    for ex in examples[:n]:
        texts = [c.text for c in ex.scored.pool][:40]
        texts += texts * (40 // max(1, len(texts)))
        texts = texts[:40]
        started = time.perf_counter()
        model.probabilities(ex.question.question, texts)
        spent.append((time.perf_counter() - started) * 1000)
        pairs += len(texts)
    return {"pairs_per_second": round(pairs / (sum(spent) / 1000), 1), "ms_p50": round(float(np.median(spent)), 1),
            "ms_p95": round(float(np.percentile(spent, 95)), 1), "questions": len(spent)}


def dev_examples(data_dir: Path | None, cache: Path):  # type: ignore[no-untyped-def]
    """Dev questions retrieved and featurised as the reader sees them (eval.train_reader.collect),
    kept in ``cache`` keyed by the dev file's and the index's state: reading takes minutes."""
    questions = [q for q in load(SPLITS["dev"]) if q.type != "metadata"]
    key = hashlib.sha256(SPLITS["dev"].read_bytes() + str(data_dir).encode()).hexdigest()[:16]
    path = cache / f"dev-examples-{key}.pkl"
    if path.is_file():
        return questions, pickle.loads(path.read_bytes())
    with indexed_settings(data_dir) as settings:
        engine = build_engine(settings)
        try:
            examples = collect(engine, questions, lambda: None)
        finally:
            engine.close()
    cache.mkdir(parents=True, exist_ok=True)
    path.write_bytes(pickle.dumps(examples))
    return questions, examples


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", type=Path)
    parser.add_argument("--folds", type=int, default=2)
    parser.add_argument("--folds-dir", type=Path, default=PROJECT_ROOT / ".rag-data" / "ce-folds")
    parser.add_argument("--steps", type=int, default=90)
    parser.add_argument("--minutes", type=float, default=6.0)
    parser.add_argument("--record", action="store_true", help="write the figures into rag/assets' manifest")
    parser.add_argument("--evaluate-folds", type=int, nargs="*", help="only these folds' questions (default: all)")
    parser.add_argument("--limit", type=int, help="score only this many questions of the evaluated folds (a quick run)")
    parser.add_argument("--collect-only", action="store_true", help="read the dev questions (cached) and stop")
    args = parser.parse_args()
    questions, examples = dev_examples(args.data_dir, args.folds_dir)
    if args.collect_only:
        return
    which = args.evaluate_folds if args.evaluate_folds is not None else list(range(args.folds))
    models = fold_models(args.folds, which, args.folds_dir, args.steps, args.minutes)
    fold_of = {qid: k for k, held in enumerate(dev_folds(args.folds)) for qid in held}
    if args.limit is not None:
        kept = [ex.question.id for ex in examples if fold_of.get(ex.question.id) in models][: args.limit]
        fold_of = {qid: fold_of[qid] for qid in kept}
    oof = out_of_fold(examples, c=0.3)  # the fitted reader's sentence model, refitted without each question
    figures = {"top1_states_a_fact": ranking(examples, oof, models, fold_of),
               "answerability": answerability(examples, oof, models, fold_of),
               "latency_2_threads_40_sentences": latency(models[which[0]], examples),
               "folds": args.folds, "evaluated_folds": which, "dev_questions_read": len(examples),
               "dev_questions": len(questions)}
    print(json.dumps(figures, indent=1))
    if args.record:
        data = json.loads(MANIFEST_FILE.read_text(encoding="utf-8"))
        data["trained"]["dev"] = figures | {"command": "python benchmarks/cross_encoder.py --record"}
        MANIFEST_FILE.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
