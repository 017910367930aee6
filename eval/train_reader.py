"""``rag train-reader``: fit the reader's models (sentences, answerability, list papers), write reader.json.

Data: the dev split (never test) and the generated questions of
eval/datasets/train_generated.jsonl. For every question the engine retrieves as it does when
answering; each candidate sentence of the retrieved abstracts is labelled by whether it states a
key fact of the question (eval.metrics.fact_state) in a gold paper. The sentence model is a
logistic regression over rag.answer.features; the answerability model one over the evidence
features of rag.answer.reader, fitted on out-of-fold sentence probabilities (5 folds by question),
so it learns from scores like the ones it will see. Thresholds are chosen on those out-of-fold
predictions of the hand-written (dev) questions alone: answerability for at most
``--max-false-abstentions`` of answerable dev questions declined (on out-of-fold probabilities
one fold split). The paper model of list answers (``rag.answer.qualifies``)
is fitted on the questions answered as lists, its threshold for the best F1 of listed papers against
gold lists, out of fold. The generated questions help fit the weights, but they
are easier than dev (templates), so a threshold or a figure taken on them would flatter the
reader: the out-of-fold figures are reported for dev alone, generated alone and pooled.

The test split is refused by its content (eval.dataset.refuse_test), whatever the file is called."""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from eval.dataset import DATASETS, Question, load, refuse_test
from eval.metrics import countable_facts, fact_state
from rag.answer.features import FEATURES
from rag.answer.model import MODEL_FILE, Logistic, ReaderModel
from rag.answer.qualifies import PAPER, paper_rows
from rag.answer.reader import EVIDENCE, FittedReader, Scored, evidence_features
from rag.engine import Engine
from rag.retrieve.keyword import TermStats
from rag.retrieve.query import clean_question
from rag.stages.retrieve import find, gather
from rag.stages.route import route

GENERATED = DATASETS / "train_generated.jsonl"
FOLDS = 5
GATE_SEEDS = (11,)  # fold splits averaged for the answerability threshold


@dataclass
class Example:
    """One question, retrieved and featurised: rows per part, labels per candidate."""

    question: Question
    scored: Scored  # probabilities filled in later (out of fold)
    rows: list[np.ndarray]
    labels: np.ndarray
    papers: list[str]  # the candidates' paper ids
    source: str = "dev"  # "dev" (hand-written questions) or "generated" (template questions)
    coverage: dict[str, float] = field(default_factory=dict)  # per paper: the focus its abstract says


def label(question: Question, text: str, paper_id: str) -> bool:
    if question.gold_papers and paper_id not in question.gold_papers:
        return False
    facts = countable_facts(question.key_facts, question.question)
    return any(fact_state(f, text) == "stated" for f in facts)


def collect(engine: Engine, questions: Sequence[Question], tick: Callable[[], None],
            sources: Sequence[str] = ()) -> list[Example]:
    """``sources``: each question's source ("dev" or "generated"), in order; all "dev" when empty."""
    reader = FittedReader(engine.library.embedder, engine.settings.answer, TermStats(engine.library.catalog),
                          ReaderModel.blank(FEATURES, EVIDENCE))
    out = []
    for i, q in enumerate(questions):
        tick()
        text = clean_question(q.question)
        routed = route(engine.library, text, text)
        if routed.catalogue is not None:
            continue
        intent = routed.intent
        evidence = gather(find(engine.library, engine.reranker, routed, engine.settings.retrieval,
                               methods=engine.methods))
        scored = reader.score(intent, list(evidence.with_abstracts), evidence.sentences)
        if not scored.pool:
            continue
        rows = reader.feature_rows(intent, scored.pool)
        labels = np.array([label(q, c.text, c.paper.paper.id) for c in scored.pool])
        out.append(Example(q, scored, rows, labels, [c.paper.paper.id for c in scored.pool],
                           sources[i] if sources else "dev", reader.coverage(intent, scored.pool)))
    return out


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


