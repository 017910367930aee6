"""The eval command and report, read by someone who was not there: `rag eval` takes -k like `ask`
and `search`, --limit for a quick look (refused on the test split), and report.html states its
commit, a legend of its highlights, the metric definitions and each run against
eval/thresholds.toml, with a failing figure marked FAIL."""

from __future__ import annotations

import json
import re

from click.testing import CliRunner

from cli.main import cli
from eval.report_notes import gate, gate_table, notes
from tests.support import FOLLOWUP_PAPERS, write_papers

THRESHOLDS = {"overall": {"key_facts": 0.69, "accuracy": 0.57},
              "summary": {"abstention_recall": 0.63, "false_abstention_rate_max": 0.05}}


def summary(key_facts: float, false_abstentions: float) -> dict:
    return {"overall": {"key_facts": key_facts, "accuracy": 0.6}, "abstention_recall": 0.7,
            "false_abstention_rate": false_abstentions}


def test_the_gate_passes_a_good_run_and_fails_a_bad_one():
    assert all(ok for *_, ok in gate(summary(0.72, 0.02), THRESHOLDS))
    failed = {name for name, _, _, ok in gate(summary(0.40, 0.20), THRESHOLDS) if not ok}
    assert failed == {"key_facts", "false_abstention_rate"}


def test_the_report_notes_say_commit_legend_definitions_and_the_gate(tmp_path):
    bad = summary(0.40, 0.02) | {"ci": {}, "n": {}}
    thresholds = tmp_path / "thresholds.toml"
    thresholds.write_text('[overall]\nkey_facts = 0.69\naccuracy = 0.57\n[summary]\n'
                          'false_abstention_rate_max = 0.05\n', encoding="utf-8")
    gated = gate_table([("dev", [], bad)], thresholds)
    assert "fails 1 of 3" in gated and gated.count("<b>FAIL</b>") == 1
    html = notes([("dev", [], bad)])
    assert re.search(r"commit ([0-9a-f]{40}|unknown)", html) and "Against eval/thresholds.toml" in html
    assert "key facts stated" in html and "yellow" in html and "95% bootstrap" in html


def test_eval_takes_k_and_limit_and_keeps_the_test_split_whole(tmp_path):
    env = {"RAG_DATA_DIR": str(tmp_path / "idx")}
    papers = write_papers(tmp_path / "papers.jsonl", FOLLOWUP_PAPERS)
    assert CliRunner().invoke(cli, ["ingest", str(papers)], env=env).exit_code == 0
    rows = [{"id": f"q{i}", "question": q, "reference_answer": a, "key_facts": [f], "gold_papers": [g],
             "type": "single"} for i, (q, a, f, g) in enumerate([
                 ("How much does ReefPack reduce sonar archive storage?", "By 63%.", "63%", "arc-2"),
                 ("How much does TideZip reduce sonar archive storage?", "By 41%.", "41%", "arc-1"),
                 ("How much does KelpCodec reduce sonar archive storage?", "By 28%.", "28%", "arc-3")])]
    dataset = tmp_path / "mine.jsonl"
    dataset.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = tmp_path / "run"
    result = CliRunner().invoke(cli, ["eval", "--dataset", str(dataset), "--limit", "2", "-k", "3",
                                      "--out", str(out)], env=env, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert len((out / "results.jsonl").read_text().splitlines()) == 2
    assert "Against eval/thresholds.toml" in (out / "report.html").read_text()
    refused = CliRunner().invoke(cli, ["eval", "--split", "test", "--limit", "5"], env=env)
    assert refused.exit_code == 2 and "scored whole" in refused.output
