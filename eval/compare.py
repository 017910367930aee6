"""Compare two eval runs: per-metric deltas, and the questions that got worse."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from eval.run import SCORES


def _load(run: Path) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    summary = json.loads((run / "summary.json").read_text())
    rows = [json.loads(line) for line in (run / "results.jsonl").read_text().splitlines() if line]
    return summary, {r["id"]: r for r in rows}


def compare(run_a: Path, run_b: Path) -> tuple[list[tuple[str, float | None, float | None]], list[str]]:
    """(metric, A, B) rows, and one line per question that got worse from A to B."""
    (sum_a, rows_a), (sum_b, rows_b) = _load(run_a), _load(run_b)
    metrics = [(m, sum_a["overall"].get(m), sum_b["overall"].get(m)) for m in (*SCORES, "accuracy")]
    metrics += [(m, sum_a.get(m), sum_b.get(m)) for m in
                ("abstention_precision", "abstention_recall", "latency_p50_ms", "latency_p95_ms")]
    worse = []
    for qid, a in rows_a.items():
        b = rows_b.get(qid)
        if b is None:
            continue
        if a["correct"] and not b["correct"]:
            worse.append(f"{qid}: was right, now wrong ({'; '.join(b['failures']) or 'see report'})")
            continue
        drops = [m for m in SCORES if a["scores"].get(m) is not None and b["scores"].get(m) is not None
                 and b["scores"][m] < a["scores"][m] - 1e-9]
        if drops:
            worse.append(f"{qid}: lower {', '.join(drops)}")
    return metrics, worse
