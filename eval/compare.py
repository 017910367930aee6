"""Compare two eval runs of the same questions: per metric the change with its paired-bootstrap
95% interval (beyond noise when the interval leaves out 0), McNemar's test on right/wrong, and
the questions whose answers flipped between right and wrong.

Only answers flip. Retrieval scores can move between two runs of identical code (Chroma's
approximate nearest-neighbour search rebuilds its graph in every process, so the 10th paper can
change); those moves show up as small, not significant deltas and never as flips."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from eval.run import SCORES
from eval.stats import mcnemar, paired_difference


@dataclass(frozen=True)
class MetricChange:
    name: str
    a: float | None
    b: float | None
    delta: float | None
    low: float | None
    high: float | None
    n: int

    @property
    def beyond_noise(self) -> bool:
        return self.low is not None and self.high is not None and (self.low > 0 or self.high < 0)


@dataclass(frozen=True)
class Comparison:
    metrics: list[MetricChange]
    flips: list[dict[str, Any]]
    mcnemar_p: float
    shared: int
    answers_changed: int


def load_run(run: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    summary = json.loads((run / "summary.json").read_text(encoding="utf-8"))
    rows = [json.loads(line) for line in (run / "results.jsonl").read_text(encoding="utf-8").splitlines() if line]
    return summary, rows


def _why(row: dict[str, Any]) -> list[str]:
    return [f"{f['code']}{': ' + f['detail'] if f['detail'] else ''}" for f in row["failures"]] or ["right"]


def compare_rows(rows_a: list[dict[str, Any]], rows_b: list[dict[str, Any]]) -> Comparison:
    by_id = {r["id"]: r for r in rows_b}
    pairs = [(a, by_id[a["id"]]) for a in rows_a if a["id"] in by_id]
    metrics = []
    for name in SCORES:
        both = [(a["scores"].get(name), b["scores"].get(name)) for a, b in pairs]
        both = [(x, y) for x, y in both if x is not None and y is not None]
        if not both:
            continue
        xs, ys = [x for x, _ in both], [y for _, y in both]
        diff = paired_difference(xs, ys)
        assert diff is not None
        metrics.append(MetricChange(name, sum(xs) / len(xs), sum(ys) / len(ys), *diff, len(both)))
    flips = [{"id": a["id"], "question": a["question"], "now_right": b["correct"],
              "answer_a": a["answer"], "answer_b": b["answer"], "why": _why(b if a["correct"] else a)}
             for a, b in pairs if a["correct"] != b["correct"]]
    worse = sum(not f["now_right"] for f in flips)
    return Comparison(metrics, flips, mcnemar(worse, len(flips) - worse), len(pairs),
                      sum(a["answer"] != b["answer"] for a, b in pairs))


def compare(run_a: Path, run_b: Path) -> Comparison:
    return compare_rows(load_run(run_a)[1], load_run(run_b)[1])


def lines(c: Comparison) -> list[str]:
    """The comparison as the terminal shows it."""
    out = [f"{c.shared} questions in both runs; {c.answers_changed} answers changed",
           f"{'metric':<24}{'A':>8}{'B':>8}{'B - A':>9}  {'95% interval':<18} beyond noise?"]
    for m in c.metrics:
        out.append(f"{m.name:<24}{m.a:>8.3f}{m.b:>8.3f}{m.delta:>+9.3f}  [{m.low:+.3f}, {m.high:+.3f}]"
                   f"{'':<2} {'YES' if m.beyond_noise else 'no'}  (n={m.n})")
    worse = [f for f in c.flips if not f["now_right"]]
    better = [f for f in c.flips if f["now_right"]]
    out.append(f"\nflips: {len(worse)} right -> wrong, {len(better)} wrong -> right "
               f"(McNemar exact p = {c.mcnemar_p:.3f})")
    out += [f"  - {f['id']}: right -> wrong ({'; '.join(f['why'])})" for f in worse]
    out += [f"  + {f['id']}: wrong -> right (was: {'; '.join(f['why'])})" for f in better]
    return out
