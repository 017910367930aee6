"""``rag train-reader``: fit the reader's two models and write rag/assets/reader.json.

Data: the dev split (never test) and the generated questions of
eval/datasets/train_generated.jsonl. For every question the engine retrieves as it does when
answering; each candidate sentence of the retrieved abstracts is labelled by whether it states a
key fact of the question (eval.metrics.fact_state) in a gold paper. The sentence model is a
logistic regression over rag.answer.features; the answerability model one over the evidence
features of rag.answer.reader, fitted on out-of-fold sentence probabilities (5 folds by question),
so it learns from scores like the ones it will see. Thresholds are chosen on those out-of-fold
predictions: answerability for at most ``--max-false-abstentions`` of answerable dev questions
declined, the list threshold for the best F1 of listed papers against gold lists."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from eval.dataset import DATASETS, Question, load
from eval.metrics import countable_facts, fact_state
from rag.answer.features import FEATURES, part_features
from rag.answer.model import MODEL_FILE, Logistic, ReaderModel
from rag.answer.reader import EVIDENCE, FittedReader, Scored, evidence_features
from rag.engine import Engine
from rag.retrieve.keyword import TermStats
from rag.retrieve.query import clean_question
from rag.stages.retrieve import find, gather
from rag.stages.route import route

GENERATED = DATASETS / "train_generated.jsonl"
FOLDS = 5


@dataclass
class Example:
    """One question, retrieved and featurised: rows per part, labels per candidate."""

    question: Question
    scored: Scored  # probabilities filled in later (out of fold)
    rows: list[np.ndarray]
    labels: np.ndarray
    papers: list[str]  # the candidates' paper ids


def label(question: Question, text: str, paper_id: str) -> bool:
    if question.gold_papers and paper_id not in question.gold_papers:
        return False
    facts = countable_facts(question.key_facts, question.question)
    return any(fact_state(f, text) == "stated" for f in facts)


def collect(engine: Engine, questions: Sequence[Question], tick: Callable[[], None]) -> list[Example]:
    reader = FittedReader(engine.library.embedder, engine.settings.answer, TermStats(engine.library.catalog),
                          ReaderModel.blank(FEATURES, EVIDENCE))
    out = []
    for q in questions:
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
        vectors = reader.embedder.embed([p.text for p in intent.parts] + [c.text for c in scored.pool])
        qv, sv = vectors[: len(intent.parts)], vectors[len(intent.parts):]
        rows = [part_features(intent, part, scored.pool, sv @ v, reader.idf)
                for part, v in zip(intent.parts, qv, strict=True)]
        labels = np.array([label(q, c.text, c.paper.paper.id) for c in scored.pool])
        out.append(Example(q, scored, rows, labels, [c.paper.paper.id for c in scored.pool]))
    return out


def fit_logistic(x: np.ndarray, y: np.ndarray, names: Sequence[str], c: float) -> Logistic:
    from sklearn.linear_model import LogisticRegression

    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale == 0] = 1.0
    model = LogisticRegression(C=c, max_iter=2000, class_weight="balanced")
    model.fit((x - mean) / scale, y)
    return Logistic(tuple(names), mean, scale, model.coef_[0], float(model.intercept_[0]))


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


def choose_list(examples: Sequence[Example], probs: Sequence[Sequence[np.ndarray]]) -> float:
    """The paper threshold of list answers with the best F1 of listed papers against gold."""
    lists = [(ex, p) for ex, p in zip(examples, probs, strict=True) if ex.question.type == "list"]

    def f1(t: float) -> float:
        tp = fp = fn = 0
        for ex, p in lists:
            best: dict[str, float] = {}
            for pid, value in zip(ex.papers, p[0], strict=True):
                best[pid] = max(best.get(pid, 0.0), float(value))
            listed = {pid for pid, v in best.items() if v >= t}
            gold = set(ex.question.gold_papers)
            tp, fp, fn = tp + len(listed & gold), fp + len(listed - gold), fn + len(gold - listed)
        return 2 * tp / max(1, 2 * tp + fp + fn)

    return max(np.linspace(0.05, 0.95, 19), key=f1) if lists else 0.5


def train(engine: Engine, paths: Sequence[Path], c: float = 0.3, max_false: float = 0.03,
          tick: Callable[[], None] = lambda: None, out: Path = MODEL_FILE) -> dict[str, Any]:
    started = time.time()
    questions = [q for path in paths for q in load(path) if q.type != "metadata"]
    examples = collect(engine, questions, tick)
    trained = fit(examples, c, max_false, out)
    trained["data"] = [_shown(p) for p in paths]
    trained["seconds"] = round(time.time() - started, 1)
    ReaderModel.load(out).with_trained(trained).save(out)
    return trained


def _shown(path: Path) -> str:
    """The project-relative path of a shipped dataset; a user's own file by its full path."""
    resolved = path.resolve()
    root = DATASETS.parent.parent.resolve()
    return str(resolved.relative_to(root)) if resolved.is_relative_to(root) else str(resolved)


def fit(examples: Sequence[Example], c: float, max_false: float, out: Path) -> dict[str, Any]:
    """Fit both models on collected examples, choose the thresholds out of fold, write ``out``."""
    probs = out_of_fold(examples, c)
    x, y, _ = sentence_data(examples)
    sentence = fit_logistic(x, y, FEATURES, c)
    ev = np.vstack([evidence_features(with_probabilities(ex, p)) for ex, p in zip(examples, probs, strict=True)])
    answerable = np.array([ex.question.type != "unanswerable" for ex in examples])
    gate = fit_logistic(ev, answerable.astype(int), EVIDENCE, c)
    folds = np.random.default_rng(11).permutation(len(examples)) % FOLDS
    p_gate = np.zeros(len(examples))
    for fold in range(FOLDS):
        held = folds == fold
        p_gate[held] = fit_logistic(ev[~held], answerable[~held].astype(int), EVIDENCE, c).probability(ev[held])
    threshold, gate_figures = choose_answerable(p_gate, answerable, max_false)
    trained = {"questions": len(examples), "sentences": int(len(y)), "positive": int(y.sum()), "c": c,
               "date": time.strftime("%Y-%m-%d"),
               "cross_validated": {"top1_states_a_fact": round(top1(examples, probs), 4), **gate_figures}}
    model = ReaderModel(sentence, gate, {"answerable": threshold, "list": float(choose_list(examples, probs))},
                        trained)
    model.save(out)
    return trained