def sentence_data(examples: Sequence[Example]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows of every part of every answerable question, labels, and each row's question index."""
    xs, ys, groups = [], [], []
    for i, ex in enumerate(examples):
        if ex.question.type == "unanswerable" or not ex.labels.any():
            continue
        for rows in ex.rows:
            xs.append(rows)
            ys.append(ex.labels)
            groups.append(np.full(len(rows), i))
    return np.vstack(xs), np.concatenate(ys), np.concatenate(groups)


def out_of_fold(examples: Sequence[Example], c: float, seed: int = 7) -> list[list[np.ndarray]]:
    """Each question's part probabilities from a sentence model that never saw it."""
    folds = np.random.default_rng(seed).permutation(len(examples)) % FOLDS
    x, y, groups = sentence_data(examples)
    probs: list[list[np.ndarray]] = [[] for _ in examples]
    for fold in range(FOLDS):
        train = ~np.isin(groups, np.flatnonzero(folds == fold))
        model = fit_logistic(x[train], y[train], FEATURES, c)
        for i in np.flatnonzero(folds == fold):
            probs[i] = [model.probability(rows) for rows in examples[int(i)].rows]
    return probs


def with_probabilities(ex: Example, probs: list[np.ndarray]) -> Scored:
    s = ex.scored
    return Scored(s.intent, s.pool, tuple(probs), s.holding, s.unknown, s.missing, s.topic_share, s.peaks)


def top1(examples: Sequence[Example], probs: Sequence[Sequence[np.ndarray]]) -> float:
    """Share of answerable questions (with a labelled sentence) whose best sentence states a fact."""
    hits = [bool(ex.labels[int(np.argmax(p[0]))]) for ex, p in zip(examples, probs, strict=True)
            if ex.question.type != "unanswerable" and ex.labels.any() and p and p[0].size]
    return sum(hits) / max(1, len(hits))


def choose_answerable(p: np.ndarray, answerable: np.ndarray, max_false: float) -> tuple[float, dict[str, float]]:
    """The highest threshold that declines at most ``max_false`` of the answerable questions."""
    best = 0.0
    for t in np.unique(np.round(p, 4)):
        if float(np.mean(p[answerable] < t)) <= max_false:
            best = max(best, float(t))
    declined = float(np.mean(p[~answerable] < best)) if (~answerable).any() else 0.0
    return best, {"false_abstentions": round(float(np.mean(p[answerable] < best)), 4),
                  "unanswerable_declined": round(declined, 4)}


def lists(examples: Sequence[Example]) -> list[int]:
    """The questions answered as a list of papers (as the composer reads them) that have gold
    papers: what the paper model learns from."""
    return [i for i, ex in enumerate(examples)
            if ex.question.type != "unanswerable" and ex.question.gold_papers and ex.scored.intent.lists_papers]


def paper_data(ex: Example, probs: Sequence[np.ndarray]) -> tuple[list[str], np.ndarray, np.ndarray]:
    ids, rows = paper_rows(ex.scored.pool, probs[0], ex.coverage)
    return ids, rows, np.array([pid in ex.question.gold_papers for pid in ids], dtype=int)


def list_f1(picked: Sequence[tuple[Example, list[str], np.ndarray]], threshold: float,
            cap: int = 8) -> dict[str, float]:
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
    folds = np.random.default_rng(5).permutation(len(chosen)) % FOLDS
    held_out: dict[int, np.ndarray] = {}
    for fold in range(FOLDS):
        train = [i for i, f in zip(chosen, folds, strict=True) if f != fold]
        model = fit_logistic(np.vstack([data[i][1] for i in train]), np.concatenate([data[i][2] for i in train]),
                             PAPER, c)
        held_out |= {i: model.probability(data[i][1]) for i, f in zip(chosen, folds, strict=True) if f == fold}
    graded = [(examples[i], data[i][0], held_out[i]) for i in chosen
              if examples[i].question.type == "list" and (choose_on == "pooled" or examples[i].source == "dev")]
    threshold = float(max(np.linspace(0.05, 0.95, 19), key=lambda t: list_f1(graded, t)["f1"])) if graded else 0.5
    model = fit_logistic(np.vstack([data[i][1] for i in chosen]), np.concatenate([data[i][2] for i in chosen]),
                         PAPER, c)
    return model, threshold, {"questions": len(chosen), "list_questions": len(graded),
                              "out_of_fold": list_f1(graded, threshold)}


SOURCES = ("dev", "generated", "pooled")


def source_of(path: Path) -> str:
    """Template questions (eval/generate_training.py) are "generated"; anything else is a
    hand-written question set, treated as dev."""
    return "generated" if path.resolve() == GENERATED.resolve() else "dev"


def train(engine: Engine, paths: Sequence[Path], c: float = 0.3, max_false: float = 0.03,
          tick: Callable[[], None] = lambda: None, out: Path = MODEL_FILE, choose_on: str = "dev") -> dict[str, Any]:
    """Fit the reader on ``paths`` and write ``out``. Refuses the test split's questions, under
    any file name (eval.dataset.refuse_test)."""
    started = time.time()
    loaded = [(q, source_of(path)) for path in paths for q in load(path) if q.type != "metadata"]
    refuse_test([q for q, _ in loaded], "trained on")
    examples = collect(engine, [q for q, _ in loaded], tick, [s for _, s in loaded])
    trained = fit(examples, c, max_false, out, choose_on)
    trained["data"] = [_shown(p) for p in paths]
    trained["seconds"] = round(time.time() - started, 1)
    trained["weights_sha256"] = weights_hash(ReaderModel.load(out))
    ReaderModel.load(out).with_trained(trained).save(out)
    return trained


def weights_hash(model: ReaderModel) -> str:
    """The hash of what the reader reads with (both models and the thresholds), kept in the
    manifest: weights edited by hand no longer match it."""
    data = {"sentence": model.sentence.to_dict(), "answerable": model.answerable.to_dict(),
            **({"qualifies": model.qualifies.to_dict()} if model.qualifies is not None else {}),
            "thresholds": {k: round(v, 6) for k, v in sorted(model.thresholds.items())}}
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:16]


