"""Which papers a list answer names: each retrieved paper's row of PAPER features, the fitted
paper model in the shipped weights, and the composer listing exactly the papers the model
qualifies (not every paper whose best sentence scores well)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from rag.answer.evidence import Reading, Sentence
from rag.answer.features import FEATURES, Candidate
from rag.answer.intent import parse_intent
from rag.answer.model import MODEL_FILE, ReaderModel
from rag.answer.offline import OfflineComposer
from rag.answer.qualifies import PAPER, paper_rows
from rag.answer.reader import EVIDENCE, load_model
from rag.errors import ConfigError
from rag.settings import AnswerSettings
from rag.types import Evidence, Paper, ScoredPaper


def paper(pid: str, text: str, score: float, similarity: float) -> ScoredPaper:
    return ScoredPaper(Paper(pid, text, text), score, similarity=similarity)


KELP = paper("p1", "KelpCodec compresses survey images. It reduces storage by 40%.", 1.0, 0.7)
ORBIT = paper("p2", "OrbitNet predicts drag. It lowers the error by 12%.", 0.5, 0.5)
REEF = paper("p3", "We study reef fish counts from video.", 0.25, 0.3)


def test_each_paper_gets_one_row_standing_against_the_best_one():
    pool = [Candidate(KELP, "KelpCodec compresses survey images.", 0, 2, 1),
            Candidate(KELP, "It reduces storage by 40%.", 1, 2, 1),
            Candidate(ORBIT, "OrbitNet predicts drag.", 0, 2, 2),
            Candidate(REEF, "We study reef fish counts from video.", 0, 1, 3)]
    ids, rows = paper_rows(pool, np.array([0.2, 0.8, 0.4, 0.1]), {"p1": 0.9, "p2": 0.3, "p3": 0.0})
    assert ids == ["p1", "p2", "p3"] and rows.shape == (3, len(PAPER))
    row = dict(zip(PAPER, rows[1], strict=True))
    assert row["best"] == pytest.approx(0.4) and row["best_share"] == pytest.approx(0.5)
    assert row["rank"] == pytest.approx(0.5) and row["similarity_gap"] == pytest.approx(-0.2)
    assert row["fused_share"] == pytest.approx(0.5) and row["coverage_gap"] == pytest.approx(-0.6)


def test_the_shipped_weights_carry_a_fitted_paper_model_that_prefers_the_stronger_paper():
    model = load_model()
    assert model.qualifies is not None and model.qualifies.features == PAPER
    strong = [0.9, 1.0, 1.0, 0.0, 1.0, 0.8, 0.0]
    weak = [0.2, 0.22, 0.2, -0.2, 0.3, 0.1, -0.7]
    p_strong, p_weak = model.qualifies.probability(np.array([strong, weak]))
    assert p_strong > model.threshold("qualifies", 0.5) > p_weak


def test_a_paper_model_fitted_on_other_features_is_refused(tmp_path):
    data = json.loads(MODEL_FILE.read_text())
    data["qualifies"]["features"][0] = "a_feature_the_code_does_not_compute"
    path = tmp_path / "reader.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ConfigError, match="other qualifies features"):
        load_model(path)


def test_weights_fitted_without_list_questions_read_lists_by_the_sentence_threshold(tmp_path):
    data = json.loads(MODEL_FILE.read_text())
    del data["qualifies"]
    path = tmp_path / "reader.json"
    path.write_text(json.dumps(data))
    assert load_model(path).qualifies is None


def test_the_paper_model_survives_a_save_and_a_load(tmp_path):
    path = tmp_path / "reader.json"
    load_model().save(path)
    loaded, shipped = ReaderModel.load(path, expect=(FEATURES, EVIDENCE, PAPER)).qualifies, load_model().qualifies
    assert loaded is not None and shipped is not None
    assert np.allclose(loaded.coef, shipped.coef) and loaded.intercept == pytest.approx(shipped.intercept)


def test_a_list_names_the_papers_the_paper_model_qualifies_in_best_sentence_order():
    q = "Which papers reduce storage or error?"
    intent = parse_intent(q)
    ranked = (Sentence(KELP, "It reduces storage by 40%.", 0.9, True),
              Sentence(REEF, "We study reef fish counts from video.", 0.8, True),
              Sentence(ORBIT, "It lowers the error by 12%.", 0.3, True))
    blank = ReaderModel.blank(FEATURES, EVIDENCE)
    model = ReaderModel(blank.sentence, blank.answerable, {"list": 0.5, "qualifies": 0.5})
    reading = Reading(tuple((part, ranked) for part in intent.parts), (KELP, ORBIT, REEF), "", intent,
                      (("p2", 0.7), ("p1", 0.6), ("p3", 0.2)))
    draft = OfflineComposer(AnswerSettings(), model).generate(q, reading, Evidence(reading.papers))
    assert [s.paper_ids for s in draft.sentences] == [("p1",), ("p2",)]
