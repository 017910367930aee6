"""The cross-encoder's training command runs end to end on a tiny invented corpus: fine-tunes the
shipped MiniLM weights for a few steps, exports ONNX int8 with a manifest the loader accepts, and
resumes from its checkpoint instead of starting over. Needs torch (the ``train`` extra, which the
``test`` extra pulls in), so it is marked slow; it is never skipped."""

from __future__ import annotations

import json

import pytest

from eval.train_cross_encoder import Stopped, train
from rag.answer.cross_encoder import HEADS, CrossEncoder

SENTENCES = ["We propose Quillformer, a sparse attention layer that skips distant tokens.",
             "Quillformer cuts inference memory by 41% on long legal documents.",
             "The gate is trained with a straight-through estimator.",
             "Experiments cover summarisation in English and German."]
GROUPS = [
    {"head": "answers", "kind": "invented", "question": "How much RAM does Quillformer save?",
     "texts": SENTENCES, "papers": ["900-0001"] * 4, "labels": [0, 1, 0, 0]},
    {"head": "answers", "kind": "invented", "question": "How is the Quillformer gate learned?",
     "texts": SENTENCES, "papers": ["900-0001"] * 4, "labels": [0, 0, 1, 0]},
    {"head": "absent", "kind": "invented", "question": "How many GPU hours did Quillformer take?",
     "texts": SENTENCES[:2], "papers": ["900-0001"] * 2, "labels": [0, 0]},
    {"head": "yes", "kind": "invented", "question": "Does Quillformer skip distant tokens?",
     "texts": SENTENCES[:1], "papers": ["900-0001"], "labels": [1]},
    {"head": "qualifies", "kind": "invented", "question": "Which papers make attention sparse?",
     "texts": [" ".join(SENTENCES), "A survey of bird songs in alpine meadows."], "papers": ["900-0001", "900-0002"],
     "labels": [1, 0]},
]


@pytest.mark.slow
def test_training_exports_a_model_the_loader_accepts_and_resumes_from_its_checkpoint(tmp_path):
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text("".join(json.dumps(g) + "\n" for g in GROUPS), encoding="utf-8")
    logged: list[str] = []
    trained = train(pairs, tmp_path / "state", tmp_path / "out", steps=2, minutes=5, threads=1, max_pairs=8,
                    save_every=1, log=logged.append)
    assert trained["steps"] == 2 and trained["groups"] == len(GROUPS)
    model = CrossEncoder(tmp_path / "out" / "cross_encoder.onnx", tmp_path / "out" / "cross_encoder.json")
    assert model.probabilities("How much RAM does Quillformer save?", SENTENCES).shape == (4, len(HEADS))
    manifest = json.loads((tmp_path / "out" / "cross_encoder.json").read_text())
    assert manifest["trained"]["data_sha256"] and manifest["heads"] == list(HEADS)

    again = train(pairs, tmp_path / "state", tmp_path / "out", steps=3, minutes=5, threads=1, max_pairs=8,
                  save_every=1, log=logged.append)
    assert again["steps"] == 3 and any("resuming at step 2" in line for line in logged)
    other = train(pairs, tmp_path / "state", tmp_path / "out", steps=1, minutes=5, threads=1, max_pairs=8,
                  seed=5, log=logged.append)
    assert other["steps"] == 1 and any("starting afresh" in line for line in logged)


@pytest.mark.slow
def test_a_stop_request_saves_the_step_reached_and_a_rerun_goes_on_from_it(tmp_path):
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text("".join(json.dumps(g) + "\n" for g in GROUPS), encoding="utf-8")
    done: list[int] = []
    with pytest.raises(Stopped, match="stopped at step 1 of 3"):
        train(pairs, tmp_path / "state", tmp_path / "out", steps=3, minutes=5, threads=1, max_pairs=8,
              save_every=50, on_step=done.append, should_stop=lambda: bool(done))
    assert not (tmp_path / "out").exists()  # nothing exported from a stopped run
    logged: list[str] = []
    again = train(pairs, tmp_path / "state", tmp_path / "out", steps=3, minutes=5, threads=1, max_pairs=8,
                  log=logged.append, cap_each_run=True)
    assert again["steps"] == 3 and any("resuming at step 1" in line for line in logged)
