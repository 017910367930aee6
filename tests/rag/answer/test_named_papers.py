"""A question that names a method is read from the paper that introduces it, not from a rival on
the same topic that is closer in wording or richer in figures (an invented library of short,
titled abstracts, one-sentence ones included, indexed with the real embedder)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from rag.answer.model import Logistic
from rag.engine import answer, build_engine, with_reader
from rag.settings import Settings
from tests.support import index_papers

PAPERS = [
    ("quarry", "Quarrystone: sonar archive compression",
     "We present Quarrystone, a codec for sonar archives, improving over the prior best by 9.2%."),
    ("velmo", "Velmo: learned codecs for sonar recordings",
     "Storing sonar recordings is expensive for survey fleets. We propose Velmo, a learned codec for "
     "sonar archives. Velmo stores an hour of recordings in 33 MB, 41% less than the previous codec, "
     "and improves over the prior best on every survey."),
    ("dracor", "Dracor: lossless sonar archives",
     "We introduce Dracor, a lossless compressor for sonar archives built on arithmetic coding. "
     "Dracor improves the compression ratio by 17% over the prior best lossless codec."),
    ("tixlum", "Tixlum: forecasting glacier melt",
     "We propose Tixlum, a forecaster of glacier melt. Its ten-day error is 12% below the best baseline."),
    ("fenith", "Fenith: glacier melt from satellite images",
     "Fenith reads satellite images to forecast glacier melt, improving over the prior best by 23%."),
]
QUESTIONS = [(f"What does {name} do?", pid) for pid, name in
             [("quarry", "Quarrystone"), ("velmo", "Velmo"), ("dracor", "Dracor"), ("tixlum", "Tixlum"),
              ("fenith", "Fenith")]] + [
    ("How much does Quarrystone improve over the prior best?", "quarry"),
    ("What results does Quarrystone report?", "quarry"),
    ("What results does Tixlum report?", "tixlum"),
    ("How much does Fenith improve over the prior best?", "fenith"),
]


@pytest.fixture(scope="module")
def engine(tmp_path_factory):  # type: ignore[no-untyped-def]
    folder = tmp_path_factory.mktemp("named")
    rows = [{"id": pid, "title": title, "abstract": text, "authors": ["A. Author"], "year": 2024}
            for pid, title, text in PAPERS]
    settings = index_papers(Settings(data_dir=folder / "index"), folder, rows)
    engine = build_engine(settings)
    yield engine
    engine.close()


def first_cited(engine, question: str) -> str | None:  # type: ignore[no-untyped-def]
    reply = answer(engine, question)
    return reply.citations[0].paper_id if reply.citations else None


def test_each_named_method_is_answered_from_its_own_paper(engine):
    assert {q: first_cited(engine, q) for q, _ in QUESTIONS} == {q: pid for q, pid in QUESTIONS}


def test_the_one_sentence_abstract_gives_its_own_figure(engine):
    reply = answer(engine, "How much does Quarrystone improve over the prior best?")
    assert not reply.abstained and reply.text.startswith("**9.2%**"), reply.text


def test_a_name_only_the_collection_knows_is_a_name_of_the_question(engine):
    from rag.stages.route import route

    routed = route(engine.library, "How much does Quarrystone improve?", "How much does Quarrystone improve?")
    assert "Quarrystone" in routed.intent.names


def test_a_name_only_the_collection_knows_is_no_word_the_question_asks_about(engine):
    """As for a name the question itself marks (GlimmerNet): "What does Quarrystone do?" asks
    nothing in words of its own, so it is not read as a near miss for lack of them."""
    from rag.stages.route import route

    routed = route(engine.library, "What does Quarrystone do?", "What does Quarrystone do?")
    assert routed.intent.parts[0].focus == frozenset() and "quarrystone" not in routed.intent.focus


def test_random_weights_do_not_find_the_named_papers(engine):
    """The right answers above come from the fitted weights, not from the layout alone: random
    sentence weights miss at least one question every other draw on average (the fitted ones miss
    none; in a five-paper library, a lucky draw can miss nothing, so one draw proves little: over
    20 draws the count moved 9-11 with the number of features, so it is read over 60)."""
    misses = 0
    for seed in range(60):
        rng = np.random.default_rng(seed)
        sentence = engine.reader.model.sentence
        scrambled = replace(engine.reader.model, sentence=Logistic(
            sentence.features, sentence.mean, sentence.scale, rng.normal(0, 1, sentence.coef.shape), 0.0))
        shaken = with_reader(engine, scrambled)
        misses += sum(first_cited(shaken, q) != pid for q, pid in QUESTIONS)
    assert misses >= 30
