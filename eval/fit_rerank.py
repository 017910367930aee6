"""Fit how answering reorders with the cross-encoder (rag.answer.rerank), on dev, out of fold.

    .venv/bin/python -m eval.fit_rerank --fold-models DIR0 DIR1 [--write rag/assets/cross_encoder.json]

Each ``DIR<k>`` holds a cross-encoder trained with dev's k-th fold held out
(``python -m eval.train_cross_encoder --folds N --hold-out-fold k --out DIR<k>``). Every dev
question of fold k is scored by fold k's model only: the reader's best candidates of each part
(eval/training/pools.jsonl, whose probabilities are the fitted reader's, out of fold too) are read
by the cross-encoder, and the scores are written to eval/training/rerank_scores.jsonl (the data
the fit reads; ``--scores`` reuses them). Then ``k`` (how many of the best are reordered) and
``weight`` (on the cross-encoder's score, against the reader's log-odds) are chosen for the share
of dev's answerable parts whose first sentence states a key fact; ties go to the smaller k and
weight. The figures (reader alone, cross-encoder alone, both) are printed and, with ``--write``,
kept in the manifest with the choice, which is what answering reads. Because k and the weight are
chosen on the very parts they are scored on, ``chosen_on_other_folds`` measures them honestly:
each fold scored with the k and weight chosen on the others."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from eval.train_cross_encoder import RERANK, dev_folds
from eval.training.pools import OUT as POOLS
from rag.answer.rerank import asked, reorder
from rag.settings import PROJECT_ROOT

SCORES = PROJECT_ROOT / "eval" / "training" / "rerank_scores.jsonl"
KS = (2, 3, 4, 5, 6, 8)
WEIGHTS = tuple(round(w, 2) for w in np.arange(0.0, 4.01, 0.1))
ALONE = 1e6  # a weight at which the cross-encoder alone orders the k


def dev_parts(pools: Path = POOLS) -> list[dict]:
    """Dev's answerable parts that have a labelled candidate, with their best RERANK candidates."""
    out = []
    for line in pools.read_text(encoding="utf-8").splitlines():
        r = json.loads(line)
        if r["source"] != "dev" or r["type"] == "unanswerable":
            continue
        for i, part in enumerate(r["parts"]):
            kept = part["candidates"][:RERANK]
            if any(c["label"] for c in part["candidates"]):
                out.append({"qid": r["qid"], "part": i, "asked": asked(r["question"], part["text"], len(r["parts"])),
                            "texts": [c["text"] for c in kept], "labels": [c["label"] for c in kept],
                            "p": [c["p"] for c in kept]})
    return out


def score(parts: Sequence[dict], models: Sequence[Path], folds_of: int = 0,
          log=print) -> list[dict]:  # type: ignore[assignment]
    """Fold k's parts scored by ``models[k]`` (``folds_of``: how many folds dev was cut into,
    when fewer models than folds are given; by default one a model)."""
    from rag.answer.cross_encoder import HEADS, MANIFEST_FILE, MODEL_FILE, CrossEncoder

    folds = dev_folds(folds_of or len(models))
    out = []
    for k, folder in enumerate(models):
        encoder = CrossEncoder(folder / MODEL_FILE.name, folder / MANIFEST_FILE.name, threads=2)
        held = [p for p in parts if p["qid"] in folds[k]]
        log(f"fold {k}: {len(held)} parts, model {folder}")
        for p in held:
            logits = encoder.logits(p["asked"], p["texts"])[:, HEADS.index("answers")]
            out.append({"qid": p["qid"], "part": p["part"], "fold": k, "cross": [round(float(x), 4) for x in logits]})
    return out


def top1(parts: Sequence[dict], cross: dict[tuple[str, int], np.ndarray], k: int, weight: float) -> np.ndarray:
    """Per part: does the first sentence, reordered so, state a key fact?"""
    hits = []
    for p in parts:
        probs, labels = np.array(p["p"]), np.array(p["labels"])
        c = cross[(p["qid"], p["part"])]
        n = min(k, len(probs))
        new = probs.copy()
        if n >= 2 and weight:
            new[:n] = reorder(probs[:n], c[:n], weight)
        hits.append(bool(labels[int(np.argmax(new))]))
    return np.array(hits)


