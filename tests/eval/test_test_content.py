"""Test content is recognised by what it asks, not by its file name: a renamed copy of the test
split is a look at test for `rag eval` (a ledger line), and is refused by the reader's
training, by tune.py and by `rag eval regrade`."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from benchmarks.tune import dev_questions
from cli.main import cli
from eval import ledger
from eval.dataset import HANDFUL, SPLITS, fingerprint, is_test_content, load, shared_with_test
from rag.errors import InputError


@pytest.fixture
def renamed(tmp_path):
    """The test split under another name, its ids changed."""
    rows = [json.loads(line) | {"id": f"mine-{n}"} for n, line in enumerate(SPLITS["test"].read_text().splitlines())]
    path = tmp_path / "my_questions.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_every_test_question_is_fingerprinted_and_no_dev_one_is():
    test, dev = load(SPLITS["test"]), load(SPLITS["dev"])
    assert shared_with_test(test) == len(test) and shared_with_test(dev) == 0
    assert fingerprint("What does  ChemAgent build?") == fingerprint("what does chemagent build")


def test_a_renamed_copy_is_test_content_and_a_handful_is_not(renamed):
    test, dev = load(renamed), load(SPLITS["dev"])
    assert is_test_content(test) and not is_test_content(dev)
    assert not is_test_content(dev + test[:HANDFUL]) and is_test_content(dev + test[:HANDFUL + 1])


def test_tune_refuses_test_content_under_any_name(renamed):
    with pytest.raises(InputError, match="never tuned on"):
        dev_questions(renamed)
    assert len(dev_questions(limit=3)) == 3


def test_regrading_test_content_is_refused(renamed, tmp_path):
    result = CliRunner().invoke(cli, ["eval", "regrade", str(tmp_path), "--dataset", str(renamed),
                                      "--out", str(tmp_path / "again")], env={"RAG_DATA_DIR": str(tmp_path / "i")})
    assert result.exit_code != 0 and "never regraded" in result.output
    assert not (tmp_path / "again").exists()


def test_a_ledger_line_keys_on_the_content_of_what_was_scored(renamed, tmp_path):
    summary = {"overall": {}, "ci": {}, "n": {}, "yes_no_majority": None, "latency_p50_ms": 1.0,
               "generators": ["offline"], "questions": 303, "answer_words": {"p50": 40.0, "p90": 90.0, "n": 300}}
    from rag.settings import Settings

    line = ledger.entry(summary, Settings(data_dir=tmp_path), [renamed], tmp_path, test_questions=303, note="n")
    assert line["dataset_sha256"] == ledger.dataset_hash(renamed) != ledger.dataset_hash(SPLITS["test"])
    assert line["test_questions"] == 303 and line["note"] == "n"
    line["figures"] = {"accuracy": {"value": 0.5, "ci": [0.4, 0.6], "n": 303}}
    assert "| answer length, words p50 / p90 | 40 / 90 |" in ledger.table([line])
