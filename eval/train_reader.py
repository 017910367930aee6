"""``rag train-reader``: fit the reader's models (sentences, answerability, list papers), write reader.json.

Data: the dev split (never test) and the generated questions of
eval/datasets/train_generated.jsonl. For every question the engine retrieves as it does when
answering; each candidate sentence of the retrieved abstracts is labelled by whether it states a
key fact of the question (eval.metrics.fact_state) in a gold paper. The sentence model is a
logistic regression over rag.answer.features; the answerability model one over the evidence
features of rag.answer.reader, fitted on out-of-fold sentence probabilities (5 folds by question),
so it learns from scores like the ones it will see. Thresholds are chosen on those out-of-fold
predictions of the hand-written (dev) questions alone: answerability for at most
``--max-false-abstentions`` of answerable dev questions declined. The paper model of list
answers (``rag.answer.qualifies``) is fitted on the questions answered as lists, its threshold
for the best F1 of listed papers against gold lists, out of fold. The generated questions help
fit the weights, but they are easier than dev (templates), so a threshold or a figure taken on
them would flatter the reader: the out-of-fold figures are reported for dev alone, generated alone and pooled.

The test split is refused by its content (eval.dataset.refuse_test), whatever the file is called."""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from eval.dataset import DATASETS, SPLITS, Question, load, refuse_test
from eval.generate_training import GATE_ONLY, SENTENCE_ONLY
from eval.logistic import FOLDS, fit_logistic, folds_of
from eval.metrics import countable_facts, fact_state
from eval.train_lists import fit_qualifies
from rag.answer.cross_encoder import sha256_of
from rag.answer.features import FEATURES
from rag.answer.model import MODEL_FILE, ReaderModel
from rag.answer.reader import EVIDENCE, FittedReader, Scored, evidence_features
from rag.engine import Engine
from rag.retrieve.keyword import TermStats
from rag.retrieve.query import clean_question
from rag.stages.retrieve import find, gather
from rag.stages.route import route

GENERATED = DATASETS / "train_generated.jsonl"
DEFAULT_DATA = (SPLITS["dev"], GENERATED)  # what `rag train-reader` reads with no --dataset


@dataclass
class Example:
    """One question, retrieved and featurised: rows per part, labels per candidate."""

    question: Question
    scored: Scored  # probabilities filled in later (out of fold)
    rows: list[np.ndarray]
    labels: np.ndarray
    papers: list[str]  # the candidates' paper ids
    source: str = "dev"  # "dev" (hand-written questions) or "generated" (template questions)


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
                           sources[i] if sources else "dev"))
    return out


def sentence_data(examples: Sequence[Example]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows of every part of every answerable question, labels, and each row's question index.
    Questions tagged ``gate-only`` (eval.generate_training) teach the answerability gate alone."""
    xs, ys, groups = [], [], []
    for i, ex in enumerate(examples):
        if ex.question.type == "unanswerable" or not ex.labels.any() or GATE_ONLY in ex.question.tags:
            continue
        for rows in ex.rows:
            xs.append(rows)
            ys.append(ex.labels)
            groups.append(np.full(len(rows), i))
    return np.vstack(xs), np.concatenate(ys), np.concatenate(groups)


def out_of_fold(examples: Sequence[Example], c: float, seed: int = 7) -> list[list[np.ndarray]]:
    """Each question's part probabilities from a sentence model that never saw it."""
    folds = folds_of([ex.question.id for ex in examples], seed)
    x, y, groups = sentence_data(examples)
    probs: list[list[np.ndarray]] = [[] for _ in examples]
    for fold in range(FOLDS):
        train = ~np.isin(groups, np.flatnonzero(folds == fold))
        model = fit_logistic(x[train], y[train], FEATURES, c)
        for i in np.flatnonzero(folds == fold):
            probs[i] = [model.probability(rows) for rows in examples[int(i)].rows]
    return probs


def with_probabilities(ex: Example, probs: Sequence[np.ndarray]) -> Scored:
    return replace(ex.scored, probabilities=tuple(probs))


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
    trained["data_sha256"] = {_shown(p): sha256_of(p) for p in paths}
    default = [p.resolve() for p in paths] == [p.resolve() for p in DEFAULT_DATA]
    trained["command"] = "rag train-reader" + ("" if default else "".join(f" --dataset {_shown(p)}" for p in paths))
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
                       c: float) -> tuple[np.ndarray, np.ndarray]:
    """Each question's out-of-fold answerability probability, and its evidence rows. (The
    threshold this chooses moves from 0.24 to 0.35 with the fold seed; averaging ten splits was
    measured and not kept: docs/evaluation.md.)"""
    ev = np.vstack([evidence_features(with_probabilities(ex, p)) for ex, p in zip(examples, probs, strict=True)])
    answerable = np.array([ex.question.type != "unanswerable" for ex in examples])
    folds = folds_of([ex.question.id for ex in examples], 11)
    gated = gates(examples)
    p_gate = np.zeros(len(examples))
    for fold in range(FOLDS):
        held = folds == fold
        fitted = ~held & gated
        p_gate[held] = fit_logistic(ev[fitted], answerable[fitted].astype(int), EVIDENCE, c).probability(ev[held])
    return p_gate, ev


def gates(examples: Sequence[Example]) -> np.ndarray:
    """Which questions teach the answerability gate: not those tagged ``sentence-only``
    (eval.generate_training), which teach which sentence answers alone."""
    return np.array([SENTENCE_ONLY not in ex.question.tags for ex in examples])


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
    gated = gates(examples)
    gate = fit_logistic(ev[gated], answerable[gated].astype(int), EVIDENCE, c)
    chosen = np.array([choose_on == "pooled" or ex.source == "dev" for ex in examples]) & gated
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
