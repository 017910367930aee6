"""A dev run out of fold takes each question's row from the run whose model never saw it."""

from __future__ import annotations

import json

from eval.fold_runs import merge
from eval.train_cross_encoder import dev_folds
from rag.settings import PROJECT_ROOT

RUNS = PROJECT_ROOT / "eval" / "runs" / "dev-before-26"


def test_each_question_comes_from_the_run_of_its_own_fold(tmp_path):
    row = json.loads((RUNS / "results.jsonl").read_text().splitlines()[0])  # a real row, as rag eval writes
    folds = dev_folds(2)
    ids = sorted(folds[0])[:3] + sorted(folds[1])[:3]
    runs = []
    for k in (0, 1):
        run = tmp_path / f"run{k}"
        run.mkdir()
        rows = [dict(row, id=qid, by=k) for qid in ids]
        (run / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
        runs.append(run)
    assert merge(runs, tmp_path / "merged") == 6
    merged = [json.loads(line) for line in (tmp_path / "merged" / "results.jsonl").read_text().splitlines()]
    assert [r["id"] for r in merged] == ids
    assert all(r["by"] == (0 if r["id"] in folds[0] else 1) for r in merged)
    assert json.loads((tmp_path / "merged" / "folds.json").read_text())["rows"] == 6
