"""Which model should decide "the abstracts do not answer"? The shipped logistic gate against a
random forest over the same evidence features, and a forest constrained to be monotone in the
features whose direction is known (more similarity, coverage or a held answer never lowers the
probability), on dev's out-of-fold predictions under several fold seeds.

    .venv/bin/python benchmarks/answerability_gate.py [--fold-seeds 11 101 102 103]

Same data and sentence model as `rag train-reader` (dev and the generated questions; thresholds
for at most 3% false abstentions chosen on dev's out-of-fold predictions), and then each gate on a
small invented library, where every paper is retrieved for every question: the probability it
gives to answerable detail questions and to absent ones, against its own threshold. Needs
scikit-learn (the train or test extra). Measured 2026-12-06 in docs/evaluation.md: the forest
declines more of dev's unanswerable questions, but only unconstrained (its gain comes from
non-monotone splits, such as "the question's words all occur, yet the paper is not similar",
which is how dev's near-domain questions were written), and it declines a plain answerable
detail question of the small library; the logistic gate stays."""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.common import index_rows  # noqa: E402
from eval.dataset import SPLITS, load  # noqa: E402
from eval.train_reader import (  # noqa: E402
    FOLDS,
    GENERATED,
    choose_answerable,
    collect,
    fit_logistic,
    out_of_fold,
    source_of,
    with_probabilities,
)
from rag.answer.features import FEATURES  # noqa: E402
from rag.answer.model import ReaderModel  # noqa: E402
from rag.answer.reader import EVIDENCE, evidence_features  # noqa: E402
from rag.engine import build_engine  # noqa: E402
from rag.settings import Settings  # noqa: E402
from rag.stages.retrieve import find, gather  # noqa: E402
from rag.stages.route import route  # noqa: E402

# The direction each evidence feature may move "the abstracts answer": more similarity, coverage or a
# held answer never makes an answer less likely, an unknown word or a missing name never more likely.
# The monotone forest and the bounded logistic gate read it; the shipped gate is unbounded.
RISES = frozenset({"best", "best_holding", "top_similarity", "topic_share", "names_said", "peak_cos",
                   "peak_idf_coverage", "peak_coverage", "peak_names_said", "peak_paper_says_names"})
FALLS = frozenset({"unknown_word", "missing_name", "figure_unheld"})
SIGNS = tuple(1 if n in RISES else -1 if n in FALLS else 0 for n in EVIDENCE)
LIBRARY = {  # answerable detail questions and absent ones, about a library of six papers
    "glimmer": "We propose GlimmerNet, a sparse attention method for summarising long documents. GlimmerNet "
               "reduces the memory use of attention by 41.5% on the LongDocs benchmark. GlimmerNet was "
               "trained on 64 GPUs for two days.",
    "tide": "We introduce TideRank, a retrieval model built for legal case search. On the CaseLaw benchmark "
            "TideRank improves recall by 3.2 points over the best baseline.",
    "quokka": "This paper presents Quokka, a speech recognition system for low-resource languages. Quokka is "
              "trained on 1,200 hours of transcribed audio in 14 languages.",
    "fenith": "Fenith reads satellite images to forecast glacier melt, improving over the prior best by 23%.",
    "vortex": "We present VortexNet, a graph model for road traffic forecasting on road networks.",
    "lumen": "We present Lumen, an image editing model based on latent diffusion.",
}
ASKED = [("How many GPUs was GlimmerNet trained on?", True),
         ("How many hours of audio is Quokka trained on?", True),
         ("How much does Fenith improve over the prior best?", True),
         ("By how much does TideRank improve recall?", True),
         ("How many parameters does TideRank have?", False),
         ("How many GPUs was Lumen trained on?", False),
         ("What is the best marathon training plan?", False)]


def gates() -> dict:
    from sklearn.ensemble import RandomForestClassifier

    return {
        "logistic (shipped)": lambda x, y: fit_logistic(x, y, EVIDENCE, 0.3).probability,
        "logistic bounded to RISES/FALLS": lambda x, y: fit_logistic(x, y, EVIDENCE, 0.3, SIGNS).probability,
        "forest": lambda x, y: RandomForestClassifier(100, min_samples_leaf=3, random_state=0).fit(x, y)
        .predict_proba,
        "forest, monotone": lambda x, y: RandomForestClassifier(100, min_samples_leaf=3, random_state=0,
                                                                monotonic_cst=list(SIGNS)).fit(x, y).predict_proba,
    }


def positive(predict, x: np.ndarray) -> np.ndarray:  # type: ignore[no-untyped-def]
    p = predict(x)
    return p[:, 1] if p.ndim == 2 else p


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fold-seeds", type=int, nargs="+", default=[11, 101, 102, 103])
    args = parser.parse_args()
    from sklearn.metrics import roc_auc_score

    engine = build_engine(Settings(), reader_model=ReaderModel.blank(FEATURES, EVIDENCE))
    loaded = [(q, source_of(p)) for p in (SPLITS["dev"], GENERATED) for q in load(p) if q.type != "metadata"]
    examples = collect(engine, [q for q, _ in loaded], lambda: None, [s for _, s in loaded])
    engine.close()
    probs = out_of_fold(examples, 0.3)
    ev = np.vstack([evidence_features(with_probabilities(ex, p)) for ex, p in zip(examples, probs, strict=True)])
    answerable = np.array([ex.question.type != "unanswerable" for ex in examples])
    dev = np.array([ex.source == "dev" for ex in examples])
    thresholds = {}
    print(f"dev, out of fold: {int((dev & ~answerable).sum())} unanswerable, "
          f"{int((dev & answerable).sum())} answerable")
    for name, fit in gates().items():
        for seed in args.fold_seeds:
            folds = np.random.default_rng(seed).permutation(len(examples)) % FOLDS
            p = np.zeros(len(examples))
            for fold in range(FOLDS):
                held = folds == fold
                p[held] = positive(fit(ev[~held], answerable[~held].astype(int)), ev[held])
            t, fig = choose_answerable(p[dev], answerable[dev], 0.03)
            thresholds.setdefault(name, t)
            print(f"  {name:<20} fold seed {seed:>3}: AUC {roc_auc_score(answerable[dev], p[dev]):.3f}, "
                  f"unanswerable declined {fig['unanswerable_declined']:.3f} at "
                  f"{fig['false_abstentions']:.3f} false abstentions")
    fitted = {name: fit(ev, answerable.astype(int)) for name, fit in gates().items()}
    print("a small library (every paper retrieved): P(answerable) against the gate's dev threshold")
    with tempfile.TemporaryDirectory() as folder:
        settings = index_rows(Path(folder), [{"id": pid, "title": pid, "abstract": text, "authors": ["A. Author"],
                                               "year": 2024} for pid, text in LIBRARY.items()])
        small = build_engine(settings)
        for question, should in ASKED:
            routed = route(small.library, question, question)
            evidence = gather(find(small.library, small.reranker, routed, settings.retrieval,
                                   methods=small.methods))
            row = evidence_features(small.reader.score(routed.intent, list(evidence.with_abstracts),
                                                       evidence.sentences))[None, :]
            said = "  ".join(f"{name}: {positive(model, row)[0]:.2f}/{thresholds[name]:.2f}"
                             for name, model in fitted.items())
            print(f"  {'answerable' if should else 'absent':<10} {question:<52} {said}")
        small.close()


if __name__ == "__main__":
    main()
