"""One dev run out of fold, from one run per fold model: each question's row is taken from the run
whose cross-encoder never saw it (``eval.train_cross_encoder.dev_folds``), so ``rag eval compare``
can pair it with any other dev run.

    rag eval --split dev --out RUN0   (RAG_ANSWER__CROSS_ENCODER_DIR=<fold 0's model>)
    rag eval --split dev --out RUN1   (RAG_ANSWER__CROSS_ENCODER_DIR=<fold 1's model>)
    .venv/bin/python -m eval.fold_runs RUN0 RUN1 --out DEV_OUT_OF_FOLD"""

from __future__ import annotations

import argparse
import json
import shutil
from collections.abc import Sequence
from pathlib import Path

from eval.run import summarise
from eval.train_cross_encoder import dev_folds


def merge(runs: Sequence[Path], out: Path) -> int:
    """Write ``out`` (results.jsonl, its summary, the first run's run.json, and folds.json naming the runs);
    return how many rows it holds."""
    owner = {qid: k for k, fold in enumerate(dev_folds(len(runs))) for qid in fold}
    by_run = [[json.loads(line) for line in (run / "results.jsonl").read_text(encoding="utf-8").splitlines()]
              for run in runs]
    chosen = {row["id"]: row for k, rows in enumerate(by_run) for row in rows if owner.get(row["id"], 0) == k}
    rows = [chosen[row["id"]] for row in by_run[0] if row["id"] in chosen]
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                                       encoding="utf-8")
    (out / "summary.json").write_text(json.dumps(summarise(rows), indent=1) + "\n", encoding="utf-8")
    if (runs[0] / "run.json").is_file():
        shutil.copy(runs[0] / "run.json", out / "run.json")
    note = {"out_of_fold_from": [str(r) for r in runs], "rows": len(rows)}
    (out / "folds.json").write_text(json.dumps(note, indent=1) + "\n", encoding="utf-8")
    return len(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", type=Path, nargs="+")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    print(f"{merge(args.runs, args.out)} rows written to {args.out}")


if __name__ == "__main__":
    main()