def choose(parts: Sequence[dict], cross: dict[tuple[str, int], np.ndarray]) -> tuple[int, float, dict]:
    """The k and weight with the best dev top-1 (ties to the smaller), and the whole grid."""
    grid = {(k, w): float(top1(parts, cross, k, w).mean()) for k in KS for w in WEIGHTS}
    best = max(grid.values())
    k, weight = min(key for key, v in grid.items() if v == best)
    return k, weight, grid


def flips(base: np.ndarray, chosen: np.ndarray) -> dict[str, int]:
    return {"wrong_to_right": int((chosen & ~base).sum()), "right_to_wrong": int((~chosen & base).sum())}


def nested(parts: Sequence[dict], cross: dict[tuple[str, int], np.ndarray], fold: dict) -> dict[str, Any]:
    """k and weight chosen on the other folds, measured on each fold in turn: what the choice
    is worth on questions it was not made on (the fitted figure above is chosen in sample)."""
    folds = sorted(set(fold.values()))
    if len(folds) < 2:
        return {}
    bases, boths = [], []
    for f in folds:
        k, weight, _ = choose([p for p in parts if fold[(p["qid"], p["part"])] != f], cross)
        held = [p for p in parts if fold[(p["qid"], p["part"])] == f]
        bases.append(top1(held, cross, 1, 0.0))
        boths.append(top1(held, cross, k, weight))
    base, both = np.concatenate(bases), np.concatenate(boths)
    return {"reader": round(float(base.mean()), 4), "both": round(float(both.mean()), 4)} | flips(base, both)


def fit(parts: Sequence[dict], scores: Sequence[dict]) -> dict[str, Any]:
    cross = {(s["qid"], s["part"]): np.array(s["cross"]) for s in scores}
    fold = {(s["qid"], s["part"]): s["fold"] for s in scores}
    parts = [p for p in parts if (p["qid"], p["part"]) in cross]
    base = top1(parts, cross, 1, 0.0)
    k, weight, grid = choose(parts, cross)
    chosen = top1(parts, cross, k, weight)
    alone = top1(parts, cross, RERANK, ALONE)
    return {"k": k, "weight": weight, "fitted_on": f"dev, out of fold ({len({s['fold'] for s in scores})} folds)",
            "dev_parts": len(parts),
            "dev_top1": {"reader": round(float(base.mean()), 4),
                         "cross_encoder_alone_top8": round(float(alone.mean()), 4),
                         "both": round(float(chosen.mean()), 4),
                         "oracle_top8": round(float(np.mean([any(p["labels"]) for p in parts])), 4)},
            "flips": flips(base, chosen),
            "chosen_on_other_folds": nested(parts, cross, fold),
            "by_k": {str(kk): max(v for (k2, _), v in grid.items() if k2 == kk) for kk in KS}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fold-models", type=Path, nargs="*", default=[])
    parser.add_argument("--folds", type=int, default=0, help="folds dev was cut into (default: one a model)")
    parser.add_argument("--scores", type=Path, default=SCORES)
    parser.add_argument("--write", type=Path, help="the manifest to keep the fitted reordering in")
    args = parser.parse_args()
    parts = dev_parts()
    if args.fold_models:
        scores = score(parts, args.fold_models, args.folds)
        args.scores.write_text("".join(json.dumps(s) + "\n" for s in scores), encoding="utf-8")
    else:
        scores = [json.loads(line) for line in args.scores.read_text(encoding="utf-8").splitlines()]
    fitted = fit(parts, scores) | {"command": " ".join(["python -m eval.fit_rerank", *sys.argv[1:]])}
    print(json.dumps(fitted, indent=1))
    if args.write:
        manifest = json.loads(args.write.read_text(encoding="utf-8"))
        manifest["rerank"] = fitted
        args.write.write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
