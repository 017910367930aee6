"""Dev out of fold: a fold's reader is fitted without the fold's dev questions (every generated
one kept), and the fold runs merge into one run in dev's order, no question twice."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from eval.reader_folds import held_out, main, merged


def example(qid: str, source: str = "dev") -> SimpleNamespace:
    return SimpleNamespace(question=SimpleNamespace(id=qid), source=source)


def test_a_folds_reader_never_sees_the_folds_dev_questions():
    examples = [example("q1"), example("q2"), example("q3"), example("g1", "generated"), example("q2", "generated")]
    kept = held_out(examples, {"q2", "q3"})
    assert [(e.question.id, e.source) for e in kept] == [("q1", "dev"), ("g1", "generated"), ("q2", "generated")]


def test_fold_runs_merge_in_devs_order_and_refuse_a_question_answered_twice():
    first, second = [{"id": "q3"}, {"id": "q1"}], [{"id": "q2"}]
    assert [r["id"] for r in merged([first, second], ["q1", "q2", "q3"])] == ["q1", "q2", "q3"]
    with pytest.raises(ValueError, match="q1 was answered in two folds"):
        merged([first, [{"id": "q1"}]], ["q1", "q2", "q3"])


def test_a_cross_encoder_fold_model_missing_for_a_fold_is_refused_before_any_work(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr("sys.argv", ["reader_folds", "--out", str(tmp_path), "--folds", "2",
                                     "--cross-encoder-folds", str(tmp_path / "only-one")])
    with pytest.raises(SystemExit):
        main()
    assert "needs one model per fold (2)" in capsys.readouterr().err
    assert not any(tmp_path.iterdir())
