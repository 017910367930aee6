"""`rag train-reader` refits the reader from labelled questions anyone can rerun it on: the
weights and thresholds are written as data, an engine answers with them, and the test split
is refused."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest
from click.testing import CliRunner

from cli.main import cli
from eval.dataset import SPLITS, load
from eval.generate_training import GATE_ONLY, SENTENCE_ONLY
from eval.train_reader import collect, gates, top1, train
from rag.answer.model import ReaderModel
from rag.engine import answer, build_engine, with_reader
from rag.errors import InputError
from rag.index.library import open_library
from rag.ingest.pipeline import ingest
from rag.settings import Settings

# (id, name, what it does, the fact a question asks for, the question)
PAPERS = [
    ("p01", "QuillKV", "quantises the key-value cache to two bits", "two bits",
     "To how many bits does QuillKV quantise the cache?"),
    ("p02", "FernCache", "evicts unimportant tokens from the KV cache during decoding", "evicts unimportant tokens",
     "What does FernCache do to the KV cache?"),
    ("p03", "TideNet", "forecasts coastal flood levels from tide gauge records", "coastal flood levels",
     "What does TideNet forecast?"),
    ("p04", "WingSort", "classifies moth wing patterns with a convolutional network", "moth wing patterns",
     "What does WingSort classify?"),
    ("p05", "GlacierSeg", "segments glacier outlines in satellite images", "glacier outlines",
     "What does GlacierSeg segment?"),
    ("p06", "LoamNet", "predicts soil moisture from radar backscatter", "soil moisture",
     "What does LoamNet predict from radar?"),
    ("p07", "ReedPose", "estimates bird poses from single camera traps", "bird poses",
     "What does ReedPose estimate?"),
    ("p08", "CinderGraph", "detects wildfire spread with a graph neural network over weather stations",
     "wildfire spread", "What does CinderGraph detect?"),
    ("p09", "MossRank", "ranks scientific claims by how often they are replicated", "replicated",
     "How does MossRank rank scientific claims?"),
    ("p10", "BrineFlow", "simulates salt transport in estuaries with a neural operator", "salt transport",
     "What does BrineFlow simulate?"),
    ("p11", "PebbleLM", "compresses language model weights by pruning attention heads", "pruning attention heads",
     "How does PebbleLM compress a language model?"),
    ("p12", "OtterASR", "transcribes underwater acoustic recordings of otters", "underwater acoustic recordings",
     "What does OtterASR transcribe?"),
]
UNANSWERABLE = ["Who won the 2018 FIFA World Cup?", "How do I bake sourdough bread at home?",
                "What is the capital of Mongolia?", "Which team won the 1998 Tour de France?",
                "How tall is the Eiffel Tower?", "What is a good recipe for lentil soup?",
                "When did the Roman empire fall?", "Who painted the Mona Lisa?",
                "How do I renew a passport?", "What time zone is Lisbon in?"]


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    folder = tmp_path_factory.mktemp("train")
    rows = [{"id": pid, "title": f"{name}: a new method",
             "abstract": f"Prior work leaves this problem open. We introduce {name}, which {does}. "
                         f"{name} is evaluated on two public datasets and beats strong baselines."}
            for pid, name, does, _, _ in PAPERS]
    (folder / "papers.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    settings = Settings(data_dir=folder / "index")
    lib = open_library(settings)  # the real embedder: the features are its cosines
    ingest(lib, [folder / "papers.jsonl"])
    built = build_engine(settings, library=lib)
    yield built
    built.close()


@pytest.fixture(scope="module")
def questions(tmp_path_factory):
    path = tmp_path_factory.mktemp("questions") / "mine.jsonl"
    rows = [{"id": f"a{pid}", "question": q, "gold_papers": [pid], "reference_answer": fact,
             "key_facts": [[fact]], "type": "single", "tags": []} for pid, _, _, fact, q in PAPERS]
    rows += [{"id": f"u{i}", "question": q, "gold_papers": [], "reference_answer": "", "key_facts": [],
              "type": "unanswerable", "tags": ["out-of-scope"]} for i, q in enumerate(UNANSWERABLE)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_training_writes_weights_and_thresholds_an_engine_answers_with(engine, questions, tmp_path):
    out = tmp_path / "reader.json"
    trained = train(engine, [questions], out=out)
    assert trained["questions"] == len(PAPERS) + len(UNANSWERABLE)
    assert trained["data"] == [str(questions.resolve())], "a user's own file is named by its path"
    assert trained["data_sha256"] == {str(questions.resolve()): hashlib.sha256(questions.read_bytes()).hexdigest()}
    assert trained["command"] == f"rag train-reader --dataset {questions.resolve()}"
    model = ReaderModel.load(out)
    assert 0 < model.threshold("answerable", -1) < 1
    assert model.qualifies is None, "no list question to fit the paper model on"
    assert json.loads(out.read_text())["trained"]["cross_validated"]["top1_states_a_fact"] > 0.5
    # the refitted weights are what an engine reads with: its answers state the facts
    refitted = with_reader(engine, model)
    stated = sum(fact in answer(refitted, q).text for _, _, _, fact, q in PAPERS)
    assert stated >= len(PAPERS) - 2


def _write(path, facts: dict[str, str]):
    """The invented questions, each answerable one asking for ``facts[pid]``."""
    rows = [{"id": f"a{pid}", "question": q, "gold_papers": [pid], "reference_answer": facts[pid],
             "key_facts": [[facts[pid]]], "type": "single", "tags": []} for pid, _, _, _, q in PAPERS]
    rows += [{"id": f"u{i}", "question": q, "gold_papers": [], "reference_answer": "", "key_facts": [],
              "type": "unanswerable", "tags": ["out-of-scope"]} for i, q in enumerate(UNANSWERABLE)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _top1(engine, questions, model: ReaderModel) -> float:
    """Share of the questions whose best sentence, by ``model``, states their key fact."""
    examples = collect(engine, load(questions), lambda: None)
    return top1(examples, [[model.sentence.probability(rows) for rows in ex.rows] for ex in examples])


def test_the_weights_follow_the_questions_they_are_fitted_on(engine, questions, tmp_path):
    """Refitting on the same questions gives the same weights; questions whose facts are another
    sentence ("two public datasets") give other weights, and each model picks the sentences its
    own questions labelled. Random weights fail every part of this."""
    fitted, again, other = tmp_path / "a.json", tmp_path / "b.json", tmp_path / "c.json"
    train(engine, [questions], out=fitted)
    train(engine, [questions], out=again)
    evaluated = _write(tmp_path / "evaluated.jsonl", dict.fromkeys((p[0] for p in PAPERS), "two public datasets"))
    train(engine, [evaluated], out=other)
    mine, theirs = ReaderModel.load(fitted), ReaderModel.load(other)
    assert np.array_equal(mine.sentence.coef, ReaderModel.load(again).sentence.coef), "a rerun is the same fit"
    assert not np.allclose(mine.sentence.coef, theirs.sentence.coef)
    assert _top1(engine, questions, mine) >= 0.8 > _top1(engine, questions, theirs)
    assert _top1(engine, evaluated, theirs) >= 0.8 > _top1(engine, evaluated, mine)


def test_test_content_is_never_trained_on_under_any_name(tmp_path):
    copy = tmp_path / "my_questions.jsonl"
    copy.write_text(SPLITS["test"].read_text())
    with pytest.raises(InputError, match="never trained on"):
        train(None, [copy], out=tmp_path / "r.json")  # type: ignore[arg-type]  (refused before any reading)
    assert not (tmp_path / "r.json").exists()


def test_the_test_split_is_never_trained_on(tmp_path):
    renamed = tmp_path / "dev_extra.jsonl"
    renamed.write_text(SPLITS["test"].read_text())
    for given in (SPLITS["test"], renamed):
        result = CliRunner().invoke(cli, ["train-reader", "--dataset", str(given), "--out", str(tmp_path / "r.json")],
                                    env={"RAG_DATA_DIR": str(tmp_path / "index")})
        assert result.exit_code != 0 and "never trained on" in result.output
    assert not (tmp_path / "r.json").exists()


def test_training_needs_no_loadable_weights_to_start_from(engine, questions, tmp_path, monkeypatch):
    """A new feature makes the shipped weights stale; `rag train-reader` must still fit new ones."""
    import rag.stages.read as read_stage

    def stale(*_args, **_kwargs):  # type: ignore[no-untyped-def]
        raise AssertionError("training loaded the shipped weights")

    monkeypatch.setattr(read_stage, "load_model", stale)
    out = tmp_path / "r.json"
    result = CliRunner().invoke(cli, ["train-reader", "--dataset", str(questions), "--out", str(out)],
                                env={"RAG_DATA_DIR": str(engine.settings.data_dir)})
    assert result.exit_code == 0, result.output
    assert out.is_file() and "paper_named" in json.loads(out.read_text())["sentence"]["features"]



def test_a_count_the_abstract_gives_is_answered_not_declined(engine):
    """The shipped reader, asked how many datasets a method was evaluated on where its abstract
    says "two public datasets", answers from that paper's sentence for all but one of the twelve at
    most. (A refit with the gate's weights bounded to their directions and "How many ... is X
    evaluated on?" twins in the generated questions answered 9: docs/evaluation.md. On the bundled
    corpus the shipped reader declines most such questions: benchmarks/counted_questions.py.)"""
    answered = []
    for pid, name, *_ in PAPERS:
        reply = answer(engine, f"How many datasets was {name} evaluated on?")
        if not reply.abstained and reply.citations[0].paper_id == pid and "two public datasets" in reply.text:
            answered.append(name)
    assert len(answered) >= len(PAPERS) - 1, answered


def test_a_gate_only_question_teaches_the_gate_and_not_which_sentence_answers(engine, questions, tmp_path):
    """Questions tagged gate-only (the generated "How many datasets is X evaluated on?" twins) add
    no sentence rows, so the sentence model and the list threshold stay as they were, and the
    gate learns that such a question is answerable."""
    gated = tmp_path / "gated.jsonl"
    rows = [json.loads(line) for line in questions.read_text().splitlines()]
    rows += [{"id": f"c{pid}", "question": f"How many datasets is {name} evaluated on?", "gold_papers": [pid],
              "reference_answer": "two", "key_facts": [{"any": ["two"], "near": ["datasets"]}], "type": "single",
              "tags": ["generated", GATE_ONLY]} for pid, name, *_ in PAPERS]
    gated.write_text("".join(json.dumps(r) + "\n" for r in rows))
    plain = train(engine, [questions], out=tmp_path / "a.json")
    with_gate = train(engine, [gated], out=tmp_path / "b.json")
    assert with_gate["questions"] == plain["questions"] + len(PAPERS)
    assert with_gate["sentences"] == plain["sentences"]
    assert np.array_equal(ReaderModel.load(tmp_path / "a.json").sentence.coef,
                          ReaderModel.load(tmp_path / "b.json").sentence.coef)
    assert not np.array_equal(ReaderModel.load(tmp_path / "a.json").answerable.coef,
                              ReaderModel.load(tmp_path / "b.json").answerable.coef)


def test_a_sentence_only_question_teaches_which_sentence_answers_and_not_the_gate(engine, questions, tmp_path):
    """Questions tagged sentence-only (the generated "What does X give as an example of ...?")
    add sentence rows, and the gate is fitted without them: easy answerable templates would teach
    it to answer."""
    from eval.dataset import load as load_questions

    taught = tmp_path / "taught.jsonl"
    rows = [json.loads(line) for line in questions.read_text().splitlines()]
    rows += [{"id": f"e{pid}", "question": f"What does {name} give as an example of its task?", "gold_papers": [pid],
              "reference_answer": fact, "key_facts": [[fact]], "type": "single",
              "tags": ["generated", SENTENCE_ONLY]} for pid, name, _, fact, _ in PAPERS]
    taught.write_text("".join(json.dumps(r) + "\n" for r in rows))
    examples = collect(engine, load_questions(taught), lambda: None)
    assert [bool(g) for g in gates(examples)] == [not r["id"].startswith("e") for r in rows]
    plain = train(engine, [questions], out=tmp_path / "a.json")
    with_rows = train(engine, [taught], out=tmp_path / "b.json")
    assert with_rows["sentences"] > plain["sentences"]
