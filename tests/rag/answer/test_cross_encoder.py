"""The shipped cross-encoder (rag/assets/cross_encoder.onnx, onnxruntime only) reads an invented
abstract: a paraphrased question gets the sentence that answers it, a near-miss question scores
below the one the abstract answers, and a contrast sentence says "no" to its rejected side. Each
check holds for every case listed; a model with random weights fails them (checked by exporting
a randomly initialised network through the same path: see the checks' docstrings)."""

from __future__ import annotations

import pytest

from rag.answer.cross_encoder import HEADS, CrossEncoder

ABSTRACT = [
    "Serving large language models on small devices is expensive because attention grows with length.",
    "We propose Quillformer, a sparse attention layer that skips distant tokens unless a learned gate opens.",
    "Quillformer cuts inference memory by 41% on long legal documents.",
    "The gate is trained with a straight-through estimator and a sparsity penalty.",
    "Experiments cover summarisation and question answering in English and German.",
]
PARAPHRASES = [  # (question in other words than the sentence's, index of the sentence that answers)
    ("How much less RAM does Quillformer need when reading lengthy contracts?", 2),
    ("Which trick lets the gate of Quillformer be learned despite being discrete?", 3),
    ("In which languages and on which tasks was Quillformer evaluated?", 4),
]
CONTRASTS = [  # (sentence, question it says yes to, question it says no to)
    ("The gains come mostly from the retrieval step rather than from the larger decoder.",
     "Do the gains come mostly from the retrieval step?", "Do the gains come mostly from the larger decoder?"),
    ("Routing decisions depend on token identity, not on the surrounding context.",
     "Do routing decisions depend on token identity?", "Do routing decisions depend on the surrounding context?"),
    ("Dropout helps against multi-epoch degradation, while weight decay does not.",
     "Does dropout help against multi-epoch degradation?", "Does weight decay help against multi-epoch degradation?"),
]


# The shipped model (about 1,300 steps of up to 24 pairs; docs/evaluation.md) does not pass these
# yet: it still puts the sentence introducing the method first for some paraphrases, its yes head
# scores both sides of a contrast alike, and one near miss (a speedup on another task) scores
# above an answered question. Strict: the day a retrained model passes, these marks fail and must go.
NOT_YET = pytest.mark.xfail(strict=True, reason="the shipped cross-encoder is undertrained (see docs/evaluation.md)")


@pytest.fixture(scope="module")
def model() -> CrossEncoder:
    return CrossEncoder()


def paraphrases_get_their_sentence(model: CrossEncoder) -> None:
    for question, answer in PARAPHRASES:
        scores = model.answers(question, ABSTRACT)
        assert int(scores.argmax()) == answer, (question, scores.round(3).tolist())


ANSWERED = ["How much memory does Quillformer save on long documents?",
            "How is the gate of Quillformer trained?",
            "Which languages do the experiments with Quillformer cover?"]
NEAR_MISSES = ["How many GPU hours did training Quillformer take?",
               "How many parameters does the Quillformer gate have?",
               "How much faster is Quillformer on speech recognition?",
               "What BLEU score does Quillformer reach on WMT translation?",
               "How large is the batch size used to train Quillformer?"]


def near_misses_score_below_answered_questions(model: CrossEncoder) -> None:
    """Every question the abstract answers above every near miss: a random order passes this
    one time in 56 (two near misses against one answered question passed one time in three)."""
    answered = {q: round(float(model.answerable(q, ABSTRACT)), 3) for q in ANSWERED}
    missing = {q: round(float(model.answerable(q, ABSTRACT)), 3) for q in NEAR_MISSES}
    assert max(missing.values()) < min(answered.values()), (answered, missing)


def contrasts_say_no_to_the_rejected_side(model: CrossEncoder) -> None:
    for sentence, yes_question, no_question in CONTRASTS:
        yes, no = model.says_yes(yes_question, [sentence])[0], model.says_yes(no_question, [sentence])[0]
        assert no < 0.5 < yes, (sentence, round(float(yes), 3), round(float(no), 3))


@NOT_YET
def test_a_paraphrased_question_gets_the_sentence_that_answers_it(model):
    paraphrases_get_their_sentence(model)


@NOT_YET
def test_a_near_miss_question_scores_below_one_the_abstract_answers(model):
    near_misses_score_below_answered_questions(model)


@NOT_YET
def test_a_contrast_sentence_says_no_to_its_rejected_side(model):
    contrasts_say_no_to_the_rejected_side(model)


def test_every_head_scores_every_pair_in_one_pass(model):
    probabilities = model.probabilities("What does Quillformer do?", ABSTRACT)
    assert probabilities.shape == (len(ABSTRACT), len(HEADS))
    assert ((probabilities > 0) & (probabilities < 1)).all()
    assert model.answers("What does Quillformer do?", []).shape == (0,)
    with pytest.raises(ValueError, match="unknown head"):
        model.score("What does Quillformer do?", ABSTRACT, head="relevance")
