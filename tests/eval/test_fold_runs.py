"""A dev run out of fold takes each question's row from the run whose model never saw it."""

from __future__ import annotations

import json

from eval.fold_runs import merge
from eval.run import grade
from eval.train_cross_encoder import dev_folds
from tests.eval_cases import PAPERS, answer_of, question

SINGLE = question(question="What does the chemistry agent build?", gold_papers=["p1"],
                  key_facts=[["self-updating library"]])


def test_each_question_comes_from_the_run_of_its_own_fold(tmp_path):
    answer = answer_of(("", "ChemAgent builds a self-updating library of sub-tasks.", ("p1",), True))
    row = grade(SINGLE, answer, PAPERS) | {"latency_ms": 1.0}  # a row as rag eval writes it
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
