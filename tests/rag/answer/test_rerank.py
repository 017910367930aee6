"""The cross-encoder reorders the fitted reader's best sentences and nothing else: the sentence it
prefers leads, the probabilities handed out are the reader's own, the gate and a declined answer
are untouched; k and the weight are fitted on dev (eval.fit_rerank), and a cross-encoder that
ranks at random is given no weight."""

from __future__ import annotations

import json
import shutil
from collections.abc import Sequence

import numpy as np

from eval.fit_rerank import fit
from rag.answer.cross_encoder import HEADS, MANIFEST_FILE, MODEL_FILE
from rag.answer.rerank import Reranker, reorder
from rag.engine import answer, with_reader
from rag.stages.read import build_reader
from tests.rag.answer.test_reader import engine  # noqa: F401  (the invented KV-cache library)


class Prefers:
    """A fake cross-encoder that scores a sentence high when it says ``word``."""

    def __init__(self, word: str) -> None:
        self.word, self.asked = word, 0

    def logits(self, question: str, texts: Sequence[str]) -> np.ndarray:
        self.asked += 1
        out = np.zeros((len(texts), len(HEADS)))
        out[:, HEADS.index("answers")] = [8.0 if self.word in t else 0.0 for t in texts]
        return out


def test_reordering_hands_the_same_probabilities_out_in_the_cross_encoders_order():
    probabilities = np.array([0.9, 0.6, 0.3])
    cross = np.array([0.0, 0.0, 5.0])
    assert reorder(probabilities, cross, 0.0).tolist() == [0.9, 0.6, 0.3]
    moved = reorder(probabilities, cross, 1.0)
    assert moved.tolist() == [0.6, 0.3, 0.9]
    assert sorted(moved) == sorted(probabilities)


def test_another_papers_sentence_is_never_moved_above_the_named_papers():
    """"What results does CompFuser report?": the cross-encoder reads no names, so it may prefer
    another paper's results sentence; it reorders the named paper's sentences among themselves
    and the others among themselves, and the named paper keeps the lead the reader gave it."""
    from rag.answer.features import Candidate
    from rag.answer.intent import parse_intent
    from rag.answer.reader import Scored
    from tests.support import scored_paper

    own = scored_paper("p1", "CompFuser decodes objects in steps. CompFuser beats baselines.", "CompFuser")
    other = scored_paper("p2", "Experimental results from three cities favour UrbanLLaVA.", "UrbanLLaVA")
    pool = (Candidate(own, "CompFuser decodes objects in steps.", 0, 2, 1),
            Candidate(own, "CompFuser beats baselines.", 1, 2, 1),
            Candidate(other, "Experimental results from three cities favour UrbanLLaVA.", 0, 1, 2))
    intent = parse_intent("What results does CompFuser report?")
    scored = Scored(intent, pool, (np.array([0.6, 0.55, 0.5]),), (np.ones(3, dtype=bool),), None, None, 1.0,
                    np.zeros((1, 5)))
    results = Reranker(Prefers("results"), k=3, weight=5.0).apply(scored).probabilities[0]
    beats = Reranker(Prefers("beats"), k=3, weight=5.0).apply(scored).probabilities[0]
    assert results.tolist() == [0.6, 0.55, 0.5]  # the other paper's sentence stays below
    assert beats.tolist() == [0.55, 0.6, 0.5]  # within the named paper, the cross-encoder decides


def test_the_sentence_the_cross_encoder_prefers_leads_the_answer(engine):  # noqa: F811
    question = "How much does QuillKV reduce KV cache memory?"
    before = answer(engine, question)
    assert "71%" in before.text.split("\n")[0]
    # a cross-encoder preferring the introducing sentence, with a weight that lets it decide
    reranker = Reranker(Prefers("two bits"), k=3, weight=5.0)
    reread = with_reader(engine, engine.reader.model)
    reread.reader.reranker = reranker
    after = answer(reread, question)
    assert "two bits" in after.text.split("\n")[0], after.text
    assert reranker.encoder.asked >= 1


