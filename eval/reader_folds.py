"""Whole answers on dev, out of fold: each dev question answered by a reader that never saw it.

``rag eval --split dev`` answers dev with the shipped reader, which ``rag train-reader`` fitted
on dev itself, so its figures are in sample (on 2026-12-07 key facts read 0.773 in sample and
0.712 out of fold; test read 0.703). Here dev is cut into the folds the cross-encoder's fold
models were trained on (``eval.train_cross_encoder.dev_folds``); for each fold the reader is
fitted, as ``rag train-reader`` fits it, on the other folds and the generated questions, and the
fold's questions are answered with it. With ``--cross-encoder-folds``, each fold is also read by
the cross-encoder trained without it, reordering with the shipped ``k`` and ``weight``; without,
by the shipped cross-encoder (which saw every dev question: folds.json says so). The merged run
pairs with any dev run in ``rag eval compare``.

    .venv/bin/python -m eval.reader_folds --out DIR [--folds 2] [--cross-encoder-folds DIR0 DIR1]"""

from __future__ import annotations

import argparse
import json
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from eval.dataset import SPLITS, load
from eval.run import run, summarise
from eval.train_cross_encoder import dev_folds
from eval.train_reader import DEFAULT_DATA, collect, fit, source_of
from rag.answer.cross_encoder import MANIFEST_FILE, MODEL_FILE
from rag.answer.features import FEATURES
from rag.answer.model import ReaderModel
from rag.answer.reader import EVIDENCE, load_model
from rag.engine import build_engine
from rag.settings import Settings


def held_out(examples: Sequence[Any], fold: set[str]) -> list[Any]:
    """The examples a fold's reader is fitted on: every generated one, and dev's outside the fold."""
    return [ex for ex in examples if ex.source != "dev" or ex.question.id not in fold]


def merged(runs: Sequence[Sequence[Mapping[str, Any]]], order: Sequence[str]) -> list[Mapping[str, Any]]:
    """The fold runs' rows as one run, in dev's order; a question answered twice is refused."""
    by_id: dict[str, Mapping[str, Any]] = {}
    for rows in runs:
        for row in rows:
            if row["id"] in by_id:
                raise ValueError(f"{row['id']} was answered in two folds")
            by_id[row["id"]] = row
    return [by_id[q] for q in order if q in by_id]


def _cross_encoder(fold_model: Path, into: Path) -> Path:
    """A copy of a fold's cross-encoder that reorders as the shipped one does (its k and weight)."""
    into.mkdir(parents=True, exist_ok=True)
    shutil.copy(fold_model / MODEL_FILE.name, into / MODEL_FILE.name)
    manifest = json.loads((fold_model / MANIFEST_FILE.name).read_text(encoding="utf-8"))
    shipped = json.loads(MANIFEST_FILE.read_text(encoding="utf-8")).get("rerank") or {}
    manifest["rerank"] = {"k": shipped.get("k"), "weight": shipped.get("weight"),
                          "fitted_on": "copied from the shipped manifest"} if shipped else None
    (into / MANIFEST_FILE.name).write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    return into


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--folds", type=int, default=2)
    parser.add_argument("--cross-encoder-folds", type=Path, nargs="*", default=[])
    parser.add_argument("--data-dir", type=Path)
    args = parser.parse_args()
    if args.cross_encoder_folds and len(args.cross_encoder_folds) != args.folds:
        parser.error(f"--cross-encoder-folds needs one model per fold ({args.folds})")
    settings = Settings(data_dir=args.data_dir) if args.data_dir else Settings()
    folds = dev_folds(args.folds)
    loaded = [(q, source_of(path)) for path in DEFAULT_DATA for q in load(path) if q.type != "metadata"]
    engine = build_engine(settings, reader_model=ReaderModel.blank(FEATURES, EVIDENCE))
    try:
        examples = collect(engine, [q for q, _ in loaded], lambda: None, [s for _, s in loaded])
    finally:
        engine.close()
    dev = load(SPLITS["dev"])
    args.out.mkdir(parents=True, exist_ok=True)
    runs = []
    for k, fold in enumerate(folds):
        weights = args.out / f"reader-fold{k}.json"
        fit(held_out(examples, fold), 0.3, 0.03, weights)
        answer = settings.answer
        if args.cross_encoder_folds:
            ce = _cross_encoder(args.cross_encoder_folds[k], args.out / f"cross-encoder-fold{k}")
            answer = answer.model_copy(update={"cross_encoder_dir": ce})
        engine = build_engine(settings.model_copy(update={"answer": answer}), reader_model=load_model(weights))
        try:
            run(engine, [q for q in dev if q.id in fold], args.out / f"fold{k}", label=f"dev fold {k}")
        finally:
            engine.close()
        lines = (args.out / f"fold{k}" / "results.jsonl").read_text(encoding="utf-8").splitlines()
        runs.append([json.loads(line) for line in lines if line])
    rows = merged(runs, [q.id for q in dev])
    (args.out / "results.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                                            encoding="utf-8")
    (args.out / "summary.json").write_text(json.dumps(summarise(rows), indent=1) + "\n", encoding="utf-8")
    shipped = "the shipped one (it saw every dev question)"
    note = {"folds": args.folds, "rows": len(rows), "readers": "fitted without their fold (eval.reader_folds)",
            "cross_encoder": [str(p) for p in args.cross_encoder_folds] or shipped}
    (args.out / "folds.json").write_text(json.dumps(note, indent=1) + "\n", encoding="utf-8")
    print(f"{len(rows)} dev answers, each from a reader that never saw it, in {args.out}")


if __name__ == "__main__":
    main()
