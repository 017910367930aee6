"""What report.html needs to be read on its own: the commit it was made at, what the highlights
mean (the legend), what each headline figure measures (definitions, from eval/metrics.py), and
each run against the regression gate of eval/thresholds.toml, marked pass or fail."""

from __future__ import annotations

import subprocess
import tomllib
from collections.abc import Mapping, Sequence
from html import escape
from pathlib import Path
from typing import Any

from rag.settings import PROJECT_ROOT

THRESHOLDS = PROJECT_ROOT / "eval" / "thresholds.toml"
DEFINITIONS = (
    ("key facts stated", "share of the reference key facts an answer states in a supported, cited "
     "sentence, outside a negation (a fact the question already says is not counted)"),
    ("gold paper cited, with a fact", "share of answerable questions whose answer cites a gold paper "
     "and states at least one key fact"),
    ("list: answer precision / recall", "for list questions: share of the listed papers that are gold / "
     "of the gold papers that are listed"),
    ("list: figure recall", "for list questions asking how much: share of the gold papers' figures "
     "the answer gives"),
    ("yes/no: verdict", "the answer opens with the right yes or no (a verdict buried later does not "
     "count); with its reason: and states the key fact behind it"),
    ("unanswerable declined", "share of questions the abstracts cannot answer that the answer "
     "declines; near-domain: those close to a paper's topic"),
    ("false abstentions", "share of answerable questions declined (lower is better)"),
    ("citation precision / recall (gold)", "share of cited papers that are gold / of gold papers "
     "that are cited"),
    ("judge: sentences supported", "share of answer sentences the judge model labels as supported "
     "by their cited passage (only when a judge ran)"),
    ("accuracy", "share of questions answered right by their type's rule (facts, verdict, list, "
     "abstention)"),
    ("recall@5, MRR@10, nDCG@10", "retrieval only: gold papers in the top 5; reciprocal rank of the "
     "first gold paper in the top 10; binary-relevance nDCG over the top 10"),
)
LEGEND = ("<ul><li><mark class=\"used\">yellow</mark>: the span of the cited passage the answer "
          "sentence matched (what the citation rests on)</li><li><mark class=\"fact\">green</mark>: "
          "a key fact of the question found in the passage</li><li>a red card edge / "
          "<span class=\"reason\">reason</span>: why the question counts as failed</li>"
          "<li>flips: a green edge is now right, a red edge now wrong</li>"
          "<li>[a, b] after a figure: its 95% bootstrap interval; n: questions it is over</li></ul>")


def commit() -> str:
    """The commit the report was made at (with "+ changes" when the tree was not clean)."""
    def git(*args: str) -> str:
        try:
            done = subprocess.run(["git", *args], cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=10)
        except (OSError, subprocess.SubprocessError):
            return ""
        return done.stdout.strip() if done.returncode == 0 else ""
    head = git("rev-parse", "HEAD") or "unknown"
    dirty = any("eval/runs/" not in line for line in git("status", "--porcelain").splitlines())
    return head + (" + uncommitted changes" if dirty else "")


def gate(summary: Mapping[str, Any], thresholds: Mapping[str, Any]) -> list[tuple[str, float | None, str, bool]]:
    """(figure, value, the rule, passed) for every threshold of the gate."""
    checks: list[tuple[str, float | None, str, bool]] = []
    for key, floor in thresholds.get("overall", {}).items():
        value = summary["overall"].get(key)
        checks.append((key, value, f">= {floor}", value is not None and value >= floor))
    for key, bound in thresholds.get("summary", {}).items():
        name = key.removesuffix("_max")
        value = summary.get(name)
        rule_ok = (value is not None and value <= bound) if key.endswith("_max") else \
            (value is not None and value >= bound)
        checks.append((name, value, f"{'<=' if key.endswith('_max') else '>='} {bound}", rule_ok))
    return checks


def gate_table(runs: Sequence[tuple[str, Any, Mapping[str, Any]]], path: Path = THRESHOLDS) -> str:
    thresholds = tomllib.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    parts = []
    for name, _, summary in runs:
        rows = gate(summary, thresholds)
        failed = sum(not ok for *_, ok in rows)
        cells = "".join(f"<tr><td>{escape(k)}</td><td class=\"num\">{'-' if v is None else f'{v:.3f}'}</td>"
                        f"<td>{escape(rule)}</td><td>{'pass' if ok else '<b>FAIL</b>'}</td></tr>"
                        for k, v, rule, ok in rows)
        verdict = "passes" if not failed else f"fails {failed} of {len(rows)}"
        parts.append(f"<p><b>{escape(name)}</b> {verdict} the gate (set for the offline default on "
                     f"the dev split)</p><table><tr><th>figure</th><th>value</th><th>gate</th>"
                     f"<th></th></tr>{cells}</table>")
    return "".join(parts)


def notes(runs: Sequence[tuple[str, Any, Mapping[str, Any]]]) -> str:
    """Commit, legend, definitions and the gate, as one block of the report."""
    definitions = "".join(f"<dt><b>{escape(t)}</b></dt><dd>{escape(d)}</dd>" for t, d in DEFINITIONS)
    return (f"<p><small>commit {escape(commit())}</small></p><h2>Against eval/thresholds.toml</h2>"
            f"{gate_table(runs)}<details><summary>How to read this report</summary><h3>Highlights"
            f"</h3>{LEGEND}<h3>Definitions</h3><dl>{definitions}</dl></details>")
