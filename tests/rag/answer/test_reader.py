"""The fitted reader on invented corpora: a list question gets every qualifying paper, each line
with its own sentence and, when the question asks "how much", its own figure or a line saying its
abstract gives none; a plain English contrast is not read as a denial; the weights are data
(rag/assets/reader.json) and a blank model reads nothing."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from eval.dataset import Fact, Question
from eval.train_reader import collect, weights_hash
from rag.answer.intent import parse_intent
from rag.answer.model import MODEL_FILE, ReaderModel
from rag.answer.verdict import yes_or_no
from rag.engine import answer, build_engine
from rag.index.library import open_library
from rag.ingest.pipeline import ingest
from rag.settings import Settings
from tests.support import scored_paper

KV = [
    ("kv-a", "Long contexts make the key-value cache the memory bottleneck of LLM inference. We propose "
             "QuillKV, which compresses the KV cache by quantising keys and values to two bits. QuillKV "
             "reduces KV cache memory by 71% with no loss on LongBench."),
    ("kv-b", "We introduce FernCache, a method that evicts unimportant tokens from the KV cache during "
             "decoding. FernCache compresses the KV cache by 5x while keeping answer accuracy on long "
             "document question answering."),
    ("kv-c", "Serving long prompts needs a large key-value cache. We present LarkMerge, which merges "
             "similar key-value pairs across adjacent layers to compress the KV cache. LarkMerge keeps "
             "quality on summarisation benchmarks."),
    ("other-1", "We propose TideNet, a forecasting model for coastal flood levels from tide gauges. TideNet "
                "lowers forecast error by 18% over persistence baselines."),
    ("other-2", "We study moth wing patterns with a convolutional classifier called WingSort. WingSort "
                "reaches 93% accuracy on a new museum dataset."),
    ("other-3", "We present GlacierSeg, which segments glacier outlines in satellite images with a "
                "vision transformer and improves IoU by 6 points."),
]


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    folder = tmp_path_factory.mktemp("kv")
    rows = [{"id": pid, "abstract": text} for pid, text in KV]
    (folder / "papers.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    settings = Settings(data_dir=folder / "index")
    lib = open_library(settings)  # the real MiniLM embedder: the reader's cosine features need it
    ingest(lib, [folder / "papers.jsonl"])
    built = build_engine(settings, library=lib)
    yield built
    built.close()


def test_a_list_question_names_every_qualifying_paper_with_its_own_figure(engine):
    result = answer(engine, "Which methods compress the KV cache, and by how much?")
    cited = {c.paper_id for c in result.citations}
    assert {"kv-a", "kv-b", "kv-c"} <= cited, result.text
    assert not cited & {"other-1", "other-2"}, result.text
    lines = {pid: next(line for line in result.text.splitlines() if f"({pid})" in line)
             for pid in ("kv-a", "kv-b", "kv-c")}
    assert "**71%**" in lines["kv-a"] and "**5x**" in lines["kv-b"], result.text
    assert "LarkMerge abstract gives no figure" in lines["kv-c"], result.text


def test_a_question_the_abstracts_do_not_answer_is_declined(engine):
    result = answer(engine, "How many GPUs does QuillKV need for training?")
    assert result.abstained, result.text


def test_a_contrast_in_plain_english_is_not_a_denial():
    part = parse_intent("Does GlimmerNet fine-tune the encoder?").parts[0]
    assert yes_or_no(part, "Instead of prompting, GlimmerNet fine-tunes the encoder end to end.") == "Yes"
    assert yes_or_no(part, "GlimmerNet keeps the encoder frozen and trains a small adapter.") == "No"
    assert yes_or_no(part, "GlimmerNet does not fine-tune the encoder.") == "No"


def test_the_weights_are_a_data_file_written_by_the_training_command(engine):
    """The shipped weights are the training command's: the manifest names its data (never
    test), carries dev's own out-of-fold figures and the hash of the weights, and the weights
    pick the answering sentence on a corpus they never saw. Random weights fail the hash, and
    the reading too."""
    model = ReaderModel.load(MODEL_FILE)
    assert model.trained.get("data") and "test" not in " ".join(model.trained["data"])
    assert len(model.sentence.coef) == len(model.sentence.features) > 20
    assert 0 < model.threshold("answerable", -1) < 1
    assert model.trained["weights_sha256"] == weights_hash(model), "weights edited by hand, not by rag train-reader"
    by_source = model.trained["cross_validated_by_source"]
    assert model.trained["cross_validated"] == by_source["dev"] and {"generated", "pooled"} <= set(by_source)
    questions = [Question(f"k{i}", text, (pid,), "", (Fact((fact,)),), "single", ()) for i, (text, pid, fact) in
                 enumerate(READ)]
    examples = collect(engine, questions, lambda: None)
    assert len(examples) == len(READ)
    # about 11 candidate sentences each: random weights put the answer in their top two about once in six
    missed = [ex.question.question for ex in examples
              if not ex.labels[np.argsort(-model.sentence.probability(ex.rows[0]))[:2]].any()]
    assert not missed, f"the shipped weights do not read: {missed}"


READ = [("By how much does QuillKV reduce KV cache memory?", "kv-a", "71%"),
        ("What does FernCache evict from the KV cache?", "kv-b", "unimportant tokens"),
        ("How does LarkMerge compress the KV cache?", "kv-c", "merges similar key-value pairs"),
        ("What does TideNet forecast?", "other-1", "coastal flood levels"),
        ("What accuracy does WingSort reach on the museum dataset?", "other-2", "93%"),
        ("By how much does GlacierSeg improve IoU?", "other-3", "6 points")]


def _scored_pool(question: str, held: list[bool]):  # type: ignore[no-untyped-def]
    from rag.answer.features import Candidate
    from rag.answer.reader import Scored
    from rag.types import Paper, ScoredPaper

    def paper(pid: str, text: str, title: str, method: str, similarity: float) -> ScoredPaper:
        return ScoredPaper(Paper(pid, text, text, title, method=method), similarity, similarity=similarity)

    orbit = paper("p1", "OrbitNet predicts drag.", "OrbitNet: drag", "OrbitNet", 0.6)
    kelp = paper("p2", "KelpCodec has 40M parameters.", "KelpCodec", "KelpCodec", 0.5)
    pool = (Candidate(orbit, "OrbitNet predicts drag.", 0, 1, 1),
            Candidate(kelp, "KelpCodec has 40M parameters.", 0, 1, 2))
    intent = parse_intent(question)
    return Scored(intent, pool, tuple(np.array([0.5, 0.9]) for _ in intent.parts),
                  tuple(np.array(held) for _ in intent.parts), None, None, 1.0,
                  np.zeros((len(intent.parts), 5)))


def test_a_figure_asked_of_a_named_paper_that_gives_none_is_declined_and_says_whose():
    from rag.answer.reader import figure_not_given

    reason = figure_not_given(_scored_pool("How many parameters does OrbitNet have?", [False, True]))
    assert reason == "the abstract of OrbitNet gives no figure for: How many parameters does OrbitNet have"


def test_a_named_paper_that_gives_the_figure_is_not_declined_for_it():
    from rag.answer.reader import figure_not_given

    assert figure_not_given(_scored_pool("How many parameters does OrbitNet have?", [True, True])) == ""


def test_with_no_name_the_paper_retrieval_ranks_first_stands_for_the_one_described():
    """"The drag model" is OrbitNet, the paper retrieval ranks first: KelpCodec's figure, however
    well read, measures something else."""
    from rag.answer.reader import figure_not_given

    assert figure_not_given(_scored_pool("How many parameters does the drag model have?", [True, False])) == ""
    reason = figure_not_given(_scored_pool("How many parameters does the drag model have?", [False, True]))
    assert reason == "the abstract of OrbitNet gives no figure for: How many parameters does the drag model have"


def test_a_name_no_paper_owns_is_asked_of_the_abstracts_that_say_it():
    """"KelpCodec-2B" is no paper's method name, but the abstract that says it is the one asked
    about, though retrieval ranks another first."""
    from rag.answer.reader import figure_not_given

    said = _scored_pool("How many parameters does KelpCodec-2B have?", [False, True])
    kelp = said.pool[1]
    text = "The KelpCodec-2B model has 40M parameters."
    paper = replace(kelp.paper, paper=replace(kelp.paper.paper, text=text, abstract=text, method=None))
    said = replace(said, pool=(said.pool[0], replace(kelp, paper=paper, text=text)))
    assert figure_not_given(said) == ""
    unheld = replace(said, holding=(np.array([True, False]),))
    assert figure_not_given(unheld) == "the abstract of KelpCodec gives no figure for: " \
                                       "How many parameters does KelpCodec-2B have"


def test_a_list_question_is_judged_on_its_papers_not_on_the_figure_each_line_gives_or_lacks():
    """"Which papers ..., and how much do they save?": each listed paper gives its figure or says
    it gives none, so no figure anywhere is no reason to decline the list; a one-paper question
    asking for a figure nobody gives still counts it."""
    from rag.answer.reader import EVIDENCE, evidence_features

    listed = _scored_pool("Which papers predict drag, and how much do they save?", [False, False])
    listed = replace(listed, probabilities=(np.array([0.5, 0.9]), np.array([0.1, 0.2])))
    row = dict(zip(EVIDENCE, evidence_features(listed), strict=True))
    assert listed.intent.lists_papers and len(listed.intent.parts) == 2
    assert row["best"] == 0.9 and row["figure_unheld"] == 0.0
    single = _scored_pool("What does OrbitNet predict, and how much does it save?", [False, False])
    single = replace(single, probabilities=(np.array([0.5, 0.9]), np.array([0.1, 0.2])))
    row = dict(zip(EVIDENCE, evidence_features(single), strict=True))
    assert row["best"] == 0.2 and row["figure_unheld"] == 1.0


def test_a_figure_that_names_the_variant_must_be_in_the_abstract_that_answers():
    """"The 360M model": an abstract that never says 360M gives another model's figure."""
    from rag.answer.reader import figure_not_given, of_the_asked_variant

    absent = of_the_asked_variant(_scored_pool("How many parameters does the 360M model have?", [True, True]))
    assert not absent.holding[0].any()
    assert figure_not_given(absent) == ("no retrieved abstract that says 360M gives a figure for: "
                                        "How many parameters does the 360M model have")
    present = of_the_asked_variant(_scored_pool("How many parameters does the 40M model have?", [True, True]))
    assert present.holding[0].tolist() == [False, True] and figure_not_given(present) == ""


