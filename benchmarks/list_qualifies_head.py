"""Would the cross-encoder's ``qualifies`` head help the paper model of list answers? Dev, out of fold.
(``--head answers``: its ``answers`` score of each paper's best sentence instead.)

The paper model (rag.answer.qualifies) decides which retrieved papers a list names, from seven
features fitted by ``rag train-reader``. Here each list question's papers also get the
cross-encoder's ``qualifies`` score of (question, abstract), and its gap to the best paper's,
from a model that never saw the question: a dev question is scored by the fold model trained
without its fold (``python -m eval.train_cross_encoder --folds N --hold-out-fold K --out DIR``),
a generated one by the first. The paper model is then fitted out of fold by the same
``eval.train_lists.paper_out_of_fold`` that ``rag train-reader`` uses (threshold for the best F1
on its own out-of-fold predictions of dev's list questions), with the seven features, with the
two cross-encoder features alone, and with all nine, over several fold seeds.

    .venv/bin/python benchmarks/list_qualifies_head.py --fold-models DIR0 DIR1 [--data-dir .rag-data]"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from common import indexed_settings, reader_examples

from eval.train_cross_encoder import dev_folds
from eval.train_lists import lists, paper_data, paper_out_of_fold
from eval.train_reader import out_of_fold
from rag.answer.cross_encoder import HEADS, MANIFEST_FILE, MODEL_FILE, CrossEncoder
from rag.answer.qualifies import PAPER

CROSS = ("cross", "cross_gap")
SEEDS = (5, 6, 7, 8)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fold-models", type=Path, nargs="+", required=True)
    parser.add_argument("--data-dir", type=Path)
    parser.add_argument("--head", choices=("qualifies", "answers"), default="qualifies",
                        help="qualifies: (question, abstract); answers: the best (question, sentence) of each paper")
    args = parser.parse_args()
    with indexed_settings(args.data_dir) as settings:
        examples = reader_examples(settings)
    probs = out_of_fold(examples, 0.3)
    folds = dev_folds(len(args.fold_models))
    encoders = [CrossEncoder(d / MODEL_FILE.name, d / MANIFEST_FILE.name, threads=2) for d in args.fold_models]
    chosen = lists(examples)
    data = {}
    for i in chosen:
        ex = examples[i]
        ids, rows, y = paper_data(ex, probs[i])
        text = {c.paper.paper.id: c.paper.paper.text for c in ex.scored.pool}
        k = next((f for f, held in enumerate(folds) if ex.question.id in held), 0) if ex.source == "dev" else 0
        if args.head == "qualifies":
            cross = encoders[k].logits(ex.question.question, [text[p] for p in ids])[:, HEADS.index("qualifies")]
        else:  # each paper's best sentence as the answers head reads it
            said = encoders[k].logits(ex.question.question, [c.text for c in ex.scored.pool])[:, HEADS.index("answers")]
            best = {p: -np.inf for p in ids}
            for c, v in zip(ex.scored.pool, said, strict=True):
                best[c.paper.paper.id] = max(best[c.paper.paper.id], float(v))
            cross = np.array([best[p] for p in ids])
        data[i] = (ids, np.column_stack([rows, cross, cross - cross.max()]), y)
    every = list(range(len(PAPER) + len(CROSS)))
    arms = {"paper model (7 features)": (every[: len(PAPER)], PAPER),
            "cross-encoder alone (2)": (every[len(PAPER):], CROSS),
            "both (9)": (every, PAPER + CROSS)}
    print(f"{len(chosen)} questions answered as lists fit the model; graded on dev's list questions, out of fold")
    for name, (columns, names) in arms.items():
        arm = {i: (ids, rows[:, columns], y) for i, (ids, rows, y) in data.items()}
        found = [paper_out_of_fold(examples, arm, names, 0.3, seed=seed)[1] for seed in SEEDS]
        runs = [f["out_of_fold"] for f in found]
        mean = {k: round(float(np.mean([r[k] for r in runs])), 3) for k in ("precision", "recall", "f1")}
        print(f"{name:<28} F1 {mean['f1']:.3f} (seeds {[r['f1'] for r in runs]})  recall {mean['recall']:.3f}  "
              f"precision {mean['precision']:.3f}  over {found[0]['list_questions']} questions")


if __name__ == "__main__":
    main()