def _shown(path: Path) -> str:
    """The project-relative path of a shipped dataset; a user's own file by its full path."""
    resolved = path.resolve()
    root = DATASETS.parent.parent.resolve()
    return str(resolved.relative_to(root)) if resolved.is_relative_to(root) else str(resolved)


def gate_probabilities(examples: Sequence[Example], probs: Sequence[Sequence[np.ndarray]],
                       c: float, seeds: Sequence[int] = GATE_SEEDS) -> tuple[np.ndarray, np.ndarray]:
    """Each question's out-of-fold answerability probability (averaged over ``seeds``' fold
    splits), and its evidence rows. One split's threshold swings from 0.24 to 0.35 with the seed
    (3% of answerable dev questions is 8 questions); averaging ten is steadier but declines the
    small test libraries' plain questions under the fake embedder (docs/evaluation.md)."""
    ev = np.vstack([evidence_features(with_probabilities(ex, list(p))) for ex, p in zip(examples, probs, strict=True)])
    answerable = np.array([ex.question.type != "unanswerable" for ex in examples])
    p_gate = np.zeros(len(examples))
    for seed in seeds:
        folds = np.random.default_rng(seed).permutation(len(examples)) % FOLDS
        for fold in range(FOLDS):
            held = folds == fold
            p_gate[held] += fit_logistic(ev[~held], answerable[~held].astype(int), EVIDENCE, c).probability(ev[held])
    return p_gate / len(seeds), ev


def figures_by_source(examples: Sequence[Example], probs: Sequence[Sequence[np.ndarray]], p_gate: np.ndarray,
                      threshold: float) -> dict[str, dict[str, Any]]:
    """The out-of-fold figures at ``threshold`` for dev alone, generated alone and pooled."""
    answerable = np.array([ex.question.type != "unanswerable" for ex in examples])
    out: dict[str, dict[str, Any]] = {}
    for name in SOURCES:
        keep = np.array([name == "pooled" or ex.source == name for ex in examples])
        if not keep.any():
            continue
        ans, una = keep & answerable, keep & ~answerable
        out[name] = {
            "questions": int(keep.sum()), "answerable": int(ans.sum()), "unanswerable": int(una.sum()),
            "top1_states_a_fact": round(top1([e for e, k in zip(examples, keep, strict=True) if k],
                                             [p for p, k in zip(probs, keep, strict=True) if k]), 4),
            "false_abstentions": round(float(np.mean(p_gate[ans] < threshold)), 4) if ans.any() else None,
            "unanswerable_declined": round(float(np.mean(p_gate[una] < threshold)), 4) if una.any() else None}
    return out


def fit(examples: Sequence[Example], c: float, max_false: float, out: Path, choose_on: str = "dev") -> dict[str, Any]:
    """Fit both models on collected examples, choose the thresholds on the out-of-fold
    predictions of ``choose_on`` ("dev": the hand-written questions; "pooled": all), write ``out``."""
    probs = out_of_fold(examples, c)
    x, y, _ = sentence_data(examples)
    sentence = fit_logistic(x, y, FEATURES, c)
    p_gate, ev = gate_probabilities(examples, probs, c)
    answerable = np.array([ex.question.type != "unanswerable" for ex in examples])
    gate = fit_logistic(ev, answerable.astype(int), EVIDENCE, c)
    chosen = np.array([choose_on == "pooled" or ex.source == "dev" for ex in examples])
    if not chosen.any():  # only generated questions: nothing else to choose on
        chosen[:], choose_on = True, "pooled"
    threshold, _ = choose_answerable(p_gate[chosen], answerable[chosen], max_false)
    qualifies, list_threshold, listed = fit_qualifies(examples, probs, c, choose_on)
    by_source = figures_by_source(examples, probs, p_gate, threshold)
    trained = {"questions": len(examples), "sentences": int(len(y)), "positive": int(y.sum()), "c": c,
               "date": time.strftime("%Y-%m-%d"), "thresholds_chosen_on": choose_on,
               "max_false_abstentions": max_false,
               "cross_validated": by_source.get("dev", by_source["pooled"]),
               "cross_validated_by_source": by_source, "lists": listed}
    model = ReaderModel(sentence, gate, {"answerable": threshold, "qualifies": list_threshold}, trained, qualifies)
    model.save(out)
    return trained