def test_a_paper_with_no_name_is_called_by_its_label_when_its_figure_is_missing():
    from rag.answer.features import Candidate
    from rag.answer.reader import Scored, figure_not_given
    from rag.types import Paper, ScoredPaper

    text = "We study drag in low orbits."
    paper = ScoredPaper(Paper("p7", text, text, None, authors=("Ada Lovelace", "Alan Turing"), year=2024),
                        0.6, similarity=0.6)
    intent = parse_intent("How many satellites does the drag study track?")
    scored = Scored(intent, (Candidate(paper, text, 0, 1, 1),), (np.array([0.9]),), (np.array([False]),),
                    None, None, 1.0, np.zeros((1, 5)))
    assert figure_not_given(scored) == ("the abstract of Lovelace et al. 2024 (p7) gives no figure for: "
                                        "How many satellites does the drag study track")


def test_a_place_an_abstract_writes_as_its_adjective_is_not_an_unknown_word(engine):
    """"Norway" is said by "Norwegian": the question names nothing the collection lacks. A word
    no abstract writes in any form still is unknown."""
    norwegian = scored_paper("nb-1", "We release an open generative model trained on Norwegian and "
                                     "Sami text, with strong results on Norwegian benchmarks.")
    known = engine.reader.score(parse_intent("Which open LLM was built for the languages of Norway?"), [norwegian])
    unknown = engine.reader.score(parse_intent("Which open LLM was built for the languages of Peru?"), [norwegian])
    assert known.unknown is None and unknown.unknown == "Peru"
