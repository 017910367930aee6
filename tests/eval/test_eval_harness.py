"""The eval harness end to end on the real index: files written, every figure with an interval,
the regression gate on dev, compare with significance and flips, your own questions (JSONL and
CSV, bad rows with file:line), the RAGAS export, the judge's plumbing, and the sealed test split
(a ledger line per look, tune.py never opening it)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner

from cli.main import cli
from eval import ledger
from eval.compare import compare_rows, load_run
from eval.dataset import DEFAULT_DATASET, SPLITS, DatasetError, load
from eval.report import HEADLINE
from eval.run import run, summarise
from rag.engine import build_engine
from rag.settings import PROJECT_ROOT, Settings

THRESHOLDS = tomllib.loads((PROJECT_ROOT / "eval" / "thresholds.toml").read_text())


@pytest.fixture(scope="module")
def bundled_run(real_index, tmp_path_factory) -> tuple[Path, dict]:
    out = tmp_path_factory.mktemp("eval") / "dev"
    engine = build_engine(real_index)
    try:
        summary = run(engine, load(DEFAULT_DATASET), out, label="dev")
    finally:
        engine.close()
    return out, summary


def _invoke(args: list[str], settings, **env: str):
    return CliRunner().invoke(cli, args, env={"RAG_DATA_DIR": str(settings.data_dir), **env})


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
def test_a_run_writes_results_and_a_summary_with_an_interval_for_every_figure(bundled_run):
    out, summary = bundled_run
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert len(rows) == len(load(DEFAULT_DATASET)) == summary["questions"]
    assert {"answer", "citations", "claims", "facts", "scores", "failures", "passages", "latency_ms"} <= set(rows[0])
    assert set(summary["by_type"]) == {"single", "multi", "list", "metadata", "unanswerable"}
    for key in [k for _, k in HEADLINE if summary["overall"][k] is not None]:
        value, (low, high) = summary["overall"][key], summary["ci"][key]
        assert low <= value <= high and high - low < 0.5, (key, value, low, high)
    assert summarise(rows)["ci"] == summary["ci"], "a rerun prints the same intervals (seeded)"
    assert summary["yes_no_majority"] >= 0.5
    html = (out / "report.html").read_text()
    assert not re.search(r"""(?:src|href)\s*=\s*["']?(?:https?:)?//|url\(\s*["']?(?:https?:)?//|@import""",
                         html), "the report loads nothing from the network"


