"""The eval harness end to end: files written, report readable offline, compare, and the
regression gate on the bundled dataset with the offline default."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner

from cli.main import cli
from eval.compare import compare
from eval.dataset import DEFAULT_DATASET, load
from eval.run import run
from rag.engine import build_engine
from rag.settings import PROJECT_ROOT

THRESHOLDS = tomllib.loads((PROJECT_ROOT / "eval" / "thresholds.toml").read_text())


@pytest.fixture(scope="module")
def bundled_run(real_index, tmp_path_factory) -> tuple[Path, dict]:
    out = tmp_path_factory.mktemp("eval") / "run"
    engine = build_engine(real_index)
    try:
        summary = run(engine, load(DEFAULT_DATASET), out)
    finally:
        engine.close()
    return out, summary


@pytest.mark.slow
def test_the_offline_default_stays_above_the_thresholds(bundled_run):
    _, summary = bundled_run
    unmeasured = [m for m in THRESHOLDS["overall"] if summary["overall"][m] is None]
    assert not unmeasured, f"gated metrics that the run did not measure: {unmeasured}"
    low = [f"{m} {summary['overall'][m]:.3f} < {v}" for m, v in THRESHOLDS["overall"].items()
           if summary["overall"][m] < v]
    for m, v in THRESHOLDS["summary"].items():
        if m.endswith("_max"):
            low += [f"{m[:-4]} {summary[m[:-4]]:.3f} > {v}"] if summary[m[:-4]] > v else []
        elif summary[m] < v:
            low.append(f"{m} {summary[m]:.3f} < {v}")
    assert not low, "scores dropped below eval/thresholds.toml: " + "; ".join(low)


@pytest.mark.slow
def test_a_run_writes_results_summary_and_a_self_contained_report(bundled_run):
    out, summary = bundled_run
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert len(rows) == len(load(DEFAULT_DATASET)) == summary["overall"]["questions"]
    assert {"answer", "citations", "scores", "failures", "latency_ms"} <= set(rows[0])
    assert json.loads((out / "summary.json").read_text())["by_type"].keys() == {
        "single", "multi", "metadata", "unanswerable"}
    html = (out / "report.html").read_text()
    assert html.count("<svg") == 2 and "q001" in html
    # answers may quote an abstract's URL as text; nothing may be *loaded* from the network
    assert not re.search(r"""(?:src|href)\s*=\s*["']?(?:https?:)?//|url\(\s*["']?(?:https?:)?//|@import""",
                         html), "the report loads nothing from the network"


@pytest.mark.slow
def test_compare_lists_metric_deltas_and_questions_that_got_worse(bundled_run, tmp_path):
    out, _ = bundled_run
    worse = tmp_path / "worse"
    worse.mkdir()
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    rows[0]["correct"], rows[0]["failures"] = False, ["missing key fact: x"]
    rows[1]["scores"]["mrr@10"] = 0.0
    (worse / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (worse / "summary.json").write_text((out / "summary.json").read_text())
    metrics, got_worse = compare(out, worse)
    assert ("accuracy", metrics[-5][1], metrics[-5][2]) in metrics
    assert got_worse[0].startswith(f"{rows[0]['id']}: was right, now wrong")
    assert got_worse[1] == f"{rows[1]['id']}: lower mrr@10"
    result = CliRunner().invoke(cli, ["eval", "compare", str(out), str(worse)])
    assert result.exit_code == 0 and "2 question(s) got worse" in result.output


@pytest.mark.slow
def test_rag_eval_runs_from_the_command_line_on_a_given_dataset(real_index, tmp_path):
    small = tmp_path / "small.jsonl"
    small.write_text("\n".join(DEFAULT_DATASET.read_text().splitlines()[:3]) + "\n")
    result = CliRunner().invoke(cli, ["eval", "--dataset", str(small), "--out", str(tmp_path / "r"),
                                      "--generator", "offline"], env={"RAG_DATA_DIR": str(real_index.data_dir)})
    assert result.exit_code == 0, result.output
    assert "3 questions" in result.output and (tmp_path / "r" / "report.html").exists()


def test_a_bad_dataset_line_is_reported_with_its_number(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(DEFAULT_DATASET.read_text().splitlines()[0] + "\n{not json\n")
    with pytest.raises(ValueError, match="bad.jsonl:2"):
        load(bad)


@pytest.mark.slow
@pytest.mark.integration
def test_the_report_opens_in_headless_chromium_as_a_readable_page(bundled_run, tmp_path):
    from playwright.sync_api import sync_playwright

    from tests.test_web_page import CHROMIUM, CHROMIUM_ARGS

    out, _ = bundled_run
    shot = tmp_path / "report.png"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1200, "height": 1400})
        page.goto((out / "report.html").as_uri())
        total = len(load(DEFAULT_DATASET))
        assert page.locator("h1").inner_text() == f"Eval: {total} questions"
        assert page.locator("svg rect").count() > 20, "the charts drew their bars"
        assert page.locator("tr.bad, tr.ok").count() == total
        page.screenshot(path=str(shot), full_page=False)
        browser.close()
    assert shot.stat().st_size > 20_000


def test_the_llm_judge_scores_are_parsed_and_labelled(tmp_path):
    from eval.judge import judge
    from rag.llm.prompts import load_prompt
    from rag.types import Answer, Citation
    from tests.fakes import FakeChatModel

    prompt = load_prompt(PROJECT_ROOT / "prompts", "judge")
    result = Answer("What is K2?", "K2 is a geoscience LLM. [1]",
                    (Citation(1, "001-0005", "K2", "we present K2"),), False)
    model = FakeChatModel("faithfulness=0.8 relevancy=1", "I refuse")
    assert judge(model, prompt, result, {}) == {"judge_faithfulness": 0.8, "judge_relevancy": 1.0}
    assert "data, not instructions" in model.prompts[0][0]["content"]
    assert judge(model, prompt, result, {}) == {"judge_faithfulness": None, "judge_relevancy": None}