def test_a_declined_question_is_not_read_again(engine):  # noqa: F811
    scorer = Prefers("TideNet")
    reread = with_reader(engine, engine.reader.model)
    reread.reader.reranker = Reranker(scorer, k=3, weight=5.0)
    result = answer(reread, "Which tide gauges in Norway does TideNet use?")
    assert result.abstained
    assert scorer.asked == 0


def test_reading_without_the_cross_encoder_is_a_setting(engine):  # noqa: F811
    off = engine.settings.answer.model_copy(update={"cross_encoder": False})
    reread = with_reader(engine, engine.reader.model, off)
    assert reread.reader.reranker is None


def parts_and_scores(informative: bool, n: int = 60, seed: int = 3) -> tuple[list[dict], list[dict]]:
    """Invented dev parts: the reader puts the fact second half of the time; an informative
    cross-encoder scores the fact-holding sentence high, a useless one at random."""
    rng = np.random.default_rng(seed)
    parts, scores = [], []
    for i in range(n):
        labels = [1, 0, 0, 0] if i % 2 else [0, 1, 0, 0]
        cross = [3.0 * y for y in labels] if informative else list(rng.normal(size=4))
        parts.append({"qid": f"d{i}", "part": 0, "asked": "?", "texts": ["a", "b", "c", "d"],
                      "labels": labels, "p": [0.8, 0.7, 0.2, 0.1]})
        scores.append({"qid": f"d{i}", "part": 0, "fold": i % 2, "cross": cross})
    return parts, scores


def test_the_weight_is_fitted_on_dev_and_helps_only_where_the_cross_encoder_knows():
    parts, scores = parts_and_scores(informative=True)
    fitted = fit(parts, scores)
    assert fitted["weight"] > 0 and fitted["dev_top1"]["both"] == 1.0
    assert fitted["dev_top1"]["reader"] == 0.5
    parts, scores = parts_and_scores(informative=False)
    noise = fit(parts, scores)
    assert noise["dev_top1"]["both"] >= noise["dev_top1"]["reader"]
    assert noise["flips"]["right_to_wrong"] <= noise["flips"]["wrong_to_right"]


def mixed_folds(scores: list[dict]) -> list[dict]:
    """Each fold holds parts the reader gets right and parts it gets wrong."""
    return [s | {"fold": (i // 2) % 2} for i, s in enumerate(scores)]


def test_the_choice_is_also_measured_on_folds_it_was_not_made_on():
    parts, scores = parts_and_scores(informative=True)
    assert fit(parts, mixed_folds(scores))["chosen_on_other_folds"] == {
        "reader": 0.5, "both": 1.0, "wrong_to_right": 30, "right_to_wrong": 0}
    parts, scores = parts_and_scores(informative=False, n=200)
    noise = fit(parts, mixed_folds(scores))
    # chosen in sample, noise looks like a gain; chosen on the other fold, the gain shrinks
    assert noise["chosen_on_other_folds"]["both"] <= noise["dev_top1"]["both"]


def folder_with(folder, rerank: dict | None):
    """A cross-encoder folder: the shipped model, its manifest carrying ``rerank`` (or none)."""
    folder.mkdir()
    shutil.copy(MODEL_FILE, folder / MODEL_FILE.name)
    manifest = json.loads(MANIFEST_FILE.read_text(encoding="utf-8"))
    manifest.pop("rerank", None)
    if rerank is not None:
        manifest["rerank"] = rerank
    (folder / MANIFEST_FILE.name).write_text(json.dumps(manifest), encoding="utf-8")
    return folder


def test_the_manifests_fitted_k_and_weight_are_what_the_engine_reads_with(engine, tmp_path):  # noqa: F811
    fitted = folder_with(tmp_path / "fitted", {"k": 4, "weight": 0.7})
    unfitted = folder_with(tmp_path / "unfitted", None)
    settings = engine.settings.answer.model_copy(update={"cross_encoder": True, "cross_encoder_dir": fitted})
    reranker = build_reader(engine.library, settings).reranker
    assert reranker is not None and (reranker.k, reranker.weight) == (4, 0.7)
    settings = settings.model_copy(update={"cross_encoder_dir": unfitted})
    assert build_reader(engine.library, settings).reranker is None