def _worse_copy(out: Path, tmp_path: Path) -> Path:
    """The run with one right answer made wrong and one retrieval score moved (noise)."""
    worse = tmp_path / "worse"
    worse.mkdir()
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    right = next(r for r in rows if r["correct"] and r["type"] == "single")
    right["correct"], right["scores"]["accuracy"] = False, 0.0
    right["failures"] = [{"code": "fact missing", "detail": "x"}]
    noisy = next(r for r in rows if r["scores"]["mrr@10"] == 1.0 and r is not right)
    noisy["scores"]["mrr@10"] = 0.5
    (worse / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (worse / "summary.json").write_text(json.dumps(summarise(rows)))
    return worse


@pytest.mark.slow
def test_compare_says_what_is_beyond_noise_and_lists_only_answer_flips(bundled_run, tmp_path):
    out, _ = bundled_run
    worse = _worse_copy(out, tmp_path)
    result = compare_rows(load_run(out)[1], load_run(worse)[1])
    assert [f["now_right"] for f in result.flips] == [False], "a moved retrieval score is not a flip"
    accuracy = next(m for m in result.metrics if m.name == "accuracy")
    assert accuracy.delta < 0 and not accuracy.beyond_noise, "one question in 368 is within noise"
    shown = CliRunner().invoke(cli, ["eval", "compare", str(out), str(worse), "--html", str(tmp_path / "c.html")])
    assert shown.exit_code == 0, shown.output
    assert "beyond noise?" in shown.output and "1 right -> wrong, 0 wrong -> right" in shown.output
    assert "McNemar exact p = 1.000" in shown.output
    assert 'id="flips"' in (tmp_path / "c.html").read_text()


def test_compare_calls_a_large_change_beyond_noise():
    rows_a = [{"id": str(i), "question": "q", "answer": "a", "correct": True, "failures": [],
               "scores": {"accuracy": 1.0}} for i in range(60)]
    rows_b = [r | {"correct": i >= 30, "answer": "b", "scores": {"accuracy": float(i >= 30)},
                   "failures": [{"code": "fact missing", "detail": ""}]} for i, r in enumerate(rows_a)]
    result = compare_rows(rows_a, rows_b)
    accuracy = next(m for m in result.metrics if m.name == "accuracy")
    assert accuracy.beyond_noise and len(result.flips) == 30 and result.mcnemar_p < 0.001


BYO_CSV = """question,reference_answer,key_facts,gold_papers,gold_phrases,type,yes_no
What does SupReMix use as hard negative pairs?,Anchor-inclusive mixtures.,anchor-inclusive mixtures | mixup,000-0001,,,
Which method mixes anchors with negative samples for regression?,,SupReMix,,anchor-inclusive mixtures,,
How do I bake sourdough bread?,,,,,unanswerable,
"""


@pytest.mark.slow
def test_your_own_csv_runs_with_gold_phrases_and_exports_ragas(real_index, tmp_path):
    mine = tmp_path / "mine.csv"
    mine.write_text(BYO_CSV)
    result = _invoke(["eval", "--dataset", str(mine), "--out", str(tmp_path / "r"), "--generator", "offline",
                      "--export", "ragas"], real_index)
    assert result.exit_code == 0, result.output
    rows = load_run(tmp_path / "r")[1]
    assert rows[1]["gold_papers"] == ["000-0001"], "the gold phrase found its paper"
    assert rows[0]["scores"]["key_facts"] is not None and rows[2]["type"] == "unanswerable"
    ragas = [json.loads(line) for line in (tmp_path / "r" / "ragas.jsonl").read_text().splitlines()]
    assert [set(r) for r in ragas] == [{"question", "answer", "contexts", "ground_truth"}] * 3
    assert ragas[0]["ground_truth"] == "Anchor-inclusive mixtures." and "SupReMix" in ragas[0]["contexts"][0]


def test_bad_rows_are_reported_with_file_line_and_reason_and_nothing_runs(tmp_path):
    bad_csv = tmp_path / "bad.csv"
    bad_csv.write_text("question,type,yes_no\nFine question?,single,\n,single,\nOther?,sideways,\nYes?,single,maybe\n")
    with pytest.raises(DatasetError) as caught:
        load(bad_csv)
    message = str(caught.value)
    assert "bad.csv:3: no 'question' text" in message
    assert "bad.csv:4: type 'sideways' is not one of" in message and "bad.csv:5: yes_no must be" in message
    bad_jsonl = tmp_path / "bad.jsonl"
    bad_jsonl.write_text('{"question": "ok?"}\n{not json\n{"question": "x", "key_facts": "oops"}\n'
                         '{"question": "y", "type": "list", "gold_papers": ["a", "b"], "key_facts": [["c"]]}\n')
    with pytest.raises(DatasetError, match=r"(?s)bad.jsonl:2: not valid JSON.*bad.jsonl:3: key_facts must be a list"
                                           r".*bad.jsonl:4: a list question has one key fact per gold paper"):
        load(bad_jsonl)
    result = CliRunner().invoke(cli, ["eval", "--dataset", str(bad_csv)])
    assert result.exit_code == 2 and "bad.csv:3: no 'question' text" in result.output


def test_a_judge_that_does_not_answer_is_a_clear_error(tmp_path):
    result = CliRunner().invoke(cli, ["eval", "--judge", "llm", "--generator", "offline"],
                                env={"RAG_LLM__BASE_URL": "http://127.0.0.1:9/v1", "RAG_LLM__TIMEOUT": "2",
                                     "RAG_LLM__RETRIES": "0"})
    assert result.exit_code == 1 and "the judge at http://127.0.0.1:9/v1 does not answer" in result.output


@pytest.mark.slow
def test_a_stopped_run_resumes_keeping_the_answers_it_wrote(real_index, tmp_path, monkeypatch):
    import eval.run as harness

    small = tmp_path / "small.jsonl"
    small.write_text("\n".join(DEFAULT_DATASET.read_text().splitlines()[:4]) + "\n")
    out, args = tmp_path / "r", ["eval", "--dataset", str(small), "--generator", "offline"]
    first = _invoke([*args, "--out", str(out)], real_index)
    assert first.exit_code == 0, first.output
    whole = (out / "results.jsonl").read_text().splitlines()
    (out / "results.jsonl").write_text("\n".join(whole[:2]) + "\n" + whole[2][:40])  # stopped mid-line
    (out / "summary.json").unlink()
    asked: list[str] = []
    real_answer = harness.answer
    monkeypatch.setattr(harness, "answer", lambda engine, q: asked.append(q) or real_answer(engine, q))
    again = _invoke([*args, "--resume", str(out)], real_index)
    assert again.exit_code == 0, again.output
    assert asked == [json.loads(line)["question"] for line in whole[2:]], "only the unfinished are asked again"
    rows = (out / "results.jsonl").read_text().splitlines()
    assert rows[:2] == whole[:2] and [json.loads(r)["id"] for r in rows] == [json.loads(r)["id"] for r in whole]
    assert json.loads((out / "summary.json").read_text())["questions"] == 4
    other = _invoke([*args, "--k", "5", "--resume", str(out)], real_index)
    assert other.exit_code != 0 and "k 10 → 5" in other.output and "start a new run" in other.output
    (tmp_path / "empty").mkdir()
    nothing = _invoke([*args, "--resume", str(tmp_path / "empty")], real_index)
    assert nothing.exit_code != 0 and "nothing to resume" in nothing.output
    assert len(asked) == 2, "a refused resume answers nothing"


def test_a_resume_refuses_a_damaged_results_file_and_another_out_folder(tmp_path):
    from eval.run import MANIFEST, ResumeError, finished_rows

    wanted = {"questions": "abc", "k": 10}
    (tmp_path / MANIFEST).write_text(json.dumps(wanted))
    (tmp_path / "results.jsonl").write_text('{"id": "q1"}\n{broken\n{"id": "q3"}\n')
    with pytest.raises(ResumeError, match=r"results.jsonl:2: not valid JSON; start a new run"):
        finished_rows(tmp_path, wanted, [])
    result = CliRunner().invoke(cli, ["eval", "--resume", str(tmp_path), "--out", str(tmp_path / "elsewhere")])
    assert result.exit_code == 2 and "--resume writes into the run it resumes" in result.output


@pytest.mark.slow
def test_the_judge_labels_sentences_through_a_real_endpoint(real_index, tmp_path):
    from rag.testing.fake_openai import FakeOpenAI

    small = tmp_path / "small.jsonl"
    small.write_text("\n".join(DEFAULT_DATASET.read_text().splitlines()[:4]) + "\n")
    with FakeOpenAI() as fake:
        fake.reply = "SUPPORTED"
        result = _invoke(["eval", "--dataset", str(small), "--out", str(tmp_path / "r"), "--generator", "offline",
                          "--judge", "llm", "--judge-sample", "2"], real_index, RAG_LLM__BASE_URL=fake.url,
                         RAG_LLM__MODEL="fake")
    assert result.exit_code == 0, result.output
    summary = json.loads((tmp_path / "r" / "summary.json").read_text())
    assert summary["judged"] == 2 and summary["overall"]["judge_support"] == 1.0
    judged = [b for b in fake.requests[1:]]
    assert judged and all("Claim:" in b["messages"][1]["content"] for b in judged)


@pytest.mark.slow
def test_judge_agreement_is_measured_on_the_labelled_pairs(real_index):
    from eval.agreement import measure
    from eval.judge import Judge
    from rag.llm.prompts import load_prompt
    from rag.testing.fakes import FakeChatModel

    always_yes = Judge(FakeChatModel(*["SUPPORTED"] * 12), load_prompt(PROJECT_ROOT / "prompts", "judge"))
    lines = measure(real_index, always_yes, "test", limit=12)
    assert lines[0].startswith("judge llm:fake on the test half of the support pairs: 12 pairs")
    assert "Cohen's kappa 0.000" in lines[1] and "'unsupported': precision 0.000, recall 0.000" in lines[1]


@pytest.mark.slow
def test_every_look_at_the_test_split_appends_a_ledger_line(real_index, tmp_path, monkeypatch):
    """On a stand-in test split: the real one is scored only by hand, once per choice. A look
    is recognised by content: a renamed copy leaves a line too, a file sharing no more than a
    handful of test questions leaves none."""
    from eval import cli as eval_cli
    from eval import dataset

    rows = DEFAULT_DATASET.read_text().splitlines()[:3]
    stand_in, renamed, few = tmp_path / "test.jsonl", tmp_path / "mine.jsonl", tmp_path / "few.jsonl"
    stand_in.write_text("\n".join(rows) + "\n")
    renamed.write_text("\n".join(rows) + "\n")
    few.write_text("\n".join(rows[:2]) + "\n")
    (tmp_path / "fingerprints.txt").write_text("".join(dataset.fingerprint(q.question) + "\n" for q in load(stand_in)))
    monkeypatch.setitem(SPLITS, "test", stand_in)
    monkeypatch.setattr(dataset, "TEST_FINGERPRINTS", tmp_path / "fingerprints.txt")
    monkeypatch.setattr(dataset, "HANDFUL", 2)
    monkeypatch.setattr(ledger, "LEDGER", tmp_path / "ledger.jsonl")
    settings = real_index.model_copy(update={"llm": real_index.llm.model_copy(update={"base_url": None})})
    eval_cli.run_eval(settings, [], tmp_path / "run1", 10, split="test", note="first look")
    eval_cli.run_eval(settings, [renamed], tmp_path / "run2", 10)
    eval_cli.run_eval(settings, [few], tmp_path / "run3", 10)
    lines = ledger.read(tmp_path / "ledger.jsonl")
    assert len(lines) == 2 and lines[0]["generator"] == "offline" and lines[0]["questions"] == 3
    assert lines[0]["note"] == "first look" and lines[1]["test_questions"] == 3
    assert lines[0]["dataset_sha256"] == lines[1]["dataset_sha256"] == ledger.dataset_hash(renamed)
    assert re.fullmatch(r"[0-9a-f]{40}|unknown", lines[0]["commit"]) and lines[0]["date"][:2] == "20"
    assert {"value", "ci", "n"} <= set(lines[0]["figures"]["accuracy"]) and lines[0]["answer_words"]["n"] >= 1
    assert "| accuracy |" in ledger.table(lines) and f"`{lines[1]['commit'][:9]}`" in ledger.table(lines)
    assert "| answer length, words p50 / p90 |" in ledger.table(lines)


def test_a_ledger_line_says_how_the_llm_read_and_the_table_names_it(tmp_path):
    plain = Settings(data_dir=tmp_path)
    settings = plain.model_copy(update={"llm": plain.llm.model_copy(update={
        "base_url": "http://127.0.0.1:9/v1", "model": "qwen", "mode": "structured", "sentences": 12})})
    summary = {"overall": {}, "ci": {}, "n": {}, "yes_no_majority": None, "latency_p50_ms": 1.0,
               "generators": ["llm (qwen)"], "questions": 1}
    line = ledger.entry(summary, settings, DEFAULT_DATASET, Path("run"))
    assert line["generator"] == "llm:qwen" and line["llm"]["mode"] == "structured"
    assert "| llm:qwen (structured, 12 sentences) |" in ledger.table([line])
    offline = ledger.entry(summary, plain, DEFAULT_DATASET, Path("run"))
    assert offline["llm"] is None and "| metric (95% interval) | offline |" in ledger.table([offline])


def test_an_ablations_ledger_line_does_not_stand_for_what_ships(tmp_path):
    plain = Settings(data_dir=tmp_path)
    summary = {"overall": {"accuracy": 0.5}, "ci": {}, "n": {}, "yes_no_majority": None, "latency_p50_ms": 1.0,
               "generators": ["offline"], "questions": 1}
    shipped = ledger.entry(summary, plain, DEFAULT_DATASET, Path("run"))
    assert shipped["answer_overrides"] == {}
    off = plain.model_copy(update={"answer": plain.answer.model_copy(update={"cross_encoder": False})})
    ablation = ledger.entry({**summary, "overall": {"accuracy": 0.25}}, off, DEFAULT_DATASET, Path("run"))
    assert ablation["answer_overrides"] == {"cross_encoder": False}
    assert "| accuracy | 0.500 |" in ledger.table([shipped, ablation])  # the newer line is the ablation
    assert "| accuracy | 0.250 |" in ledger.table([ablation])  # unless there is nothing else


def test_the_evaluation_pages_test_table_is_the_ledgers():
    page = (PROJECT_ROOT / "docs" / "evaluation.md").read_text(encoding="utf-8")
    assert ledger.BEGIN in page, "docs/evaluation.md lost its test-ledger markers"
    assert ledger.doc_with_table(page, ledger.read()) == page, \
        "docs/evaluation.md's test table is not the ledger's: run python -m eval.ledger --write"


def test_the_test_table_is_written_between_the_markers_and_nowhere_else():
    page = f"# Evaluation\nbefore\n{ledger.BEGIN}\n| stale |\n{ledger.END}\nafter\n"
    line = {"generator": "offline", "questions": 3, "date": "2026-12-01T00:00:00", "commit": "abcdef0123456",
            "figures": {"accuracy": {"value": 0.5, "ci": [0.25, 0.75], "n": 3}}}
    written = ledger.doc_with_table(page, [line])
    assert written.startswith("# Evaluation\nbefore\n") and written.endswith(f"{ledger.END}\nafter\n")
    assert "| stale |" not in written and "| accuracy | 0.500 [0.25, 0.75] |" in written
    with pytest.raises(SystemExit, match="docs/evaluation.md has no"):
        ledger.doc_with_table("# no markers\n", [line])


def test_tune_never_names_the_test_split():
    source = (PROJECT_ROOT / "benchmarks" / "tune.py").read_text()
    code = "\n".join(line for line in source.splitlines() if not line.lstrip().startswith("#"))
    assert not re.search(r"test\.jsonl|SPLITS|TEST_DATASET|split=.test", code)


@pytest.mark.slow
def test_tune_opens_no_file_of_the_test_split(real_index):
    probe = (
        "import runpy, sys\n"
        "opened = []\n"
        "sys.addaudithook(lambda event, args: opened.append(str(args[0])) if event == 'open' else None)\n"
        f"sys.argv = ['tune.py', '--no-search', '--limit', '3', '--data-dir', {str(real_index.data_dir)!r}]\n"
        "runpy.run_path('benchmarks/tune.py', run_name='__main__')\n"
        "print('OPENED-TEST' if any(o.endswith('test.jsonl') for o in opened) else 'CLEAN')\n")
    done = subprocess.run([sys.executable, "-c", probe], cwd=PROJECT_ROOT, capture_output=True, text=True,
                          timeout=300, env={"PYTHONPATH": str(PROJECT_ROOT), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().endswith("CLEAN") and "3 dev questions" in done.stdout
    assert "test" not in done.stdout.replace("dev questions", "")
